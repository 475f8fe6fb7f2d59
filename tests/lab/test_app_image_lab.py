"""The SCALE app's image itself (`make app-image`, cached outside the checkout by its inputs) on the lab's
nas: one container, run with podman as TrueNAS runs the compose file `tengig app compose` writes (its
environment, its host's PID namespace, its volumes: the results directory, the pools' directory with
propagation rslave, middlewared's socket directory, the key as a read-only secret file), in nas's
network namespace (the app's host network). The TrueNAS behind it is tengig's stand-in, serving
middlewared's unix socket with its datasets on the lab's zfs-fuse pool (real middlewared cannot make
datasets without libzfs); every call it takes and answers is checked against real middlewared's API
models of 25.10.6 and 26.0.0-BETA.3 (tests/realmw/api_models.py). desk joins the app's run over its
cable: pool, network and SMB measured, the verdict given, nothing left on the pool.

Where the compose file names a path of a real TrueNAS, the test's own is mounted instead: the lab's
pool directory for /mnt, a scratch directory for /var/run/middleware. The ARC counters of zfs-fuse
are in /zfs-kstat (OpenZFS's are in the kernel's /proc/spl/kstat, which a container sees as it is)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tengig.app_compose import MIDDLEWARE_RUN_DIR, AppSettings, render_compose
from tengig.backends.linux.arcstats import ZFS_FUSE_KSTAT
from tengig.client.client import Client
from tengig.lab.nas_tengig import join_url, start_join
from tengig.lab.plan import POOL_NAME, SHARE_NAME, netns_name
from tengig.standin.truenas import SeedPool, StandinThread, example_seed
from tengig.standin.truenas.zfs_pool import ZfsPoolStorage
from tengig.units import MiB

from ..bench.joined_harness import start_run
from ..realmw.api_models import check_calls
from ..realmw.harness import NEXT_VERSION, MiddlewaredSystem, middlewared_build

# A cold image build (about 2 minutes here, scripts/build_app_image.sh) happens in the first test's setup.
pytestmark = [pytest.mark.lab, pytest.mark.timeout(1200)]
CHECKOUT = Path(__file__).resolve().parents[2]
PORT = 8612
NAME = f"tengig-app-lab-{os.getpid()}"
PODMAN = ["podman", "--runtime", "runc"]   # as scripts/check_app_image.sh: crun refuses this machine's cgroups
LIMITS = ["--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"]
KSTAT_DIR = str(Path(ZFS_FUSE_KSTAT).parents[1])   # /zfs-kstat
# The stand-in is built on tengig's own host: auth.login_ex is that host's (its user_info is tengig's, not a
# TrueNAS user's), so only the request of a login is TrueNAS's to judge.
HOST_ANSWERS = {"auth.login_ex", "core.set_options"}


def _run(*argv: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-2000:]}")
    return done


@pytest.fixture(scope="module")
def app_image() -> str:
    """The image `make app-image` builds, by its input key (built only when no image has that key)."""
    done = _run("bash", str(CHECKOUT / "scripts" / "build_app_image.sh"), timeout=3600)
    key = re.search(r"^key: ([0-9a-f]+)$", done.stdout, re.M)
    assert key, done.stdout[-2000:]
    return f"tengig-app:{key.group(1)}"


def _compose(python: Path, settings: AppSettings) -> dict:
    """The app's compose file, read by middlewared's own PyYAML (as TrueNAS reads it)."""
    done = subprocess.run([str(python), "-c", "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))"],
                          input=render_compose(settings), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["services"]["tengig"]


def podman_run_argv(service: dict, image: str, secret: Path, replaced: dict[str, str], netns: str,
                    extra_volumes: list[str]) -> list[str]:
    """`podman run` as TrueNAS's docker compose runs ``service``: its environment, PID namespace, bind
    volumes (a source in ``replaced`` mounted from the test's own path) and secret; its host network is
    nas's network namespace."""
    assert service["network_mode"] == "host" and service["pid"] == "host"
    argv = ["run", "-d", "--name", NAME, "--network", f"ns:/run/netns/{netns}", "--pid", "host", *LIMITS]
    for key, value in service["environment"].items():
        argv += ["-e", f"{key}={value}"]
    for volume in service["volumes"]:
        source = replaced.get(volume["source"], volume["source"])
        propagation = (volume.get("bind") or {}).get("propagation")
        argv += ["-v", f"{source}:{volume['target']}" + (f":{propagation}" if propagation else "")]
    argv += ["-v", f"{secret}:/run/secrets/{service['secrets'][0]}:ro", *extra_volumes]
    return [*argv, image, *service["command"]]


class App:
    def __init__(self, lab, tmp: Path, image: str):
        self.lab, self.tmp, self.image = lab, tmp, image
        self.calls: list[dict] = []
        self.data = tmp / "data"
        self.control = tmp / "control"    # the container's /run/tengig: its unix socket, for the test to drive it
        self.middleware = tmp / "middleware"
        self.key_file = tmp / "truenas-api-key"
        for path in (self.data, self.control, self.middleware):
            path.mkdir()
        self.pools_dir = str(lab.paths.mnt)

    def podman(self, *args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
        return _run(*PODMAN, *args, timeout=timeout, check=check)

    def exec(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        return self.podman("exec", NAME, *argv, timeout=180, check=check)

    def zfs_scratch(self) -> list[str]:
        out = _run("zfs", "list", "-H", "-o", "name", "-r", POOL_NAME).stdout.split()
        return [name for name in out if "tengig-scratch" in name]


@pytest.fixture(scope="module")
def app(shaped_lab, app_image, tmp_path_factory):
    """The app's one container on nas, its TrueNAS the stand-in on middlewared's socket path."""
    tmp = tmp_path_factory.mktemp("app-image")
    app = App(shaped_lab, tmp, app_image)
    python = MiddlewaredSystem(middlewared_build("25.10.6"), tmp / "truenas-25.10").python
    app.interpreters = {"25.10.6": python}
    settings = AppSettings(api_key_file=str(app.key_file), data_dir=str(app.data), port=PORT, image=app_image,
                           pools_dir=app.pools_dir)
    service = _compose(python, settings)
    seed = example_seed("25.10").model_copy(update={"pools": [SeedPool(name=POOL_NAME)]})
    # The lab's pool directory as TrueNAS's /mnt is: a shared mount, so the datasets mounted later reach the app.
    _run("mount", "--rbind", app.pools_dir, app.pools_dir)
    _run("mount", "--make-rshared", app.pools_dir)
    try:
        with StandinThread(seed, host=None, unix_socket=app.middleware / "middlewared.sock", storage=ZfsPoolStorage,
                           recorder=app.calls) as nas:
            app.key_file.write_text(nas.api_key + "\n")
            app.key_file.chmod(0o600)
            share_path = _run("zfs", "get", "-H", "-o", "value", "mountpoint", f"{POOL_NAME}/smb").stdout.strip()
            with Client(f"ws+unix://{app.middleware / 'middlewared.sock'}") as admin:
                admin.call("sharing.smb.create", {"name": SHARE_NAME, "path": share_path, "purpose": "DEFAULT_SHARE"})
            app.calls.clear()   # what the test set up is not the app's doing
            argv = podman_run_argv(service, app_image, app.key_file, {MIDDLEWARE_RUN_DIR: str(app.middleware)},
                                   netns_name(shaped_lab.require_up().spec.nas),
                                   ["-v", f"{app.control}:/run/tengig", "-v", f"{KSTAT_DIR}:{KSTAT_DIR}:ro",
                                    "-e", "TENGIG_NAS_NAME=nas"])
            app.podman(*argv)
            try:
                _wait_serving(app)
                yield app
            finally:
                app.logs = app.podman("logs", NAME, check=False).stdout + app.podman("logs", NAME, check=False).stderr
                app.podman("rm", "-f", "-t", "5", NAME, check=False)
    finally:
        _run("umount", "-R", app.pools_dir, check=False)


def _wait_serving(app: App) -> None:
    for _ in range(240):
        done = app.podman("logs", NAME, check=False)
        if "tengig serving on" in done.stdout + done.stderr and (app.control / "tengig.sock").exists():
            return
        running = app.podman("inspect", "--format", "{{.State.Running}}", NAME, check=False).stdout.strip()
        assert running == "true", done.stdout + done.stderr
        subprocess.run(["sleep", "0.5"], check=False)
    raise AssertionError(f"the app did not start: {app.podman('logs', NAME, check=False).stderr[-2000:]}")


def test_bench_systems_in_the_app_finds_the_pool_through_the_api(app):
    said = app.exec("tengig", "bench", "systems").stdout
    local = next(line for line in said.splitlines() if line.lstrip().startswith("local"))
    assert POOL_NAME in local and "pool.query" in local and "TENGIG_APP" in local, said
    assert "no ZFS pool" not in local


def test_desk_joins_the_app_and_pool_network_and_smb_are_measured(app):
    with Client(f"ws+unix://{app.control / 'tengig.sock'}") as api:
        thread, outcome = start_run(api, {"system": "local", "pool": POOL_NAME, "kind": "all", "join": 1,
                                          "share": SHARE_NAME, "repeats": 1, "net_seconds": 1,
                                          "working_set": 128 * MiB})
        assert "error" not in outcome, outcome.get("error")
        desk = start_join(app.lab, "desk", join_url(app.lab, "desk", PORT), outcome["token"],
                          log_name="test-app-join-desk.log")
        thread.join(900)
        assert desk.wait(60) == 0, (app.lab.paths.logs / "test-app-join-desk.log").read_text()[-3000:]
    assert "error" not in outcome, outcome["error"]
    report, verdict = outcome["result"]["report"], outcome["result"]["verdict"]
    app.report = report
    assert report["system"] == "local" and report["pool"]["phases"], report
    assert all(p["arc_hit_ratio"] is not None for p in report["pool"]["phases"] if p["direction"] == "read")
    client = report["clients"][0]
    assert client["joined"] and client["network"] and client["smb"]["read"]["bytes_per_s"]["median"] > 0
    assert client["link"]["line_rate_bps"] == 1_000_000_000
    # the host's PID namespace shows the NAS's smbd; what the app cannot see is named (no smbstatus in the image)
    assert all(client["smb"][d]["smbd_cpu_percent"] is not None for d in ("read", "write")), client["smb"]
    assert any(u.startswith("the SMB session") for u in client["smb"]["unknowns"]), client["smb"]["unknowns"]
    app.unknowns = client["smb"]["unknowns"]
    assert verdict["summary"] and verdict["directions"]
    # the scratch datasets were made through TrueNAS's API, and removed through it
    made = [c["params"][0]["name"] for c in app.calls if c["method"] == "pool.dataset.create" and "result" in c]
    deleted = [c["params"][0] for c in app.calls if c["method"] == "pool.dataset.delete" and "result" in c]
    assert made and sorted(made) == sorted(deleted), (made, deleted)
    assert any(c["method"] == "pool.query" for c in app.calls)
    assert any(c["method"] == "sharing.smb.query" for c in app.calls)


def test_nothing_is_left_behind(app):
    assert app.zfs_scratch() == []
    left = [p.name for p in Path(app.pools_dir, POOL_NAME, "smb").iterdir()]
    assert not [name for name in left if name.startswith("tengig")], left


@pytest.mark.parametrize("version", ["25.10.6", NEXT_VERSION])
def test_every_call_the_standin_took_is_as_truenas_models_it(app, version, tmp_path):
    assert app.calls, "the app called nothing"
    if version not in app.interpreters:   # 26 needs Python 3.13: without it this case alone skips
        app.interpreters[version] = MiddlewaredSystem(middlewared_build(version), tmp_path / "truenas").python
    calls = [{k: v for k, v in c.items() if k != "result"} if c["method"] in HOST_ANSWERS else c for c in app.calls]
    verdict = check_calls(app.interpreters[version], calls, full_answers=version == "25.10.6")
    assert verdict["problems"] == [], verdict["problems"]
    # zfs.dataset.update (primarycache) is private in 25.10 (no model) and gone in 26.0: there tengig's
    # primarycache falls back to files 2 x the ARC, as the report says (bench/cache_policy.py)
    assert set(verdict["unmodelled"]) <= {"zfs.dataset.update"}, verdict["unmodelled"]
    assert {"pool.query", "pool.dataset.create", "pool.dataset.delete", "sharing.smb.query"} <= set(verdict["checked"])


def test_a_key_truenas_refuses_is_named_with_its_file(app):
    app.key_file.write_text("1-" + "x" * 64 + "\n")   # the secret is a bind mount: the app reads it anew
    said = app.exec("tengig", "bench", "systems").stdout
    assert "refused the API key in /run/secrets/truenas_api_key" in said, said
    assert f"(on the NAS: {app.key_file})" in said, said
    refused = app.exec("tengig", "bench", "net", "--system", "local", "--join", "1", check=False)
    assert refused.returncode != 0 and str(app.key_file) in refused.stderr, refused.stderr[-2000:]
