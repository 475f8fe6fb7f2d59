"""`tengig mesh plan|render|labels|apply|verify` and `tengig nic`: the mesh on the lab (the embedded
default: `--lab` plans from the lab's hosts and cables) or from a request file, applied on the lab's
hosts or on this machine (`--local HOST`). Every one calls tengig.mesh.* (tengig.nic.query) through the
front door (front_door.py): the services decide where to act and what to refuse; this module builds the
request from the flags and prints the answer."""
from __future__ import annotations

import json
from typing import Any

import click

from ..api.models.base import default_of
from ..api.models.mesh import TenGigMeshVerifyOptions
from ..errors import ValidationError
from ..lab import Lab
from ..lab.mesh_adapter import lab_mesh_request
from ..mesh.apply_linux import MeshApplyResult
from ..mesh.models import MeshPlan
from ..mesh.render import RenderedConfig
from ..mesh.verify import MeshVerifyResult
from ..nic.models import Nic
from .front_door import REQUEST_FILE, call, hosted, job, run_job
from .joined_host import JOIN_PORT
from .request_file import read_request_file

# The API's fields as this command's flags (errors name them).
WHERE_FLAGS = {"options.system": "--local", "options.hosts": "--local"}
VERIFY_FLAGS = {**WHERE_FLAGS, "options.measure_throughput": "--no-throughput", "options.seconds": "--seconds",
                "options.min_percent": "--min-percent", "options.join": "--join",
                "options.join_timeout": "--join-timeout"}


def _from_flags(request_file: str | None, prefix: str | None, mtu: int | None) -> tuple[Any, dict[str, str]]:
    """The MeshRequest the flags give, as the API takes it (the service checks it), and the flags its
    fields are named by in errors: a request file's as the file spells them, but for what a flag set."""
    flags = dict(REQUEST_FILE)
    for flag, given, field in (("--prefix", prefix, "prefix"), ("--mtu", mtu, "mtu")):
        if given is not None or request_file is None:
            flags[f"request.options.{field}"] = flag
    if request_file is None:  # the lab is the embedded default
        # only what it sets: a price it leaves out is said to be tengig's estimate
        request = lab_mesh_request(Lab(), prefix=int(prefix or 30), mtu=mtu)
        return request.model_dump(mode="json", exclude_unset=True), flags
    doc = read_request_file(request_file)
    if isinstance(doc, dict) and isinstance(doc.setdefault("options", {}), dict):
        if prefix is not None:
            doc["options"]["prefix"] = int(prefix)
        if mtu is not None:
            doc["options"]["mtu"] = mtu
    return doc, flags


def _plan(request_file: str | None, prefix: str | None, mtu: int | None) -> MeshPlan:
    request, flags = _from_flags(request_file, prefix, mtu)
    return MeshPlan.model_validate(call("tengig.mesh.plan", request, flags=flags))


def _where(local: str | None) -> dict[str, Any]:
    """Where to act: every plan host the lab reaches, or this machine as the plan host ``local``."""
    return {"system": "local", "hosts": [local]} if local else {"system": "lab"}


def _source(f):
    for opt in reversed([
        click.option("--request", "request_file", metavar="FILE",
                     help="Mesh request as JSON (hosts, ports, existing_networks, options); default: the lab's hosts."),
        click.option("--prefix", type=click.Choice(["24", "30", "31"]), default=None, help="Prefix per link (default 30)."),
        click.option("--mtu", type=click.IntRange(1500, 9216), default=None, help="MTU of every mesh port, bytes."),
    ]):
        f = opt(f)
    return f


@click.group("mesh")
def mesh_group() -> None:
    """Switchless direct-attach mesh: plan, render, labels, apply, verify."""


@mesh_group.command("plan")
@_source
@click.option("--json", "as_json", is_flag=True, help="Print the whole plan as JSON.")
def plan_command(request_file, prefix, mtu, as_json):
    """Cables, subnets and addresses, hosts entries, counts, cost and the switch break-even."""
    plan = _plan(request_file, prefix, mtu)
    if as_json:
        click.echo(plan.model_dump_json(indent=1))
        return
    for c in plan.cables:
        click.echo(f"{c.id}  {c.a.host}:{c.a.port} {c.a.address}  <->  {c.b.host}:{c.b.port} {c.b.address}  "
                   f"{c.subnet}  {c.speed_bps / 1e9:g} Gb/s  MTU {c.mtu}  ceiling {c.goodput_bps / 1e9:.3f} Gb/s")
    for h in plan.hosts:
        click.echo(f"{h.name}: " + ", ".join(f"{e.name} -> {e.address}" for e in h.hosts_entries))
    click.echo(f"{plan.counts.hosts} hosts, {plan.counts.cables} cables, {plan.counts.ports_used} ports; "
               f"cost {plan.cost.total:.2f} {plan.cost.currency}")
    click.echo(plan.break_even.summary)
    for note in plan.notes:
        click.echo(f"note: {note.text}")


@mesh_group.command("render")
@_source
@click.argument("host")
@click.option("--flavour", default=None, help="netplan, networkd, ifupdown, freebsd-rc, powershell, truenas-api.")
def render_command(request_file, prefix, mtu, host, flavour):
    """One host's configuration, ready to install (files) or to send (TrueNAS API calls)."""
    request, flags = _from_flags(request_file, prefix, mtu)
    rendered = RenderedConfig.model_validate(call("tengig.mesh.render", request, host, *([flavour] if flavour else []),
                                                  flags={**flags, "host": "HOST", "flavour": "--flavour"}))
    for f in rendered.files:
        click.echo(f"# --- {f.path} ---")
        click.echo(f.content, nl=False)
    for api_call in rendered.api_calls:
        click.echo(f"midclt call {api_call.method} " + " ".join(f"'{json.dumps(p)}'" for p in api_call.params))
    for w in rendered.warnings:
        click.echo(f"warning: {w}", err=True)


@mesh_group.command("labels")
@_source
@click.option("--csv", "as_csv", is_flag=True, help="CSV for label-printer software.")
def labels_command(request_file, prefix, mtu, as_csv):
    """Port and cable-end labels, printable."""
    plan = _plan(request_file, prefix, mtu)
    click.echo(plan.labels_csv if as_csv else plan.labels_text, nl=False)


@mesh_group.command("apply")
@_source
@click.option("--local", metavar="HOST", default=None, help="Apply on this machine, which is HOST of the plan.")
def apply_command(request_file, prefix, mtu, local):
    """Apply the plan (iproute2 + hosts block): all hosts change or none; re-applying changes nothing.
    Refused on a TrueNAS, whose network only TrueNAS changes (tengig.mesh.apply with system: truenas)."""
    request, flags = _from_flags(request_file, prefix, mtu)
    results = [MeshApplyResult.model_validate(r) for r in run_job(
        "tengig.mesh.apply", request, _where(local), label="mesh apply", flags={**flags, **WHERE_FLAGS})]
    for r in results:
        click.echo(f"{r.host}: " + ("; ".join(r.changes) if r.changed else "already as planned, nothing changed"))
    if any(not r.persistent for r in results):
        click.echo("runtime only: install the rendered file (`tengig mesh render HOST`) to keep it after a reboot")


@mesh_group.command("verify")
@_source
@click.option("--local", metavar="HOST", default=None, help="Check from this machine, which is HOST of the plan.")
@click.option("--no-throughput", is_flag=True, help="Skip the iperf3 matrix.")
@click.option("--seconds", type=click.IntRange(1, 60), default=default_of(TenGigMeshVerifyOptions, "seconds"),
              show_default=True, help="iperf3 seconds per pair.")
@click.option("--min-percent", type=click.FloatRange(1, 100),
              default=default_of(TenGigMeshVerifyOptions, "min_percent"), show_default=True,
              help="Share of a cable's ceiling it must reach, %.")
@click.option("--join", type=click.IntRange(1, 16), default=None, metavar="N",
              help="With --local: wait for N peers to join (tengig client join URL --token T --name HOST) and "
              "measure each one's cable to this machine, and each cable between two of them, both ways.")
@click.option("--join-timeout", type=click.IntRange(10, 3600),
              default=default_of(TenGigMeshVerifyOptions, "join_timeout"), show_default=True,
              help="With --join: seconds to wait for the peers.")
@click.option("--port", type=click.IntRange(1, 65535), default=JOIN_PORT, show_default=True,
              help="With --join: the port peers join on (this machine's every address).")
@click.option("--json", "as_json", is_flag=True)
def verify_command(request_file, prefix, mtu, local, no_throughput, seconds, min_percent, join, join_timeout, port,
                   as_json):
    """Ping, DF ping at MTU - 28, names, and the iperf3 matrix; exit 1 when anything fails. With --local
    HOST --join N, the peers join this machine's run and measure the matrix with it: this machine's cables,
    and the peers' cables between themselves (each run by its two ends)."""
    if join is not None and not local:
        raise ValidationError.one("--local", "with --join, name the plan host this machine is (--local HOST)")
    request, flags = _from_flags(request_file, prefix, mtu)
    if join is not None:
        result = _verify_joined(request, local, join, join_timeout, seconds, min_percent, port,
                                {**flags, **VERIFY_FLAGS})
    else:
        options = {**_where(local), "measure_throughput": not no_throughput, "seconds": seconds,
                   "min_percent": min_percent}
        result = MeshVerifyResult.model_validate(run_job("tengig.mesh.verify", request, options, label="mesh verify",
                                                         flags={**flags, **VERIFY_FLAGS}))
    if as_json:
        click.echo(result.model_dump_json(indent=1))
    else:
        for link in result.links:
            mark = "ok " if not link.problems else "BAD"
            rtt = f"{link.rtt_ms:.3f} ms" if link.rtt_ms is not None else "-"
            click.echo(f"{mark} {link.cable} {link.host}:{link.port} -> {link.peer} {link.peer_address}  ping "
                       f"{'yes' if link.ping_ok else 'NO'} ({rtt})  DF {link.df_size + 28} B "
                       f"{'yes' if link.df_ok else 'NO'}  {link.name} -> {', '.join(link.resolves_to) or 'nothing'}")
        for m in result.matrix:
            click.echo(f"{m.cable} {m.sender:>6} -> {m.receiver:<6} {m.goodput_bps / 1e6:9.1f} Mb/s  "
                       f"{m.percent_of_ceiling:5.1f}% of {m.ceiling_bps / 1e6:.1f} Mb/s")
        for u in result.unmeasured:
            click.echo(f"unmeasured: {u}")
        for p in result.problems:
            click.echo(f"problem: {p}")
        click.echo("mesh verified: every link works" if result.ok else f"mesh NOT ok: {len(result.problems)} problem(s)")
    if not result.ok:
        click.get_current_context().exit(1)


def _verify_joined(request: Any, local: str, join: int, join_timeout: int, seconds: int,
                   min_percent: float, port: int, flags: dict[str, str]) -> MeshVerifyResult:
    """tengig.mesh.verify from this machine (plan host ``local``), hosted here: its peers join on ``port``
    with --name HOST; errors name this command's flags."""
    options = {"system": "local", "hosts": [local], "join": join, "join_timeout": join_timeout, "seconds": seconds,
               "min_percent": min_percent}
    result = hosted(lambda api, show_join, bar, cancel: job(
        api, "tengig.mesh.verify", request, options, on_session=show_join, bar=bar, cancel=cancel),
        label=f"mesh verify from {local}, {join} peer(s) to join", port=port, listen=True, flags=flags,
        extra=" --name HOST")
    return MeshVerifyResult.model_validate(result)


@click.command("nic")
@click.option("--lab-host", default=None, metavar="HOST", help="A lab host instead of this machine.")
@click.option("--json", "as_json", is_flag=True)
def nic_command(lab_host, as_json):
    """Ports: link, speed, duplex, MTU, driver, card (PCI slot), link flaps."""
    options = {"system": "lab", "host": lab_host} if lab_host else {"system": "local"}
    nics = [Nic.model_validate(n) for n in call("tengig.nic.query", options,
                                                  flags={"options.host": "--lab-host", "options.system": "--lab-host"})]
    if as_json:
        click.echo(json.dumps([n.model_dump() for n in nics], indent=1))
        return
    for n in nics:
        speed = f"{n.speed_bps / 1e9:g} Gb/s" if n.speed_bps else "speed ?"
        click.echo(f"{n.name:<12} {n.link:<4} {speed:<11} {n.duplex or '-':<5} MTU {n.mtu:<5} {n.driver or '-':<10} "
                   f"card {n.card or '-':<11} flaps {n.link_flaps if n.link_flaps is not None else '?'} "
                   f"{' '.join(n.addresses)}")
