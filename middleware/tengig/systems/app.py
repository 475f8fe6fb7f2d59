"""tengig as TrueNAS SCALE's app (a docker container, app_compose.py): what it sees of its NAS, and from where.

The image has no ``zpool``/``zfs`` (they must match the NAS's kernel module) and no say over TrueNAS's
datasets, so the app measures the NAS through TrueNAS itself: its pools from ``pool.query``, the scratch
datasets made and destroyed with ``pool.dataset.*`` (backends/truenas/scratch.py), the SMB share from
``sharing.smb.query``, all over the API named by TENGIG_TRUENAS_URL with the key in
TENGIG_TRUENAS_API_KEY_FILE. What the container sees of the host:

- the pools' files through the host path mount of their directory (``/mnt``, propagation ``rslave``): a
  dataset TrueNAS mounts after the app started appears in it (``app_storage.AppScratch`` checks both);
- the NAS's ports through host networking; the ARC counters in the kernel's kstat (/proc/spl/kstat is
  the kernel's, not the container's; where a runtime hides it, the pool and SMB results name the ARC as
  unknown: bench/phases/arc.py); smbd's CPU only with the host's PID namespace (``pid: host``).

``TENGIG_APP`` (set by the compose file) says tengig runs as the app.
"""
from __future__ import annotations

import os

from ..errors import TengigError
from .local import LocalFacts

APP_ENV = "TENGIG_APP"


def in_app() -> bool:
    """True when tengig runs as TrueNAS's app (its compose file sets TENGIG_APP)."""
    return bool(os.environ.get(APP_ENV, "").strip())


def truenas_client():
    """A logged-in client of the TrueNAS the app belongs to (a context manager; connection.py)."""
    from ..backends.truenas.connection import configured_client

    return configured_client()


def app_facts() -> LocalFacts:
    """The app's NAS: its pools and their mountpoints from ``pool.query``; why none, when the API says no."""
    from ..backends.truenas.caller import truenas_errors
    from ..backends.truenas.connection import URL_ENV

    url = os.environ.get(URL_ENV, "")
    reason = f"tengig runs as TrueNAS's app ({APP_ENV}); pools through the TrueNAS API (pool.query at {url or 'nowhere'})"
    try:
        with truenas_client() as client, truenas_errors("pool.query"):
            pools = client.call("pool.query")
    except TengigError as exc:
        return LocalFacts(flavour="truenas-app", reason=reason, pools_error=f"pool.query: {exc}")
    mounts = {p["name"]: p.get("path") or f"/mnt/{p['name']}" for p in pools if isinstance(p, dict) and p.get("name")}
    return LocalFacts(flavour="truenas-app", reason=reason, pools=tuple(sorted(mounts)),
                      pools_error=None if mounts else "pool.query: TrueNAS has no pool", mountpoints=mounts)
