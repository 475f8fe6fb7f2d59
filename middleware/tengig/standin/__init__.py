"""Stand-ins for what cannot run here: each follows the documented contract in
docs/truenas-api.md and says so; none hides a real test that could be written."""
