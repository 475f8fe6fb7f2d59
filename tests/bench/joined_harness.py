"""The lab as three machines for runs that desktops join (issue 17), as system 'lab' runs them
(tengig/lab/nas_tengig.py): `tengig serve` on nas (system local), `tengig client join` on a desktop,
each started on its host as a person would at each machine; here the test drives the run itself.

The NAS's tengig runs under strace (execve only): every program it started, with its argv, is in
``programs_of(trace)``, so a test can show that none of them reached into another host (no `ip netns
exec`, no `nsenter`) and that the NAS's own tools (fio, iperf3 -s, smbstatus) ran there.
"""
from __future__ import annotations

import contextlib
import re
import threading
import time
from pathlib import Path

from tengig.client.client import Client
from tengig.client.errors import ClientError
from tengig.lab.instance import suffix
from tengig.lab.nas_tengig import join_argv, join_url, linked_desktops, nas_tengig, start_join

PORT = 8611
CPU_CGROUPS = Path("/sys/fs/cgroup/cpu")  # cgroup v1's cpu controller (this machine's kernel: hybrid)
TRACE = "nas-tengig.strace"
EXECVE = re.compile(r'execve\("[^"]*", \[(.*?)\]')
ARG = re.compile(r'"((?:[^"\\]|\\.)*)"')


@contextlib.contextmanager
def nas_api(lab, tmp_path: Path, *, ui_dir: Path | None = None):
    """`tengig serve` on nas, as the lab starts it (tengig/lab/nas_tengig.py), under strace; the test is
    root on its unix socket. Yields (client, {desktop: the URL it joins with, over its own cable}).
    ``ui_dir``: it also serves that panel build (API keys live next to its database)."""
    strace = ["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=execve", "-e", "signal=none", "-s", "512",
              "-o", str(tmp_path / TRACE)]
    with nas_tengig(lab, tmp_path / "nas.sqlite3", socket=tmp_path / "nas.sock", port=PORT, prefix=strace,
                    ui_dir=ui_dir, log_name="test-nas-serve.log") as (api, _):
        yield api, {host: join_url(lab, host, PORT) for host in linked_desktops(lab)}


def programs_of(tmp_path: Path) -> list[str]:
    """Every program the NAS's tengig started (successful execve), as its argv joined by spaces. strace -f splits
    a call that another thread interrupts: "PID execve(...) <unfinished ...>", later "PID <... execve resumed>)
    = 0"; the two halves are joined by PID."""
    out, unfinished = [], {}
    for line in (tmp_path / TRACE).read_text().splitlines():
        pid, _, rest = line.partition(" ")
        m = EXECVE.search(rest)
        if m and rest.rstrip().endswith("<unfinished ...>"):
            unfinished[pid] = " ".join(ARG.findall(m.group(1)))
        elif m and rest.rstrip().endswith("= 0"):
            out.append(" ".join(ARG.findall(m.group(1))))
        elif "<... execve resumed>" in rest and pid in unfinished:
            argv = unfinished.pop(pid)
            if rest.rstrip().endswith("= 0"):
                out.append(argv)
    return out


def join(lab, host: str, url: str, token: str, *, auth: bool = True):
    return start_join(lab, host, url, token, smb=auth, log_name=f"test-join-{host}.log")


def start_run(api: Client, request: dict):
    """The run as a job in a thread; returns (thread, outcome dict, the token once shown)."""
    outcome: dict = {}
    token = threading.Event()

    outcome["percents"] = []
    outcome["steps"] = []  # (epoch seconds, what the progress said): a run's timeline

    def progress(job):
        if (job.get("progress") or {}).get("percent") is not None:
            outcome["percents"].append(job["progress"]["percent"])
        said = (job.get("progress") or {}).get("description")
        if said and (not outcome["steps"] or outcome["steps"][-1][1] != said):
            outcome["steps"].append((time.time(), said))
        session = ((job.get("progress") or {}).get("extra") or {}).get("session")
        if session and "token" not in outcome:
            outcome["token"] = session["token"]
            token.set()

    def body():
        try:
            outcome["result"] = api.call("tengig.bench.run", request, job=True, callback=progress, timeout=900)
        except ClientError as exc:
            outcome["error"] = exc
        token.set()

    thread = threading.Thread(target=body)
    thread.start()
    assert token.wait(60), "the run never showed its join token"
    if "token" not in outcome:  # the job ended before it showed one: say why (run55 showed only a KeyError)
        thread.join(60)
        raise AssertionError(f"the run ended before it showed its join token: {outcome.get('error')!r}; its steps: "
                             f"{[said for _, said in outcome['steps']]}")
    return thread, outcome


def small_files_run(lab, tmp_path, request: dict, disk=None) -> tuple[dict, dict]:
    """A smallfiles run that desk joins (with --disk when given): (desk's client report, the stored run)."""
    with nas_api(lab, tmp_path) as (api, urls):
        thread, outcome = start_run(api, request)
        assert "error" not in outcome, outcome.get("error")
        argv = [*join_argv(lab, "desk", urls["desk"], outcome["token"]), *(["--disk", str(disk)] if disk else [])]
        desk = lab.spawn("desk", argv, log_name="test-join-desk-small.log")
        thread.join(600)
        assert desk.wait(60) == 0, (lab.paths.logs / "test-join-desk-small.log").read_text()[-3000:]
        assert "error" not in outcome, outcome.get("error")
        result = outcome["result"]
        run = api.call("tengig.results.get", result["run_id"])
    return result["report"]["clients"][0], run


# What the NAS says when it holds a desktop's small-file batch to its own clock (bench/join/nas_witness.py): a busy
# desktop reads smbclient's lines in bunches, so its times of single files look faster than a file can move (they
# are left out) or its whole batch does (the NAS's own bound is shown instead, and no times of single files).
HELD_BY_THE_NAS = ("its times of single files are left out", "the NAS's {seconds:.3g} s is shown, and no times of "
                   "single files")


def held_by_the_nas(op: dict) -> bool:
    """Whether a small-file op the NAS did not take as the desktop timed it says why, in one of its two ways, and
    shows no times of single files."""
    note = op["nas_note"]
    return op["per_file"] is None and note is not None and any(
        note.endswith(end.format(seconds=op["seconds"])) for end in HELD_BY_THE_NAS)


@contextlib.contextmanager
def smbd_cpu_capped(lab, name: str, quota_us: int):
    """The lab NAS's smbd in a cgroup v1 of its own capped at quota_us per 100000 us period (as `systemctl
    set-property smbd CPUQuota=...` would on a TrueNAS SCALE); smbd forks each client's process into it.
    Moved back to the root cgroup and removed afterwards."""
    smbd = lab.require_up().pids["smbd"]
    held = CPU_CGROUPS / (name + suffix())  # a second lab beside this one has its own
    held.mkdir(exist_ok=True)
    try:
        (held / "cpu.cfs_quota_us").write_text(str(quota_us))
        (held / "cgroup.procs").write_text(str(smbd))
        yield held
    finally:
        for pid in (held / "cgroup.procs").read_text().split():
            (CPU_CGROUPS / "cgroup.procs").write_text(pid)
        held.rmdir()


def family_of(pid: int) -> list[int]:
    """``pid`` and every process below it (from /proc's parent links)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # it ended while we looked
        parents[int(stat.parent.name)] = int(fields[1])
    family, grew = {pid}, True
    while grew:
        grew = False
        for child, parent in parents.items():
            if parent in family and child not in family:
                family.add(child)
                grew = True
    return sorted(family)


def commands_of(pids: list[int]) -> list[str]:
    out = []
    for pid in pids:
        try:
            out.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            pass
    return out
