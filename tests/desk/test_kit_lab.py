"""The Windows kit end to end on the lab (issue 34, item 4): the kit as the NAS gives it out (tengig.bench.kit,
what the panel's "Download the Windows kit" saves), run by the vendored pwsh on the lab's desk as a person runs
it (`pwsh -File tengig-join.ps1 -ShareMount DIR -Name desk`), joins a real `tengig serve` on nas: iperf3 both
ways, the copies and the small files through the NAS's share mounted on desk (smbnetfs: this kernel has no
cifs), its own disk where asked. The NAS checks its figures as for any desktop and gives the verdict. Then the
same runs with `tengig client join` on desk through the same mount: given the same figures, the kit's run is
judged as the client's (same bottleneck, same advice); the two runs' own numbers differ, as two runs on a busy
machine always do.

The module's four runs share one `tengig serve` on nas and one mount (the ``runs`` fixture)."""
from __future__ import annotations

import pytest

from tengig.bench.run.suite import BenchReport, judge_client
from tengig.fix.run_view import path_mtus
from tengig.join_protocol.lines import OWN_TIMER
from tengig.lab.nas_tengig import join_argv
from tengig.lab.plan import SHARE_NAME
from tengig.units import MiB
from tengig.verdict.targets import find_target

from tests.bench.joined_harness import nas_api, start_run
from tests.bench.mounted_share import smbnetfs_share
from tests.lab.running import in_lab_hosts

from .pwsh import pwsh_argv, pwsh_env, vendor_archive

pytestmark = [pytest.mark.lab, pytest.mark.skipif(vendor_archive() is None, reason="the vendored PowerShell is "
                                                  "not here (set TENGIG_VENDOR_DIR to the vendor directory)")]
REQUEST = {"system": "local", "kind": "all", "join": 1, "share": SHARE_NAME, "repeats": 2, "net_seconds": 2,
           "working_set": 128 * MiB}
SMALL = {"size": 4096, "count": 100}
SMALL_REQUEST = {"system": "local", "kind": "smallfiles", "join": 1, "share": SHARE_NAME, "small_files": [SMALL]}


def _kit_argv(api, url: str, token: str, folder, share, disk=None) -> list[str]:
    """The kit for this run as the NAS renders it for the panel, saved as the panel saves it; pwsh running it."""
    kit = api.call("tengig.bench.kit", {"nas": url, "token": token, "share": SHARE_NAME})
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / kit["filename"]
    path.write_text(kit["text"], encoding="ascii")
    return [*pwsh_argv(), "-NoProfile", "-NonInteractive", "-File", str(path), "-ShareMount", str(share),
            "-Name", "desk", "-WorkDir", str(folder), *(["-Disk", str(disk)] if disk else [])]


def _run(lab, api, request: dict, log: str, desktop) -> tuple[dict, dict]:
    """One run that desk joins with ``desktop(token)``'s argv and env: (its result, the stored run)."""
    thread, outcome = start_run(api, request)
    argv, env = desktop(outcome["token"])
    desk = lab.spawn("desk", argv, log_name=log, env=env)
    thread.join(900)
    assert desk.wait(120) == 0, (lab.paths.logs / log).read_text(errors="replace")[-3000:]
    assert "error" not in outcome, outcome.get("error")
    return outcome["result"], api.call("tengig.results.get", outcome["result"]["run_id"])


@pytest.fixture(scope="module")
def runs(shaped_lab, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("kit-lab")
    out = {"tmp": tmp}
    for name in ("kit-disk", "client-disk"):
        (tmp / name).mkdir()
    with nas_api(shaped_lab, tmp) as (api, urls):
        url = urls["desk"]
        with smbnetfs_share(shaped_lab, "desk", tmp / "home") as share:
            def kit(disk=None):
                return lambda token: (_kit_argv(api, url, token, tmp / "kit", share, disk), pwsh_env())

            def client(disk=None):
                return lambda token: ([*join_argv(shaped_lab, "desk", url, token, smb=False), "--mount", str(share),
                                       *(["--disk", str(disk)] if disk else [])], None)
            out["kit"] = _run(shaped_lab, api, REQUEST, "test-kit-desk.log", kit(tmp / "kit-disk"))
            out["kit-small"] = _run(shaped_lab, api, SMALL_REQUEST, "test-kit-desk-small.log", kit())
            out["client"] = _run(shaped_lab, api, REQUEST, "test-kit-client-desk.log", client(tmp / "client-disk"))
            out["client-small"] = _run(shaped_lab, api, SMALL_REQUEST, "test-kit-client-desk-small.log", client())
    out["left"] = in_lab_hosts(shaped_lab, "iperf3") + in_lab_hosts(shaped_lab, "dotnet")
    return out


def _direction(result: dict, direction: str) -> dict:
    return next(d for d in result["verdict"]["directions"] if d["direction"] == direction)


def test_the_kit_run_by_pwsh_on_desk_joins_and_the_nas_checks_its_figures(shaped_lab, runs):
    result, run = runs["kit"]
    log = (shaped_lab.paths.logs / "test-kit-desk.log").read_text(errors="replace")
    assert "[client] joined run" in log and "[client] the run is finished; its verdict is on the NAS" in log, log
    client = result["report"]["clients"][0]
    joined = client["joined"]
    assert joined["os"] == "linux" and joined["tengig"].startswith("kit ") and joined["hostname"] == "desk", joined
    assert joined["interface"] == "eth-nas" and joined["mtu"] == 1500 and joined["disk"] is True, joined
    # the network both ways, by iperf3 on desk; a read's retransmits counted by the NAS's own iperf3 server
    network = client["network"]
    assert {n["direction"] for n in network} == {"read", "write"} and all(n["goodput_bps"] > 0 for n in network)
    assert all("nas" in n["retransmits_by"] for n in network if n["direction"] == "read"), network
    raw = run["raw"]
    assert any(r["tool"] == "iperf3 on desk" for r in raw)
    # every copy through the mount by the kit's own copy (a tengig-copy line), each seen on the NAS's port
    copies = [r for r in raw if r["tool"] == "smb copy on desk"]
    assert copies and all(r["argv"][0] == "tengig-copy" and r["stdout"].startswith("tengig-copy: ") for r in copies)
    smb = client["smb"]
    assert smb["read"]["bytes_per_s"]["median"] > 0 and smb["write"]["bytes_per_s"]["median"] > 0
    assert all(w >= smb["file_size"] for w in smb["read"]["wire_bytes"] + smb["write"]["wire_bytes"])
    # its own disk, measured by the kit, the target its verdict names; the folder left empty
    assert client["own_disk"]["file_size"] == smb["file_size"] and client["own_disk"]["read_bytes_per_s"] > 0
    assert client["own_disk_verdict"]["summary"].startswith("Against desk's own disk")
    assert list((runs["tmp"] / "kit-disk").iterdir()) == []
    assert not list((runs["tmp"] / "kit").glob("tengig-kit-*"))  # its work folder removed
    assert run["status"] == "success" and run["verdict"]["summary"] == result["verdict"]["summary"]
    assert runs["left"] == []  # no iperf3 and no pwsh left in the lab's hosts


def test_the_kits_small_files_are_counted_by_the_nas(runs):
    result, run = runs["kit-small"]
    client = result["report"]["clients"][0]
    (size,) = client["small_files"]["sizes"]
    count, each = SMALL["count"], SMALL["size"]
    assert (size["size"], size["count"], size["engine"]) == (each, count, f"{OWN_TIMER} on the mounted share")
    assert (size["nas_files"], size["nas_bytes"], size["nas_files_left"]) == (count, count * each, 0)
    ops = {o["op"]: o for o in size["ops"]}
    assert list(ops) == ["write", "stat", "read", "delete"]
    for name in ("write", "read"):
        assert ops[name]["files"] == count and ops[name]["bytes"] == count * each
        assert ops[name]["per_file"]["count"] == count
    batches = [r for r in run["raw"] if r["tool"].startswith("small files ") and r["tool"].endswith(" on desk")]
    assert all(r["argv"][0] == OWN_TIMER for r in batches if "prepare" not in r["tool"]), [r["argv"] for r in batches]
    assert client["verdict"]["small_files"].startswith("copying 4 KiB files: ")


def _kit_judged_on_client_figures(kit: dict, client: dict) -> dict:
    """The kit run's report with the client run's figures in it (the pool, iperf3, the SMB copies' rates and smbd's
    CPU, the own disk), judged by the NAS's own judge: what the kit's own facts (its session, port, MTU, its CPU)
    make of the same figures."""
    k_report, c_report = BenchReport.model_validate(kit["report"]), BenchReport.model_validate(client["report"])
    k, c = k_report.clients[0], c_report.clients[0]
    k.network, k.own_disk = c.network, c.own_disk
    for direction in ("read", "write"):
        mine, theirs = getattr(k.smb, direction), getattr(c.smb, direction)
        mine.bytes_per_s, mine.smbd_cpu_percent = theirs.bytes_per_s, theirs.smbd_cpu_percent
    judge_client(find_target(c_report.target), c_report.pool, k, path_mtus(k.link.server, k))
    return k.verdict.model_dump(mode="json")


def test_the_kit_and_tengig_client_join_get_the_same_verdict(runs):
    """Given the same figures, the kit's run gets tengig client join's verdict: same bottleneck and target call
    in each direction, same advice rules; and the same small-file engine. The two runs' own figures differ (two
    runs on a busy machine never agree; at 1 Gb/s SMB sits near the link, so the two verdicts may name the link
    in one and SMB in the other): what must agree is what the kit tells the NAS beside them."""
    kit, _ = runs["kit"]
    client, _ = runs["client"]
    judged = _kit_judged_on_client_figures(kit, client)
    for direction in ("read", "write"):
        mine, theirs = _direction({"verdict": judged}, direction), _direction(client, direction)
        assert (mine["bottleneck"], mine["beats_target"]) == (theirs["bottleneck"], theirs["beats_target"]), (
            judged["summary"], client["verdict"]["summary"])
    assert sorted({a["rule"] for a in judged["advice"]}) == sorted({a["rule"] for a in client["verdict"]["advice"]})
    kit_small = runs["kit-small"][0]["report"]["clients"][0]
    client_small = runs["client-small"][0]["report"]["clients"][0]
    assert kit_small["small_files"]["sizes"][0]["engine"] == client_small["small_files"]["sizes"][0]["engine"]
    print(_figures("kit (pwsh)", kit, kit_small))
    print(_figures("tengig client join", client, client_small))


def _figures(who: str, result: dict, small: dict) -> str:
    c = result["report"]["clients"][0]
    net = {(n["direction"], n["streams"]): n["goodput_bps"] / 1e9 for n in c["network"]}
    ops = {o["op"]: o["files_per_s"] for o in small["small_files"]["sizes"][0]["ops"]}
    return (f"{who}: iperf3 read {net.get(('read', 1), 0):.3f} Gb/s, write {net.get(('write', 1), 0):.3f} Gb/s; "
            f"SMB read {c['smb']['read']['bytes_per_s']['median'] / MiB:.1f} MiB/s, write "
            f"{c['smb']['write']['bytes_per_s']['median'] / MiB:.1f} MiB/s; own disk read "
            f"{c['own_disk']['read_bytes_per_s'] / 1e6:.1f} MB/s; 4 KiB files write {ops['write']:,.0f} files/s, "
            f"read {ops['read']:,.0f} files/s; advice {sorted({a['rule'] for a in result['verdict']['advice']})}; "
            f"{result['verdict']['summary']}")
