"""Desktops that join a run on the NAS: the NAS's side of the session (the protocol itself is
join_protocol/), each step a joined desktop takes (its link, its SMB copies alone and at once, its own
disk), and what the NAS witnesses of them on its own clock and port."""
