"""Desktops that join a run on the NAS: the session and its protocol, each step a joined desktop takes
(its link, its SMB copies alone and at once, its own disk), and what the NAS witnesses of them on its
own clock and port."""
