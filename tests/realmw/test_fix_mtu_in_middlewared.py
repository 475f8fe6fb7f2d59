"""The MTU fix through TrueNAS's own network code (issue 35's must-show): real middlewared 25.10.6 on the lab's
nas (its network namespace) with TrueNAS's datastore, network and interface plugins and tengig installed by its
installer. The NAS's end of desk's cable is at MTU 9000 in TrueNAS's database and kernel (set as its admin would,
through interface.update, commit and checkin), desk's end at 1500. A run of system local with desk joined names
the mismatch; `midclt call -j tengig.fix.apply` makes the fix through interface.update + interface.commit
(rollback armed) + a don't-fragment ping to desk at the path's MTU + interface.checkin, measures SMB again with
desk joining again, and records predicted against measured.

First with desk's end down after the run: the probe gets no answer, there is no checkin, and TrueNAS's rollback
puts 9000 back in its kernel and its database; the job says so. Then with desk up: the change is made, the
don't-fragment ping passes, interface.query and the kernel agree on what the fix decided.

No throughput bound: the test checks that the fix's own judgements (kept or put back, predicted against
measured within +-15%) are the ones its recorded figures give."""
from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest

from tengig.fix.gain import judge_gain, keep
from tengig.fix.record import PREDICTION_TOLERANCE_PERCENT
from tengig.lab import Lab, build_spec

from ..bench.joined_harness import join
from .conftest import TEST_API_KEY, installer_for
from .harness import MiddlewaredSystem, middlewared_build
from .test_join_through_middlewared import _run_through_midclt
from .test_network_in_middlewared import _call

pytestmark = [pytest.mark.lab, pytest.mark.realmw, pytest.mark.timeout(1800)]
JOB_TIMEOUT_S = 900
VERSION = "25.10.6"
PORTS = ("eth-desk", "eth-lab")
JUMBO, PATH_MTU = 9000, 1500
CHECKIN_S = 10  # the unreachable case's rollback timer (TrueNAS's default is 60): the probe waits most of it
RUN = {"system": "local", "kind": "all", "join": 1, "share": "share", "repeats": 3, "working_set": 128 * 2**20,
       "net_seconds": 1}


@pytest.fixture(scope="module")
def lab():
    """The lab with desk on a 1 Gb/s cable (its own: TrueNAS's network code changes nas's ports)."""
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=1g", "lab-nas=100m", "desk-lab=1g"]))
    yield lab
    lab.down()


def _kernel(lab) -> dict[str, dict]:
    """nas's ports as its kernel holds them: MTU and IPv4 addresses."""
    done = subprocess.run(["ip", "-n", lab.netns("nas"), "-j", "addr", "show"], capture_output=True, text=True,
                          check=True, timeout=30)
    return {i["ifname"]: {"mtu": i["mtu"], "inet": [(a["local"], a["prefixlen"]) for a in i["addr_info"]
                                                    if a["family"] == "inet"]}
            for i in json.loads(done.stdout) if i["ifname"] in PORTS}


def _pool_mounts(lab) -> list[str]:
    """The lab's ZFS mounts directly under its mount directory (each pool's root)."""
    root = str(lab.paths.mnt)
    found = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()
             if line.split()[2] == "fuse.zfs" and line.split()[1].startswith(root + "/")]
    return [m for m in found if Path(m).parent == lab.paths.mnt]


def _mtus(lab, nas) -> tuple[int, int]:
    """eth-desk's MTU: (nas's kernel, TrueNAS's database)."""
    saved = next(i for i in _call(nas, "interface.query") if i["name"] == "eth-desk")
    return _kernel(lab)["eth-desk"]["mtu"], saved["mtu"]


@pytest.fixture(scope="module")
def nas(lab, tmp_path_factory):
    """nas as a TrueNAS 25.10 whose admin configured both ports (their lab addresses) and put eth-desk at 9000.
    Its middlewared runs in a mount namespace of its own (the host's slave, harness.py); this machine's mounts are
    private, so the lab's pool mounts are made shared first: the scratch datasets zfs-fuse mounts during a run
    (where the lab's smbd serves them) then reach middlewared's tengig too."""
    for pool_root in _pool_mounts(lab):
        subprocess.run(["mount", "--make-rshared", pool_root], check=True, timeout=30)
    system = MiddlewaredSystem(middlewared_build(VERSION), tmp_path_factory.mktemp("truenas-fix"), api_key=TEST_API_KEY,
                               netns=lab.netns("nas"), network=True)
    system.start()
    try:
        assert system.wait_serving(), system.log()[-3000:]
        installer_for(system).install()
        for port, now in _kernel(lab).items():
            data = {"ipv4_dhcp": False, "aliases": [{"type": "INET", "address": a, "netmask": n} for a, n in now["inet"]]}
            if port == "eth-desk":
                data["mtu"] = JUMBO
            _call(system, "interface.update", port, json.dumps(data))
        _call(system, "interface.commit", json.dumps({"rollback": True, "checkin_timeout": 60}))
        _call(system, "interface.checkin")
        assert _mtus(lab, system) == (JUMBO, JUMBO)
        yield system
    finally:
        system.stop()


def _midclt_job(nas, method: str, *params: dict, timeout: float = 300) -> tuple[int, list[str]]:
    """`midclt call -j -jp description METHOD PARAMS` at the NAS, to its end: its exit code and its progress lines
    and error (stderr, line by line)."""
    done = subprocess.run([str(nas.build.midclt), "-u", nas.socket_uri, "call", "-j", "-jp", "description", method,
                           *map(json.dumps, params)], capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stderr.splitlines()


def _joined_run(lab, nas, method: str, *params: dict) -> tuple[dict, list[str]]:
    """A job that desk joins (over its cable, with the token its progress shows): its result and progress."""
    run, steps, token, watcher = _run_through_midclt(nas, *params, method=method)
    url = f"ws://{lab.plan().address_of('nas', 'desk')}:{nas.port}"
    desk = join(lab, "desk", url, token)
    stdout: list[str] = []
    reader = threading.Thread(target=lambda: stdout.append(run.stdout.read()), daemon=True)
    reader.start()
    try:
        run.wait(timeout=JOB_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        run.kill()
        desk.kill()
        pytest.fail(f"{method} did not end in {JOB_TIMEOUT_S} s: {_why(lab, nas, steps)}")
    reader.join(30)
    watcher.join(30)
    desk.wait(60)
    assert run.returncode == 0, _why(lab, nas, steps)
    return json.loads("".join(stdout)), steps


def _why(lab, nas, steps: list[str]) -> str:
    """What a failed job showed: its steps, desk's log, the pool's mounts as middlewared and this machine see
    them, and middlewared's log."""
    log = lab.paths.logs / "test-join-desk.log"
    pid = nas.pid()
    mounts = {where: "".join(line for line in Path(path).read_text().splitlines(keepends=True) if "tgtank" in line)
              for where, path in (("middlewared", f"/proc/{pid}/mounts"), ("here", "/proc/self/mounts"))
              if Path(path).exists()}
    return ("\n".join(s for s in steps if not s.startswith((" ", "Traceback")))[-4000:] +
            f"\ndesk:\n{log.read_text()[-3000:] if log.exists() else '(no log)'}\nmounts: {mounts}\n{nas.log()[-2000:]}")


def _copies(run: dict, direction: str) -> list[float]:
    desk = next(c for c in run["results"]["clients"] if c["client"] == "desk")
    return desk["smb"][direction]["bytes_per_s"]["values"]


@pytest.fixture(scope="module")
def mismatched_run(lab, nas) -> dict:
    result, _ = _joined_run(lab, nas, "tengig.bench.run", RUN)
    desk = result["report"]["clients"][0]
    assert (desk["nas_port"]["ifname"], desk["nas_port"]["mtu"], desk["joined"]["mtu"]) == ("eth-desk", JUMBO, PATH_MTU)
    return result


def test_the_plan_names_truenas_calls_for_the_nas_port(nas, mismatched_run):
    advice = {a["rule"] for a in mismatched_run["report"]["clients"][0]["verdict"]["advice"]}
    assert "mtu-mismatch" in advice, advice
    plan = _call(nas, "tengig.fix.plan", str(mismatched_run["run_id"]))
    [fix] = [f for f in plan["fixes"] if f["name"] == "mtu"]
    assert fix["setting"] == {"platform": "truenas", "kind": "interface", "object": "eth-desk", "key": "mtu"}
    assert (fix["from_value"], fix["to_value"]) == (str(JUMBO), str(PATH_MTU))
    assert "interface.update eth-desk" in fix["call"] and "interface.checkin" in fix["call"]
    assert fix["predictions"], fix


def test_desk_unreachable_after_the_change_no_checkin_and_truenas_rolls_back(lab, nas, mismatched_run):
    """desk joins the re-measure (nothing changes before), then answers no ping from the NAS (its INPUT chain
    drops them): the MTU is committed with rollback armed, the don't-fragment probe gets no answer, tengig never
    checks in, and TrueNAS's rollback puts 9000 back in kernel and database; no copy was measured again."""
    request = {"run_id": mismatched_run["run_id"], "fix": "mtu", "confirm": True, "checkin_timeout": CHECKIN_S}
    rule = ["INPUT", "-p", "icmp", "--icmp-type", "echo-request", "-j", "DROP"]
    lab.run("desk", ["iptables", "-A", *rule], timeout=30)
    try:
        run, steps, token, watcher = _run_through_midclt(nas, request, method="tengig.fix.apply")
        desk = join(lab, "desk", f"ws://{lab.plan().address_of('nas', 'desk')}:{nas.port}", token)
        try:
            run.wait(timeout=JOB_TIMEOUT_S)
        finally:
            if run.poll() is None:
                run.kill()
            watcher.join(30)
            desk.wait(60)
    finally:
        lab.run("desk", ["iptables", "-D", *rule], timeout=30)
    err = "\n".join(steps)
    assert run.returncode != 0
    assert any("interface.update" in s and "9000 -> 1500" in s for s in steps), steps
    assert any(f"{CHECKIN_S} s rollback timer" in s for s in steps), steps  # the request's, not the default 60
    assert "eth-desk -> desk" in err and "don't-fragment, 1500 bytes" in err and "did not answer" in err, err[-2000:]
    assert "previous network configuration is back" in err, err[-2000:]
    assert _mtus(lab, nas) == (JUMBO, JUMBO)
    assert _call(nas, "interface.has_pending_changes") is False and _call(nas, "interface.checkin_waiting") is None
    remeasures = _call(nas, "tengig.results.query", json.dumps({"kind": "smb"}))
    assert all(r["status"] != "success" for r in remeasures), "nothing was measured again"


def test_the_mtu_fix_through_truenas_is_probed_measured_and_judged(lab, nas, mismatched_run):
    run_id = mismatched_run["run_id"]
    out, steps = _joined_run(lab, nas, "tengig.fix.apply", {"run_id": run_id, "fix": "mtu", "confirm": True})
    # staged, committed with rollback, probed with a don't-fragment ping to desk, checked in: TrueNAS's steps
    assert any(s.startswith("Committing with a 60 s rollback timer") for s in steps), steps
    assert any("checking in" in s for s in steps), steps
    assert out["fix"]["setting"]["platform"] == "truenas" and out["previous"] == str(JUMBO)
    before, after = (_call(nas, "tengig.results.get", str(i)) for i in (run_id, out["after_run_id"]))
    assert after["kind"] == "smb" and after["status"] == "success"
    assert next(c for c in after["results"]["clients"] if c["client"] == "desk")["nas_port"]["mtu"] == PATH_MTU
    judged = [judge_gain(d, _copies(before, d), _copies(after, d)) for d in ("read", "write")]
    kept, _ = keep(judged, "mtu")
    assert out["state"] == ("kept" if kept else "rolled-back"), out["why"]
    # kernel and database agree on what the fix decided
    assert _mtus(lab, nas) == ((PATH_MTU, PATH_MTU) if kept else (JUMBO, JUMBO)), out["why"]
    assert _call(nas, "interface.has_pending_changes") is False and _call(nas, "interface.checkin_waiting") is None
    # predicted against measured, as the fix recorded it, is what its figures give
    checks = {c["direction"]: c for c in out["predictions"]}
    assert set(checks) == {p["direction"] for p in out["fix"]["predictions"]} and checks
    for p in out["fix"]["predictions"]:
        check, gain = checks[p["direction"]], next(g for g in judged if g.direction == p["direction"])
        assert check["predicted_bytes_per_s"] == p["predicted_bytes_per_s"]
        assert check["measured_after_bytes_per_s"] == pytest.approx(gain.after_median)
        off = (gain.after_median - p["predicted_bytes_per_s"]) / p["predicted_bytes_per_s"]
        assert check["within"] == (abs(100 * off) <= PREDICTION_TOLERANCE_PERCENT), check
        print(f"{p['direction']}: before {gain.before_median / 1e6:.1f} MB/s, after {gain.after_median / 1e6:.1f} MB/s "
              f"({', '.join(f'{v / 1e6:.1f}' for v in gain.after)}), predicted {p['predicted_bytes_per_s'] / 1e6:.1f} MB/s ({check['off_percent']:+.1f}%); {gain.verdict}")
    print(f"{out['state']}: {out['why']}")
    if kept:
        # the don't-fragment ping of the path's MTU passes from the NAS now; undo puts 9000 back the same way
        ping = lab.run("nas", ["ping", "-c", "1", "-W", "2", "-M", "do", "-s", str(PATH_MTU - 28),
                               lab.plan().address_of("desk", "nas")], timeout=10, check=False)
        assert ping.returncode == 0, ping.stdout + ping.stderr
        said = _call(nas, "tengig.fix.undo", str(run_id))
        assert said == [f"fix {out['fix_id']} (mtu): mtu of eth-desk {PATH_MTU} -> {JUMBO}"], said
        assert _mtus(lab, nas) == (JUMBO, JUMBO)
