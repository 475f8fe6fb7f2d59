"""Record the panel's lab fixtures (ui/src/fixtures/*-lab.json) from real lab runs, through the API.

    make ui-fixtures        # = flock /run/tengig/lab.lock .venv/bin/python scripts/record_ui_fixtures.py
    flock /run/tengig/lab.lock .venv/bin/python scripts/record_ui_fixtures.py --only joined   # one of them

Needs root and the lab's tools (`make setup`); it takes the machine's one lab, so run it under the lab
lock as above (make does). Any lab that is up is taken down first, and the lab is down when it ends,
also when it fails. It calls the methods in-process (tengig.api.host.Middleware with tengig's public
services, the same code `tengig serve` runs), with the requests the panel sends, and writes what they
answered, unedited:

- mesh: `tengig lab up --bare` with desk-nas at 1g (cables, no addresses, as three machines freshly
  cabled), then the mesh view's "The lab's three hosts" request (meshDraft.ts LAB_DRAFT):
  tengig.mesh.plan -> mesh-plan-lab.json; tengig.mesh.apply {system: lab} on every host;
  tengig.mesh.verify {system: lab, seconds: 3, min_percent: 90} -> mesh-verify-lab.json; then desk's
  eth-nas MTU set to 1400 (an MTU mismatch on the 1 Gb/s cable, as test_mesh_lab.py makes one) and
  verify again -> mesh-verify-lab-mtu.json (a real failure: the DF pings across C02 do not pass).
- LAGG: `tengig lab up` with every cable at 1g; tengig.nic.query {system: lab, host: nas} ->
  lagg-nics-lab.json; the LAGG view's request for it (linux, lacp-switch, 4 clients, clear member
  config) through tengig.lagg.plan -> lagg-plan-lab.json and tengig.lagg.verify {client: desk,
  seconds: 2, omit: 1} -> lagg-verify-lab.json, with the job's progress snapshots as the panel sees
  them (percent, description, extra) -> lagg-verify-lab-progress.json.
- joined (only with `--only joined`; not part of the default): `tengig lab up` with desk-nas and
  lab-nas at 1g; `tengig serve` on nas as system local (tests/bench/joined_harness.py, as a person
  starts it on the NAS); tengig.bench.run {system: local, kind: smb, join: 2, share: share, repeats: 1};
  desk and lab run `tengig client join` with the token the job shows; the job's result's report (the
  BenchReport: each client's own verdict, smb_concurrent and aggregate_verdict) ->
  run-joined-desk-lab.json. Until then that file is hand-made (recorded-lab.json says so).
- fix (only with `--only fix`; not part of the default): `tengig lab up` with desk-nas at 10g, SMB
  encryption required in the lab NAS's smb.conf and smbd held to a quarter of a core
  (tests/fix/test_encryption_fix_lab.py's lab); `tengig serve` on nas as system local; a run desk joins
  (FIX_RUN); tengig.fix.plan -> fix-plan-lab.json; tengig.fix.apply {fix: smb-encryption, confirm: true}
  with desk joining its re-measure: its progress snapshots -> fix-apply-progress-lab.json, its outcome ->
  fix-outcome-lab.json; tengig.fix.query of the run -> fix-records-lab.json; tengig.results.compare of the
  pair -> fix-compare-lab.json; the run's stored entry -> fix-run-lab.json (its raw outputs left out).
- scaling: `tengig lab up --slow-pool 50 --pool-members 2 --slow-members 1` (one slow disk of two);
  tengig.bench.run {system: lab, kind: pool, scaling: only, working_set: 128 MiB}: the job's report (the
  thread sweep and each member's load) -> run-pool-scaling-lab.json.

recorded-lab.json says when and with what (lab spec, requests, options) each file was recorded; the
unit tests check that the recorded requests are the ones the panel builds. Re-record after a change
to what these methods answer; the numbers move a little from run to run (the tests allow for that).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

from tengig.api import Registry
from tengig.api.host import Middleware
from tengig.api.jobs import JobState
from tengig.lab import Lab, build_spec
from tengig.lab.mesh_adapter import lab_network

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.bench.joined_harness: `tengig serve` on nas and `tengig client join`
FIXTURES = ROOT / "ui" / "src" / "fixtures"
JOB_TIMEOUT = 300

# The mesh view's LAB_DRAFT (ui/src/features/mesh/meshDraft.ts) as draftToRequest sends it.
MESH_REQUEST = {
    "hosts": [
        {"name": "nas", "kind": "truenas-scale", "ports": [
            {"name": "eth-desk", "speed_bps": "1g", "peer": "desk"}, {"name": "eth-lab", "speed_bps": "10g", "peer": "lab"}]},
        {"name": "desk", "kind": "linux", "ports": [
            {"name": "eth-nas", "speed_bps": "1g", "peer": "nas"}, {"name": "eth-lab", "speed_bps": "10g", "peer": "lab"}]},
        {"name": "lab", "kind": "linux", "ports": [
            {"name": "eth-nas", "speed_bps": "10g", "peer": "nas"}, {"name": "eth-desk", "speed_bps": "10g", "peer": "desk"}]},
    ],
    "existing_networks": ["192.168.1.0/24"],
    "options": {"prefix": 24, "mtu": 1500, "name_suffix": ""},
}
MESH_LAB = ["desk-nas=1g"]
MESH_VERIFY_OPTIONS = {"system": "lab", "hosts": ["nas", "desk", "lab"], "measure_throughput": True, "seconds": 3,
                       "min_percent": 90}

LAGG_LAB = ["desk-nas=1g", "lab-nas=1g", "desk-lab=1g"]
# The LAGG view's form for it (laggForm.ts draftToRequest): nothing pinned, clear member config.
LAGG_FORM = {"platform": "linux", "topology": "lacp-switch", "goal": "aggregate-many-clients", "client_count": 4,
             "options": {"mtu": 1500, "members": None, "confirm_session_interface": False, "clear_member_config": True}}
LAGG_VERIFY_OPTIONS = {"client": "desk", "seconds": 2, "omit": 1}

JOINED_LAB = ["desk-nas=1g", "lab-nas=1g"]
# A run on the NAS itself that desk and lab join, each over its own 1 Gb/s cable (test_multi_client_lab.py).
JOINED_REQUEST = {"system": "local", "kind": "smb", "join": 2, "share": "share", "repeats": 1}
JOINED_CLIENTS = ("desk", "lab")
JOINED_TIMEOUT = 900


class Api:
    """tengig's methods in-process; job events kept per job id, as core.get_jobs publishes them."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.events: list[tuple[Any, ...]] = []
        self.middleware = Middleware(Registry.default(), lambda *event: self.events.append(event))

    def call(self, name: str, *params: Any) -> Any:
        return self.loop.run_until_complete(self.middleware.call(name, *params))

    def job(self, name: str, *params: Any) -> Any:
        async def go():
            job = await self.middleware.call(name, *params)
            return await self.middleware.wait_job(job)
        job = self.loop.run_until_complete(asyncio.wait_for(go(), JOB_TIMEOUT))
        if job.state != JobState.SUCCESS:
            raise SystemExit(f"{name} ended {job.state}: {job.error}")
        return job

    def progress_of(self, job_id: int) -> list[dict[str, Any]]:
        """Every distinct progress snapshot of one job, in order (what the panel's watcher receives)."""
        out: list[dict[str, Any]] = []
        for _kind, event_id, job in self.events:  # (ADDED|CHANGED, job id, the job encoded)
            if event_id != job_id:
                continue
            snap = {"state": job.get("state"), **(job.get("progress") or {})}
            if not out or out[-1] != snap:
                out.append(snap)
        return out

    def close(self) -> None:
        self.loop.close()


def write(name: str, doc: Any) -> None:
    path = FIXTURES / name
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path.relative_to(ROOT)}")


def lab_up(links: list[str], *, bare: bool) -> Lab:
    lab = Lab()
    lab.down()
    print(f"lab up {' '.join(links)}{' --bare' if bare else ''}", flush=True)
    lab.up(build_spec(links, bare=bare))
    return lab


def record_mesh(api: Api) -> dict[str, Any]:
    lab = lab_up(MESH_LAB, bare=True)
    plan = api.call("tengig.mesh.plan", MESH_REQUEST)
    write("mesh-plan-lab.json", plan)
    applied = api.job("tengig.mesh.apply", MESH_REQUEST, {"system": "lab", "hosts": MESH_VERIFY_OPTIONS["hosts"]}).result
    print("applied: " + "; ".join(f"{r['host']}: {len(r['changes'])} change(s)" for r in applied))
    verified = api.job("tengig.mesh.verify", MESH_REQUEST, MESH_VERIFY_OPTIONS).result
    write("mesh-verify-lab.json", verified)
    print(f"verify ok={verified['ok']}, problems: {verified['problems']}")
    desk = lab_network(lab, "desk")
    desk.set_mtu("eth-nas", 1400)
    try:
        mismatch = api.job("tengig.mesh.verify", MESH_REQUEST, MESH_VERIFY_OPTIONS).result
    finally:
        desk.set_mtu("eth-nas", 1500)
    write("mesh-verify-lab-mtu.json", mismatch)
    print(f"verify with desk eth-nas at MTU 1400: ok={mismatch['ok']}, {len(mismatch['problems'])} problem(s)")
    return {
        "lab": {"links": MESH_LAB, "bare": True},
        "request": MESH_REQUEST,
        "verify_options": MESH_VERIFY_OPTIONS,
        "files": {"mesh-plan-lab.json": "tengig.mesh.plan(request)",
                  "mesh-verify-lab.json": "tengig.mesh.verify(request, verify_options) after tengig.mesh.apply",
                  "mesh-verify-lab-mtu.json": "the same verify with desk's eth-nas at MTU 1400 (the other end at 1500)"},
    }


def record_lagg(api: Api) -> dict[str, Any]:
    lab_up(LAGG_LAB, bare=False)
    nics = api.call("tengig.nic.query", {"system": "lab", "host": "nas"})
    write("lagg-nics-lab.json", nics)
    request = {"nics": nics, **LAGG_FORM}
    write("lagg-plan-lab.json", api.call("tengig.lagg.plan", request))
    job = api.job("tengig.lagg.verify", request, LAGG_VERIFY_OPTIONS)
    write("lagg-verify-lab.json", job.result)
    write("lagg-verify-lab-progress.json", api.progress_of(job.id))
    print(job.result["verdict"]["summary"])
    return {
        "lab": {"links": LAGG_LAB, "bare": False},
        "request": {"nics": "lagg-nics-lab.json", **LAGG_FORM},
        "verify_options": LAGG_VERIFY_OPTIONS,
        "files": {"lagg-nics-lab.json": "tengig.nic.query({system: lab, host: nas})",
                  "lagg-plan-lab.json": "tengig.lagg.plan(request)",
                  "lagg-verify-lab.json": "tengig.lagg.verify(request, verify_options)",
                  "lagg-verify-lab-progress.json": "that job's progress snapshots (core.get_jobs events)"},
    }


def record_joined(_api: Api) -> dict[str, Any]:
    """desk and lab join a run on the NAS (system local) through `tengig serve` on nas; the job's report."""
    import tempfile

    from tests.bench.joined_harness import join, nas_api, start_run

    lab = lab_up(JOINED_LAB, bare=False)
    tmp = Path(tempfile.mkdtemp(prefix="tg-ui-joined-"))
    with nas_api(lab, tmp) as (client, urls):
        thread, outcome = start_run(client, dict(JOINED_REQUEST))
        if "error" in outcome:
            raise SystemExit(f"tengig.bench.run failed before anyone joined: {outcome['error']}")
        procs = {host: join(lab, host, urls[host], outcome["token"]) for host in JOINED_CLIENTS}
        thread.join(JOINED_TIMEOUT)
        if thread.is_alive():
            raise SystemExit(f"tengig.bench.run did not end within {JOINED_TIMEOUT} s")
        for host, proc in procs.items():
            if proc.wait(60) != 0:
                raise SystemExit(f"tengig client join on {host} failed: "
                                 f"{(lab.paths.logs / f'test-join-{host}.log').read_text()[-2000:]}")
        if "error" in outcome:
            raise SystemExit(f"tengig.bench.run failed: {outcome['error']}")
        result = outcome["result"]
        stored = client.call("tengig.results.get", result["run_id"])
    report = result["report"]
    if stored["results"] != report:
        raise SystemExit("the stored run's results differ from the job's report")
    names = [c["client"] for c in report["clients"]]
    if sorted(names) != sorted(JOINED_CLIENTS) or not report.get("aggregate_verdict"):
        raise SystemExit(f"expected desk and lab with an aggregate verdict, got {names}, "
                         f"aggregate {'yes' if report.get('aggregate_verdict') else 'none'}")
    write("run-joined-desk-lab.json", report)
    print(report["aggregate_verdict"]["summary"])
    return {
        "lab": {"links": JOINED_LAB, "bare": False},
        "request": JOINED_REQUEST,
        "clients": list(JOINED_CLIENTS),
        "files": {"run-joined-desk-lab.json": "the report of tengig.bench.run(request) on `tengig serve` on nas, "
                                              "desk and lab joined (tengig client join)"},
    }


FIX_LAB = ["desk-nas=10g", "lab-nas=100m", "desk-lab=1g"]
# tests/fix/test_encryption_fix_lab.py's run: desk joins over its 10 Gb/s cable, three copies each way.
FIX_RUN = {"system": "local", "kind": "all", "join": 1, "share": "share", "repeats": 3, "working_set": 128 * 2**20}
FIX_APPLY = {"fix": "smb-encryption", "confirm": True}


def record_fix(_api: Api) -> dict[str, Any]:
    """A run that names SMB encryption, its fix applied with desk joining the re-measure, and what the panel
    reads of it afterwards."""
    import tempfile
    import threading

    from tengig.lab.samba import ENCRYPTION, set_global
    from tests.bench.joined_harness import join, nas_api, smbd_cpu_capped, start_run

    lab = lab_up(FIX_LAB, bare=False)
    set_global(lab.runner, lab.paths, ENCRYPTION, "required")
    tmp = Path(tempfile.mkdtemp(prefix="tg-ui-fix-"))
    with smbd_cpu_capped(lab, "tg-smbd-ui-fix", 25000), nas_api(lab, tmp) as (client, urls):
        thread, outcome = start_run(client, dict(FIX_RUN))
        desk = join(lab, "desk", urls["desk"], outcome["token"])
        thread.join(JOINED_TIMEOUT)
        desk.wait(60)
        if "error" in outcome:
            raise SystemExit(f"tengig.bench.run failed: {outcome['error']}")
        run_id = outcome["result"]["run_id"]
        plan = client.call("tengig.fix.plan", run_id)
        if not any(f["name"] == "smb-encryption" for f in plan["fixes"]):
            raise SystemExit(f"run {run_id} gave no smb-encryption fix: {plan}")
        snaps: list[dict[str, Any]] = []
        applied: dict[str, Any] = {}
        token = threading.Event()

        def progress(job):
            snap = {"state": job.get("state"), **(job.get("progress") or {})}
            if not snaps or snaps[-1] != snap:
                snaps.append(snap)
            if ((snap.get("extra") or {}).get("session") or {}).get("token"):
                token.set()

        def body():
            try:
                applied["result"] = client.call("tengig.fix.apply", {"run_id": run_id, **FIX_APPLY}, job=True,
                                                callback=progress, timeout=JOINED_TIMEOUT)
            except Exception as exc:  # said below
                applied["error"] = exc
            token.set()

        apply_thread = threading.Thread(target=body)
        apply_thread.start()
        token.wait(120)
        if "error" in applied:
            raise SystemExit(f"tengig.fix.apply failed: {applied['error']}")
        session = next(s["extra"]["session"] for s in snaps if ((s.get("extra") or {}).get("session")))
        desk = join(lab, "desk", urls["desk"], session["token"])
        apply_thread.join(JOINED_TIMEOUT)
        desk.wait(60)
        if "error" in applied:
            raise SystemExit(f"tengig.fix.apply failed: {applied['error']}")
        result = applied["result"]
        records = client.call("tengig.fix.query", run_id)
        compare = client.call("tengig.results.compare", run_id, result["after_run_id"])
        run = client.call("tengig.results.get", run_id)
    write("fix-plan-lab.json", plan)
    write("fix-apply-progress-lab.json", snaps)
    write("fix-outcome-lab.json", result)
    write("fix-records-lab.json", records)
    write("fix-compare-lab.json", compare)
    write("fix-run-lab.json", {**run, "raw": []})
    print(f"{result['state']}: {result['why']}")
    return {"lab": {"links": FIX_LAB, "bare": False, "smb.conf": {ENCRYPTION: "required"}, "smbd_cpu_quota": "25%"},
            "request": FIX_RUN, "apply": FIX_APPLY,
            "files": {"fix-plan-lab.json": "tengig.fix.plan(run)", "fix-apply-progress-lab.json": "tengig.fix.apply's "
                      "progress snapshots (desk joined with the token in progress.extra.session)",
                      "fix-outcome-lab.json": "tengig.fix.apply's result", "fix-records-lab.json": "tengig.fix.query(run)",
                      "fix-compare-lab.json": "tengig.results.compare(run, after_run_id)",
                      "fix-run-lab.json": "tengig.results.get(run), raw outputs left out"}}


SCALING_SPEC = {"links": ["desk-nas=1g"], "slow_pool_mbps": 50, "pool_members": 2, "slow_members": 1,
                "pool_size": 1024 * 2**20}
SCALING_REQUEST = {"system": "lab", "kind": "pool", "scaling": "only", "working_set": 128 * 2**20}


def record_scaling(api: Api) -> dict[str, Any]:
    """The pool's thread sweep on a pool of two members, one throttled: the job's report."""
    lab = Lab()
    lab.down()
    spec = dict(SCALING_SPEC)
    print(f"lab up {spec}", flush=True)
    lab.up(build_spec(spec.pop("links"), **spec))
    job = api.job("tengig.bench.run", dict(SCALING_REQUEST))
    report = job.result["report"]
    if not (report.get("pool") or {}).get("scaling", {}).get("dragging"):
        raise SystemExit("expected the sweep to name the throttled member, got none")
    write("run-pool-scaling-lab.json", report)
    print(report["pool"]["scaling"]["dragging"])
    return {"lab": SCALING_SPEC, "request": SCALING_REQUEST,
            "files": {"run-pool-scaling-lab.json": "the report of tengig.bench.run(request) on the lab"}}


RECORDERS = {"mesh": record_mesh, "lagg": record_lagg, "joined": record_joined, "scaling": record_scaling,
             "fix": record_fix}
DEFAULT = ["mesh", "lagg", "scaling"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("which", nargs="*", metavar="mesh|lagg|joined|scaling|fix",
                        help="What to record (default: mesh, lagg and scaling).")
    parser.add_argument("--only", action="append", choices=sorted(RECORDERS), default=[],
                        help="Record only this (repeatable), e.g. --only joined.")
    args = parser.parse_args()
    which = list(dict.fromkeys(args.which + args.only)) or DEFAULT
    if set(which) - set(RECORDERS):
        parser.error(f"record {', '.join(RECORDERS)}, not {' '.join(sorted(set(which) - set(RECORDERS)))}")
    if os.geteuid() != 0:
        print("the lab needs root: run `make ui-fixtures` as root", file=sys.stderr)
        return 2
    index_path = FIXTURES / "recorded-lab.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    api = Api()
    try:
        for what in which:
            started = time.time()
            entry = RECORDERS[what](api)
            entry["recorded"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))
            entry["machine"] = {"kernel": platform.release(), "python": platform.python_version()}
            index[what] = entry
    finally:
        api.close()
        print("lab down", flush=True)
        Lab().down()
    index["how"] = "scripts/record_ui_fixtures.py (make ui-fixtures): real lab runs through the API, unedited"
    write("recorded-lab.json", index)
    return 0


if __name__ == "__main__":
    sys.exit(main())
