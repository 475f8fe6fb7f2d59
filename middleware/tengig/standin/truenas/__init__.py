"""A stand-in TrueNAS: it follows docs/truenas-api.md §2-§4, and is not TrueNAS.

It plays one release (24.10, 25.04, 25.10 or CORE 13.3): system.version, the network API with staging
(interface.query/create/update/delete with middlewared's validation messages and field paths, commit
with a real rollback timer, checkin, checkin_waiting, rollback, cancel_rollback, has_pending_changes,
websocket_interface/local_ip), network.configuration hosts (a list or a string by release),
pool.query, pool.dataset.*, zfs.dataset.update and sharing.smb.* (per-release fields). State is in memory, seeded from a StandinSeed.

Why it is built on tengig's own host: tengig.server already implements the wire protocol middlewared
speaks (JSON-RPC 2.0 frames, error shapes and codes, jobs and core.get_jobs events, API-key login, call
limits), tested on its own. The stand-in adds only TrueNAS's methods, as ordinary Services, plus one
option on the server: ``protocol="legacy"`` serves the /websocket protocol of 24.10 and CORE
(server/legacy.py) from the same dispatcher. So the client and backend are tested against the protocol
as tengig implements it for TrueNAS, not against a second hand-written copy of it.

    seed.py      what it starts with (example_seed)       network.py  staged vs active config, the timer
    rules.py     interface validation, as middlewared      storage.py  pools, datasets and SMB shares
    services.py  the API methods                           server.py   running it (async, or on a thread)
    zfs_pool.py  datasets on a real pool (the lab's zfs-fuse pool) through the zfs CLI

It can also serve a unix socket where middlewared serves its own (``unix_socket``), refuse a call the
key's roles do not allow (``StandinState.granted_roles``), and record every call with its answer
(``recorder``), which tests check against real middlewared's API models (tests/realmw/api_models.py).

``python -m tengig.standin.truenas --version 25.04 --port 8620`` prints its URL and an API key.
"""
from .seed import SeedInterface, SeedPool, StandinSeed, example_seed
from .server import StandinState, StandinThread, StandinTrueNAS, running_standin

__all__ = ["SeedInterface", "SeedPool", "StandinSeed", "StandinState", "StandinThread", "StandinTrueNAS",
           "example_seed", "running_standin"]
