"""`tengig lab ...`: bring the lab up, show it, run a command on one of its hosts, take it down."""
from __future__ import annotations

import os

import click

from ..errors import ValidationError

from ..lab import Lab, build_spec
from ..lab.roundtrip import RoundTrip, smb_roundtrip
from ..lab.samba import set_multichannel
from ..lab.status import LabStatus, lab_status
from ..units import MiB, format_rate, format_size, parse_size
from .progress import ProgressBar


@click.group("lab")
def lab_group() -> None:
    """The embedded lab: nas, desk and lab as network namespaces, shaped direct cables, a zfs-fuse pool and smbd."""


FLAGS = {"mtu": "--mtu", "pool_size": "--pool-size", "slow_pool_mbps": "--slow-pool", "pool_members": "--pool-members",
         "slow_members": "--slow-members", "arc_mib": "--arc-mib"}


@lab_group.command("up")
@click.option("--link", "links", multiple=True, metavar="HOST-HOST=RATE",
              help="Line rate of one cable: 100m, 1g, 2.5g, 10g (default) or unshaped. Repeatable.")
@click.option("--mtu", type=int, default=1500, show_default=True, help="MTU of every cable, bytes.")
@click.option("--bare", is_flag=True, help="Hosts and cables only: no addresses, hosts entries, pool or share.")
@click.option("--pool-size", default="8G", show_default=True, help="Sparse pool file size (binary units: 8G = 8 GiB).")
@click.option("--slow-pool", "slow_pool", type=float, default=None, metavar="MBPS",
              help="Throttle the pool's device to MBPS MB/s (10^6 bytes/s) with a loop device and cgroup blkio.")
@click.option("--pool-members", type=int, default=1, show_default=True,
              help="Disks (sparse files) the pool stripes across.")
@click.option("--slow-members", type=int, default=None, metavar="N",
              help="With --slow-pool: throttle only the first N members (default: all).")
@click.option("--arc-mib", type=int, default=100, show_default=True, help="zfs-fuse ARC size, MiB.")
def up(links, mtu, bare, pool_size, slow_pool, pool_members, slow_members, arc_mib) -> None:
    """Build the lab (refuses if one is already here: `tengig lab down` first)."""
    try:
        spec = build_spec(list(links), mtu=mtu, bare=bare, pool_size=parse_size(pool_size, field="--pool-size"),
                          slow_pool_mbps=slow_pool, pool_members=pool_members, slow_members=slow_members,
                          arc_mib=arc_mib)
    except ValidationError as exc:  # the spec's fields as this command's flags
        raise ValidationError([(FLAGS.get(f, f), m.removeprefix("Value error, ").replace(
            "slow_pool_mbps", "--slow-pool").replace("pool_members", "--pool-members")) for f, m in exc.errors]) from exc
    bar = ProgressBar("lab up")
    Lab().up(spec, progress=bar)
    bar.done()
    _print_status(lab_status(Lab()))


@lab_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def status(as_json: bool) -> None:
    """What runs, link rates, pool, share and health. Exit code 1 if the lab is not healthy."""
    st = lab_status(Lab())
    if st is None:
        click.echo("no lab is up (`tengig lab up` builds one)")
        raise click.exceptions.Exit(1)
    if as_json:
        click.echo(st.model_dump_json(indent=2))
    else:
        _print_status(st)
    raise click.exceptions.Exit(0 if st.healthy else 1)


@lab_group.command("down")
def down() -> None:
    """Stop every lab process, export the pool, remove mounts, loop devices, cgroups and namespaces.
    Also cleans up after a crashed or half-built lab."""
    notes = Lab().down()
    for note in notes:
        click.echo(f"note: {note}", err=True)
    click.echo("lab is down: no namespace, mount, loop device, cgroup, pool or process left")


@lab_group.command("exec", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("host")
@click.argument("argv", nargs=-1, required=True, type=click.UNPROCESSED)
def exec_(host: str, argv: tuple[str, ...]) -> None:
    """Run a command on a lab host: tengig lab exec desk -- ping -c1 nas"""
    args = list(argv[1:] if argv and argv[0] == "--" else argv)
    netns = Lab().netns(host)
    os.execvp("ip", ["ip", "netns", "exec", netns, *args])


@lab_group.command("multichannel")
@click.argument("state", type=click.Choice(["on", "off"]))
def multichannel(state: str) -> None:
    """Set the lab NAS's SMB multichannel as a person would: smb.conf's server multichannel support, reloaded."""
    lab = Lab()
    lab.require_up()
    set_multichannel(lab.runner, lab.paths, state == "on")
    click.echo(f"the lab NAS's smbd: server multichannel support = {'yes' if state == 'on' else 'no'} (reloaded)")


@lab_group.command("roundtrip")
@click.option("--host", default="desk", show_default=True, help="Client host that reads and writes over SMB.")
@click.option("--size", default="256M", show_default=True, help="Size of the random file (binary units).")
def roundtrip(host: str, size: str) -> None:
    """Read a random file from the NAS share over SMB and write it back; both copies must hash the same."""
    rt = smb_roundtrip(Lab(), host, parse_size(size, field="--size"))
    click.echo(_describe_roundtrip(rt))


def _describe_roundtrip(rt: RoundTrip) -> str:
    mib = rt.size_bytes / MiB
    return (f"SMB round trip from {rt.host}: {mib:g} MiB read in {rt.read_seconds:.2f} s, written back in "
            f"{rt.write_seconds:.2f} s (each includes smbclient's connect; not a benchmark); "
            f"sha256 {rt.sha256[:16]}... matches both ways")


def _print_status(st: LabStatus | None) -> None:
    if st is None:
        click.echo("no lab")
        return
    click.echo(f"lab: {st.phase}, {'healthy' if st.healthy else 'NOT healthy'}")
    click.echo(f"hosts ({len(st.hosts)}): " + ", ".join(f"{h}{'' if ok else ' (missing)'}" for h, ok in st.hosts.items()))
    click.echo(f"links ({len(st.links)}):")
    for link in st.links:
        rate = format_rate(link.line_rate_bps) if link.line_rate_bps else "unshaped"
        ends = "  ".join(f"{p.host}:{p.ifname} {','.join(p.addresses) or '-'} {p.operstate}" for p in link.ports)
        click.echo(f"  {link.name:<10} {rate:>10}  MTU {link.mtu}  {link.subnet or 'no subnet (bare)'}  {ends}"
                   f"{'' if link.ok else '  PROBLEM'}")
    if st.pool:
        click.echo(f"pool: {st.pool['name']} {st.pool['health']}, {format_size(st.pool['used_bytes'])} used, "
                   f"{format_size(st.pool['free_bytes'])} free")
    if st.share:
        reach = ", ".join(f"{h} {'ok' if ok else 'FAILED'}" for h, ok in st.share.reachable_from.items())
        click.echo(f"share: //{st.share.server}/{st.share.name} ({st.share.path}, user {st.share.user}); reachable from: {reach}")
    if st.processes:
        click.echo("processes: " + ", ".join(f"{r} {'running' if ok else 'DEAD'}" for r, ok in st.processes.items()))
    for problem in st.problems:
        click.echo(f"problem: {problem}")
