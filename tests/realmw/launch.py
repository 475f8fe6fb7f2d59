"""Start TrueNAS's real middlewared (from an unpacked upstream source tree) with only the plugins a
test names. Run by the middlewared virtualenv's python, never imported by tengig:

    python launch.py --run-dir DIR --port PORT --version 25.10.6 --plugin tengig_plugin [--plugin datastore]

What is ours (test scaffolding, named as stand-ins) and what is middlewared's:
- middlewared's own: main.Middleware, its plugin loader (utils/plugins.py load_modules, which takes
  a whitelist that Middleware never passes), api_method/job, the REST and websocket layers,
  core.get_methods, jobs, /_plugins/ routes.
- stand-ins: the native modules with no PyPI package (stubs.py); the paths middlewared hard-codes
  (/var/run/middleware, /data/manifest.json, /data/freenas-v1.db) moved under --run-dir; a private ``system`` service
  answering ``system.state``, ``system.version`` and ``system.general.get_ui_allowlist``; a ``core.on_connect`` hook
  that logs connections on the unix socket in as root (TrueNAS does this through SO_PEERCRED and
  PAM); and ``auth.login_ex`` / ``auth.me`` for TCP clients against one test user and one API key
  (--user NAME:PASSWORD, --api-key ID-KEY), because TrueNAS's auth plugin needs PAM, its users
  database and utmp. The models of auth.login_ex are middlewared's own.
- with --network (TrueNAS's own datastore, network and interface plugins): its database built by its
  own migrations (migrate.py, harness.install_database), the services those plugins call in parts of
  TrueNAS that cannot run here (standins.install_network_standins: HA, chassis, apps, VMs, services,
  /etc rendering), and /etc/resolv.conf and /etc/hosts bound to this test's own files (--private-etc).
- 26 only: a private ``system.vendor.is_vendored`` (False: a plain TrueNAS), the TCP site (26 opens
  none unless vendored: nginx is its door, not here), and a TCP connection's addresses read from the
  socket itself (26 asks the kernel through sock_diag in its native truenas_pynetif).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import stubs  # noqa: E402,F401  (installs the native-module stand-ins before middlewared imports them)


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run-dir", required=True, type=Path)
    parser.add_argument("--port", required=True, type=int)
    parser.add_argument("--version", required=True, help="the TrueNAS version to report, e.g. 25.10.6")
    parser.add_argument("--plugin", action="append", default=[], help="module names under middlewared.plugins")
    parser.add_argument("--user", default="truenas_admin:tengig-test", help="NAME:PASSWORD for auth.login_ex")
    parser.add_argument("--api-key", default="", help="ID-KEY accepted by auth.login_ex API_KEY_PLAIN")
    parser.add_argument("--network", action="store_true", help="TrueNAS's own datastore, network and interface "
                        "plugins run (with --plugin datastore/network/interface) against this network namespace, "
                        "the parts of TrueNAS they call that cannot run here answered by standins.py")
    parser.add_argument("--private-etc", type=Path, default=None, help="bind this directory's resolv.conf and hosts "
                        "over /etc's (the launcher runs in its own mount namespace): what TrueNAS writes there "
                        "stays this test's")
    parser.add_argument("--tcp-host", default=None, help="serve TCP on this address instead of middlewared's "
                        "127.0.0.1 (0.0.0.0: every address of the host, where TrueNAS's nginx listens and proxies "
                        "to middlewared; here middlewared itself stands there, so a desktop reaches it directly)")
    return parser.parse_args()


def configure_paths(run_dir: Path, version: str) -> None:
    import middlewared.utils as mw_utils

    run_dir.mkdir(parents=True, exist_ok=True)
    manifest = run_dir / "manifest.json"
    manifest.write_text(json.dumps({"version": version, "codename": "tengig-test", "buildtime": 0}))
    mw_utils.MIDDLEWARE_RUN_DIR = str(run_dir)
    mw_utils.MIDDLEWARE_NGINX_SOCK = str(run_dir / "middlewared-nginx.sock")  # 26: nginx's private socket
    mw_utils.MIDDLEWARE_STARTED_SENTINEL_PATH = str(run_dir / "middlewared-started")
    mw_utils.MANIFEST_FILE = str(manifest)
    mw_utils.BOOTREADY = str(run_dir / ".bootready")
    import middlewared.utils.db as mw_db  # the datastore plugin's sqlite file (/data/freenas-v1.db)

    mw_db.FREENAS_DATABASE = str(run_dir / "freenas-v1.db")


def serve_tcp(mw_main, args) -> None:
    """middlewared's TCP site on --port (and --tcp-host). 25.x opens 127.0.0.1:6000 itself (start_tcp_site);
    26 opens no TCP site unless the system is vendored (HexOS) and is reached through nginx, which is not
    here: its SiteManager gets this one TCP site beside its unix sockets."""
    from aiohttp import web

    if hasattr(mw_main.Middleware, "start_tcp_site"):  # 25.x
        async def start_tcp_site(self, host):
            site = web.TCPSite(self.runner, args.tcp_host or host, args.port, reuse_address=True)
            await site.start()
            return site

        mw_main.Middleware.start_tcp_site = start_tcp_site
        return
    from middlewared.utils.web_app import SiteManager

    original_start = SiteManager.start_sites

    async def start_sites(self, runner):
        await self.add_site(web.TCPSite, args.tcp_host or "127.0.0.1", args.port, reuse_address=True)
        return await original_start(self, runner)

    SiteManager.start_sites = start_sites


def private_etc(directory: Path) -> None:
    """/etc/resolv.conf and /etc/hosts as this test's own files (copies of the machine's), bound over the
    originals in this process's mount namespace (the harness starts it under `unshare --mount`)."""
    import shutil
    import subprocess

    directory.mkdir(parents=True, exist_ok=True)
    for name in ("resolv.conf", "hosts"):
        own = directory / name
        if not own.exists():
            shutil.copyfile(f"/etc/{name}", own)
        subprocess.run(["mount", "--bind", str(own), f"/etc/{name}"], check=True, timeout=30)


def main() -> None:
    args = parse_args()
    if args.private_etc is not None:
        private_etc(args.private_etc)
    configure_paths(args.run_dir, args.version)

    import middlewared.main as mw_main
    from middlewared.utils.plugins import LoadPluginsMixin

    from standins import install_network_standins, install_standins

    original_load = LoadPluginsMixin._load_plugins

    def load_only(self, *a, **kw):
        kw["whitelist"] = [f"middlewared.plugins.{name}" for name in args.plugin]
        original_load(self, *a, **kw)
        install_standins(self, args)
        if args.network:
            install_network_standins(self)

    LoadPluginsMixin._load_plugins = load_only

    serve_tcp(mw_main, args)
    sys.argv = ["middlewared", "--disable-loop-monitor", "--debug-level", "INFO"]
    mw_main.main()


if __name__ == "__main__":
    main()
