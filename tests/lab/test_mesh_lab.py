"""Issue 5's must-show on the lab: `lab up --bare` (cables, no addresses), plan from the lab's hosts,
apply each host's part through the Linux backend, verify (pings, DF pings, names, the matrix)."""
import ipaddress
import re

import pytest

from tengig.bench.context import BenchContext
from tengig.errors import TengigError, ValidationError
from tengig.lab.mesh_adapter import LabNetHosts, lab_hosts_file, lab_mesh_request, lab_network
from tengig.mesh import plan_mesh
from tengig.mesh.apply_linux import apply_linux
from tengig.mesh.verify import verify_mesh

pytestmark = pytest.mark.lab
HOSTS = ("nas", "desk", "lab")


def _state(lab):
    """Every host's interfaces and hosts file, to compare before/after."""
    return {h: (lab_network(lab, h).interfaces(), lab_hosts_file(lab, h).read()) for h in HOSTS}


def _uncable(lab):
    """Back to freshly cabled hosts: no addresses, no tengig block."""
    from tengig.hostsblock import merge_marked_block

    for h in HOSTS:
        net = lab_network(lab, h)
        for iface in net.interfaces():
            for addr in iface.ipv4 if iface.name.startswith("eth-") else ():
                net.delete_address(iface.name, addr)
        hosts_file = lab_hosts_file(lab, h)
        hosts_file.write(merge_marked_block(hosts_file.read(), []))


def _apply_all(lab, request, plan):
    return {h: apply_linux(request, plan, h, lab_network(lab, h), lab_hosts_file(lab, h)) for h in HOSTS}


def test_bare_lab_has_cables_and_no_addresses(bare_lab):
    for h in HOSTS:
        ports = [i for i in lab_network(bare_lab, h).interfaces() if i.name.startswith("eth-")]
        assert len(ports) == 2 and all(not p.ipv4 for p in ports)


def test_plan_apply_verify_reapply(bare_lab):
    request = lab_mesh_request(bare_lab)
    plan = plan_mesh(request)
    assert [c.subnet for c in plan.cables] == ["10.250.0.0/30", "10.250.0.4/30", "10.250.0.8/30"]
    seen = []
    results = {h: apply_linux(request, plan, h, lab_network(bare_lab, h), lab_hosts_file(bare_lab, h),
                              progress=lambda p, d: seen.append(p)) for h in HOSTS}
    assert all(r.changed for r in results.values())
    assert sum("address" in c for c in results["desk"].changes) == 2  # one address per cable end
    for cable in plan.cables:
        for end in (cable.a, cable.b):
            addrs = lab_network(bare_lab, end.host).interface(end.port).ipv4
            assert addrs == (f"{end.address}/{cable.prefix}",)

    ctx = BenchContext(LabNetHosts(bare_lab))
    result = verify_mesh(ctx, plan, HOSTS, measure_throughput=True, seconds=1, omit=1, min_percent=97)
    # The judgement is the measurement's: each direction short of 97% of its ceiling is named with its figures,
    # and nothing else is wrong (a busy machine can leave a shaped link short: tbf's timer fires late).
    short = [m for m in result.matrix if m.percent_of_ceiling < 97]
    rates = [p for p in result.problems if "Mb/s ceiling (< 97%)" in p]
    assert len(rates) == len(short) and all(f"{m.sender} -> {m.receiver} over {m.cable}: " in " ".join(rates)
                                            for m in short), result.problems
    assert all("Mb/s ceiling" in p or "directions differ" in p for p in result.problems), result.problems
    assert result.ok == (not result.problems)
    assert len(result.links) == 6 and all(link.ping_ok and link.df_ok and link.name_ok for link in result.links)
    # names resolve, from each host, to the far end of the direct cable
    desk_to_nas = next(link for link in result.links if link.host == "desk" and link.peer == "nas")
    desk_nas = next(c for c in plan.cables if {c.a.host, c.b.host} == {"desk", "nas"})
    assert desk_to_nas.resolves_to == [desk_nas.end_of("nas").address]
    assert len(result.matrix) == 6  # n x (n-1)
    by_speed = {c.id: c.speed_bps for c in plan.cables}
    for m in result.matrix:
        assert 0 < m.percent_of_ceiling <= 103, m  # nothing passes the 1g and 100m links' shapers
        assert m.ceiling_bps == pytest.approx(941e6 if by_speed[m.cable] == 10**9 else 94.1e6, rel=1e-3)

    before = _state(bare_lab)
    again = _apply_all(bare_lab, request, plan)
    assert not any(r.changed for r in again.values()) and all(r.changes == [] for r in again.values())
    assert _state(bare_lab) == before


def test_user_lines_in_hosts_file_survive(bare_lab):
    request = lab_mesh_request(bare_lab)
    plan = plan_mesh(request)
    hosts_file = lab_hosts_file(bare_lab, "lab")
    hosts_file.write(hosts_file.read() + "192.168.7.7\tprinter # mine\n")
    _apply_all(bare_lab, request, plan)
    text = hosts_file.read()
    assert "192.168.7.7\tprinter # mine" in text and text.count("# BEGIN tengig mesh") == 1


def test_overlap_with_an_existing_network_is_refused_and_nothing_changes(bare_lab):
    lab = bare_lab
    lab.run("desk", ["ip", "link", "add", "tgx0", "type", "veth", "peer", "name", "tgx1"], timeout=10)
    lab.run("desk", ["ip", "addr", "add", "10.250.0.5/24", "dev", "tgx0"], timeout=10)
    try:
        request = lab_mesh_request(lab, prefix=30)
        plan = plan_mesh(request)
        before = _state(lab)
        with pytest.raises(ValidationError) as err:
            apply_linux(request, plan, "desk", lab_network(lab, "desk"), lab_hosts_file(lab, "desk"))
        fields = [f for f, _ in err.value.errors]
        assert fields and set(fields) == {"existing_networks"}, err.value.errors
        assert "10.250.0.0/24" in str(err.value) and "tgx0" in str(err.value)
        assert _state(lab) == before
        # listing the network makes the planner skip it, and the new plan applies cleanly
        request2 = lab_mesh_request(lab, existing_networks=["10.250.0.0/24"])
        plan2 = plan_mesh(request2)
        assert all(not ipaddress.ip_network(c.subnet).overlaps(ipaddress.ip_network("10.250.0.0/24")) for c in plan2.cables)
    finally:
        lab.run("desk", ["ip", "link", "del", "tgx0"], timeout=10)


def test_a_port_with_an_address_of_its_own_is_refused_with_its_field(bare_lab):
    request = lab_mesh_request(bare_lab, prefix=24)  # a different plan over the applied one
    plan = plan_mesh(request)
    with pytest.raises(ValidationError) as err:
        apply_linux(request, plan, "nas", lab_network(bare_lab, "nas"), lab_hosts_file(bare_lab, "nas"))
    fields = {f for f, _ in err.value.errors}
    assert fields <= {"hosts.0.ports.0.name", "hosts.0.ports.1.name", "existing_networks"} and "hosts.0.ports.0.name" in fields
    assert "a mesh port carries only its link" in str(err.value)


class _FailingSecondAddress:
    """The real network, except that adding the second address fails (as a vanished port would)."""

    def __init__(self, net):
        self.net, self.adds = net, 0

    def __getattr__(self, name):
        return getattr(self.net, name)

    def add_address(self, port, address):
        self.adds += 1
        if self.adds == 2:
            raise TengigError("RTNETLINK answers: No such device (injected)")
        self.net.add_address(port, address)


def test_a_failed_apply_leaves_the_host_as_it_was(bare_lab):
    lab = bare_lab
    for port in ("eth-nas", "eth-desk"):  # take lab's addresses off again: a fresh host
        for addr in lab_network(lab, "lab").interface(port).ipv4:
            lab_network(lab, "lab").delete_address(port, addr)
    request = lab_mesh_request(lab)
    plan = plan_mesh(request)
    before = _state(lab)
    with pytest.raises(TengigError, match="the host is as it was"):
        apply_linux(request, plan, "lab", _FailingSecondAddress(lab_network(lab, "lab")), lab_hosts_file(lab, "lab"))
    assert _state(lab) == before


def test_verify_finds_a_jumbo_mismatch(bare_lab):
    lab = bare_lab
    request = lab_mesh_request(lab)
    plan = plan_mesh(request)
    _apply_all(lab, request, plan)
    net = lab_network(lab, "desk")
    net.set_mtu("eth-nas", 1400)
    try:
        result = verify_mesh(BenchContext(LabNetHosts(lab)), plan, HOSTS, measure_throughput=False, seconds=1,
                             min_percent=90.0)
    finally:
        net.set_mtu("eth-nas", 1500)
    assert not result.ok
    bad = {(link.host, link.peer) for link in result.links if not link.df_ok}
    assert bad == {("desk", "nas"), ("nas", "desk")}
    assert all(link.ping_ok for link in result.links)  # small packets still pass: only DF pings show it
    assert any("Don't Fragment" in p for p in result.problems)


def test_cli_apply_verify_on_the_lab(bare_lab, capsys):
    from tengig.cli.main import main

    _uncable(bare_lab)
    capsys.readouterr()
    assert main(["mesh", "apply"]) == 0
    out = capsys.readouterr().out
    assert all(f"{h}: " in out for h in HOSTS) and "address none -> 10.250.0." in out
    code = main(["mesh", "verify", "--seconds", "1", "--min-percent", "95"])
    out = capsys.readouterr().out
    # Every link answers; the matrix is judged by its own printed figures (a busy machine can leave a shaped
    # link short in one second: CI of stop 44 measured nas -> desk at 89.8%), and the exit code says so.
    assert out.count("ok  C0") == 6 and "BAD" not in out, out
    matrix = _printed_matrix(out)
    assert len(matrix) == 6, out
    problems = [line[len("problem: "):] for line in out.splitlines() if line.startswith("problem: ")]
    assert all("Mb/s ceiling (< 95%)" in p or "directions differ" in p for p in problems), problems
    for (cable, sender, receiver), (_, percent) in matrix.items():
        named = any(p.startswith(f"{sender} -> {receiver} over {cable}: ") for p in problems)
        assert named == (percent < 95) or abs(percent - 95) < 0.1, (cable, sender, receiver, percent, problems)
    for cable in {c for c, _, _ in matrix}:
        (one, other) = [mbps for (c, _, _), (mbps, _) in matrix.items() if c == cable]
        differ = abs(one - other) / max(one, other)
        named = any(p.startswith(f"{cable}: directions differ") for p in problems)
        assert named == (differ > 0.10) or abs(differ - 0.10) < 0.002, (cable, one, other, problems)
    assert code == (1 if problems else 0)
    assert ("mesh verified: every link works" in out) == (not problems)
    assert not problems or f"mesh NOT ok: {len(problems)} problem(s)" in out
    assert main(["mesh", "apply"]) == 0
    assert capsys.readouterr().out.count("already as planned, nothing changed") == 3


def _printed_matrix(out: str) -> dict[tuple[str, str, str], tuple[float, float]]:
    """`tengig mesh verify`'s matrix lines ('C02    nas -> desk       845.8 Mb/s   89.8% of 941.5 Mb/s'):
    (cable, sender, receiver) -> (Mb/s, % of the ceiling)."""
    rows = re.findall(r"^(C\d+)\s+(\w+) -> (\w+)\s+([\d.]+) Mb/s\s+([\d.]+)% of [\d.]+ Mb/s$", out, re.MULTILINE)
    return {(c, s, r): (float(mbps), float(pct)) for c, s, r, mbps, pct in rows}


def test_apply_job_keeps_the_mesh_only_when_checked_in(bare_lab, api):
    """tengig.mesh.apply {wait_for_checkin}: unconfirmed, every host is taken back when the time is up;
    confirmed through tengig.mesh.checkin while it counts down, the mesh stays."""
    import errno
    import time

    from tengig.api.jobs import JobState

    from ..inprocess import until_waiting_for_checkin

    _uncable(bare_lab)
    before = _state(bare_lab)
    request = lab_mesh_request(bare_lab).model_dump(mode="json")
    options = {"system": "lab", "wait_for_checkin": True, "checkin_timeout": 5}

    async def confirmed():
        job = await api.middleware.call("tengig.mesh.apply", request, {**options, "checkin_timeout": 30})
        await until_waiting_for_checkin(job)
        assert all(lab_network(bare_lab, h).interface("eth-" + peer).ipv4 for h in HOSTS for peer in HOSTS if peer != h)
        assert await api.middleware.call("tengig.mesh.checkin") is True
        return await api.middleware.wait_job(job)
    started = time.monotonic()
    job = api.run_job("tengig.mesh.apply", request, options, timeout=60)
    assert job.state == JobState.FAILED and "nobody confirmed the mesh within 5 s" in job.error
    assert job.exc_info["errno"] == errno.ETIMEDOUT and time.monotonic() - started >= 5
    assert _state(bare_lab) == before  # every host taken back
    job = api.run(confirmed(), timeout=60)
    assert job.state == JobState.SUCCESS, job.error
    assert all(r["changed"] for r in job.result) and _state(bare_lab) != before
