"""Stand-ins for what cannot run here (DESIGN.md §6): each follows the documented contract in
shared/TRUENAS.md and says so; none hides a real test that could be written."""
