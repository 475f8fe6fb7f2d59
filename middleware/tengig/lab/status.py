"""What the lab looks like right now, read from the kernel, zfs-fuse and smbd (not from memory)."""
from __future__ import annotations

from pydantic import BaseModel, Field

from ..errors import CommandError
from . import network, pool, residue
from .lab import Lab
from .plan import SHARE_NAME, plan_lab


class PortStatus(BaseModel):
    host: str
    ifname: str
    operstate: str | None
    mtu: int | None
    addresses: list[str]
    tbf_rate_bps: int | None = Field(description="tbf rate on this end, bits/s (None: unshaped)")


class LinkStatus(BaseModel):
    name: str
    line_rate_bps: int | None = Field(description="The emulated Ethernet line rate, bits/s (None: unshaped veth)")
    subnet: str | None
    mtu: int
    ports: list[PortStatus]
    ok: bool


class ShareStatus(BaseModel):
    name: str
    server: str
    path: str
    user: str
    reachable_from: dict[str, bool]
    errors: dict[str, str] = {}


class LabStatus(BaseModel):
    phase: str
    hosts: dict[str, bool] = Field(description="host -> its namespace exists")
    links: list[LinkStatus]
    pool: dict | None
    share: ShareStatus | None
    processes: dict[str, bool] = Field(description="role -> running")
    problems: list[str]

    @property
    def healthy(self) -> bool:
        return self.phase == "up" and not self.problems


def lab_status(lab: Lab) -> LabStatus | None:
    st = lab.state()
    if st is None:
        return None
    plan = plan_lab(st.spec)
    problems: list[str] = []
    existing = set(residue.lab_namespaces(lab.runner))
    hosts = {h: plan.netns(h) in existing for h in st.spec.hosts}
    problems += [f"host {h}: namespace missing" for h, ok in hosts.items() if not ok]
    links = []
    for cable in plan.cables:
        ports = []
        for port in (cable.a, cable.b):
            try:
                seen = network.read_port(lab.runner, port.netns, port.ifname)
            except CommandError:
                seen = {"operstate": None, "mtu": None, "addresses": [], "tbf_rate_bps": None}
            ports.append(PortStatus(host=port.host, ifname=port.ifname, **seen))
        want_rate = cable.shaping.tbf_rate_bps if cable.shaping else None
        ok = all(
            p.operstate in ("UP", "LOWERLAYERDOWN", "UNKNOWN") and p.mtu == cable.mtu
            and (want_rate is None or (p.tbf_rate_bps is not None and abs(p.tbf_rate_bps - want_rate) <= 0.01 * want_rate))
            for p in ports
        )
        if not ok:
            problems.append(f"link {cable.name}: not as planned (state, MTU or shaping)")
        links.append(
            LinkStatus(
                name=cable.name,
                line_rate_bps=cable.shaping.line_rate_bps if cable.shaping else None,
                subnet=cable.subnet, mtu=cable.mtu, ports=ports, ok=ok,
            )
        )
    processes = {role: residue.alive(pid) for role, pid in st.pids.items()}
    problems += [f"process {role} ({st.pids[role]}) is not running" for role, ok in processes.items() if not ok]
    pool_info = share = None
    if not st.spec.bare and st.phase == "up":
        pool_info = pool.pool_health(lab.runner)
        if pool_info is None or pool_info["health"] != "ONLINE":
            problems.append(f"pool: {pool_info['health'] if pool_info else 'missing'}")
        reach, errors = {}, {}
        for host in st.spec.hosts[1:]:
            try:
                lab.smbclient(host, "ls", timeout=20)
                reach[host] = True
            except CommandError as exc:
                reach[host], errors[host] = False, exc.message
                problems.append(f"share not reachable from {host}")
        share = ShareStatus(
            name=SHARE_NAME, server=st.spec.nas, path=st.share_path or "", user=st.spec.smb_user,
            reachable_from=reach, errors=errors,
        )
    return LabStatus(phase=st.phase, hosts=hosts, links=links, pool=pool_info, share=share,
                     processes=processes, problems=problems)

