"""`tengig lagg plan|validate|apply`: link aggregation from this machine's NIC inventory (or a
request file), with the reasons and what to expect per direction."""
from __future__ import annotations

import json

import click

from ..api.models.base import default_of
from ..api.models.lagg import TenGigLaggVerifyOptions
from ..backends.linux.bond import apply_bond, bonding_support
from ..backends.linux.nics import linux_nics
from ..errors import ValidationError
from ..bench.context import BenchContext
from ..lab.nics import lab_nics
from ..lagg import analyse, plan_lagg, render
from ..bench.run.over_api import run_over_api
from ..lagg.joined import JoinedLaggVerification
from ..lagg.measure import choose_endpoints, verify_on
from ..lagg.request import LaggRequest
from ..lagg.validate import parse_request
from ..systems.local import truenas_here
from ..systems.resolve import lagg_system, refuse_iproute2_on_truenas
from ..runner import Runner
from .joined_host import JOIN_PORT, run_hosted
from .progress import with_ctrl_c
from .request_file import read_request_file


LAGG_THROUGH_TRUENAS = ("system: truenas, with the tengig plugin in its middlewared (tengig plugin install): "
                        "midclt call -j tengig.lagg.apply REQUEST '{\"system\": \"truenas\", \"probe_address\": "
                        "\"PEER\"}'")


def _request(request_file, platform, topology, goal, clients, members, clear_member_config=False,
             nics=None, address=None, protocol=None) -> LaggRequest:
    if request_file:
        for flag, given in (("--address", address), ("--protocol", protocol), ("--member", members)):
            if given:
                raise ValidationError.one(flag, f"{flag} is taken from the request file (--request): set it there")
        doc = read_request_file(request_file)
    else:
        nics = linux_nics() if nics is None else nics
        doc = {"nics": [n.model_dump() for n in nics if n.kind == "physical"], "platform": platform,
               "topology": topology, "goal": goal, "client_count": clients, "options": {}}
        if members:
            doc["options"]["members"] = list(members)
        if clear_member_config:
            doc["options"]["clear_member_config"] = True
        if address:
            doc["options"]["address"] = address
        if protocol:
            doc["options"]["protocol"] = protocol
    return parse_request(doc)


def _source(f):
    for opt in reversed([
        click.option("--request", "request_file", metavar="FILE", help="LaggRequest as JSON; default: this machine's ports."),
        click.option("--platform", type=click.Choice(["truenas-scale", "truenas-core", "linux", "freebsd"]),
                     default="linux", show_default=True),
        click.option("--topology", type=click.Choice(["lacp-switch", "unmanaged-switch", "switchless-peer", "many-clients"]),
                     default="lacp-switch", show_default=True),
        click.option("--goal", type=click.Choice(["aggregate-many-clients", "one-client-faster", "failover"]),
                     default="aggregate-many-clients", show_default=True),
        click.option("--clients", type=click.IntRange(1, 10000), default=1, show_default=True),
        click.option("--member", "members", multiple=True, metavar="PORT", help="Pin a member port (repeat)."),
        click.option("--clear-member-config", is_flag=True,
                     help="Members that have their own addresses get them removed (else they are refused as in use)."),
        click.option("--address", metavar="ADDRESS/PREFIX", help="IPv4 address of the LAGG, e.g. 10.20.0.5/24."),
        click.option("--protocol", type=click.Choice(["LACP", "FAILOVER", "LOADBALANCE", "ROUNDROBIN"]),
                     help="Force a protocol (TrueNAS names); default: chosen from topology and goal."),
    ]):
        f = opt(f)
    return f


@click.group("lagg")
def lagg_group() -> None:
    """Link aggregation: plan (members across cards, expected throughput), validate, apply."""


@lagg_group.command("plan")
@_source
@click.option("--json", "as_json", is_flag=True)
def plan_command(as_json, **source):
    """Protocol, members, hash policy and what to expect per direction, with alternatives."""
    plan = plan_lagg(_request(**source))
    if as_json:
        click.echo(plan.model_dump_json(indent=1))
        return
    members_text = ", ".join(f"{m.name} [card {m.card or '?'}]" for m in plan.members)
    click.echo(f"{plan.name}: {plan.protocol} ({plan.protocol_native}) over {members_text}; MTU {plan.mtu}")
    click.echo(f"why: {plan.protocol_reason}")
    for t in plan.throughput:
        click.echo(f"{t.direction:5} {t.flows:3} flow(s) {t.bps / 1e9:6.2f} Gb/s  {t.reason}")
    for a in plan.alternatives:
        click.echo(f"alternative: {a.title} ({a.why})")
    for n in plan.notes:
        click.echo(f"note: {n.text}")


@lagg_group.command("validate")
@_source
def validate_command(**source):
    """Check the request as TrueNAS would, and print what apply would run."""
    rendered = render(plan_lagg(_request(**source)))
    for call in rendered.api_calls:
        click.echo(f"midclt call {call.method} " + " ".join(f"'{json.dumps(p)}'" for p in call.params))
    for argv in rendered.commands:
        click.echo(" ".join(argv))
    for f in rendered.files:
        click.echo(f"# --- {f.path} ---\n{f.content}", nl=False)
    click.echo("valid")


@lagg_group.command("apply")
@_source
@click.option("--json", "as_json", is_flag=True, help="Print the applied plan as JSON (what to verify it against).")
def apply_command(as_json, **source):
    """Create the bond on this Linux machine (refused where the kernel has no bonding driver, and on a TrueNAS)."""
    refuse_iproute2_on_truenas(truenas_here(), field="apply", instead=LAGG_THROUGH_TRUENAS)
    plan = plan_lagg(_request(**source))
    if plan.platform != "linux":
        raise ValidationError.one("--platform", "apply on this machine takes a Linux plan")
    ran = apply_bond(render(plan), Runner(), support=bonding_support())
    click.echo(plan.model_dump_json(indent=1) if as_json else f"{plan.name} created ({len(ran)} commands)")


@lagg_group.command("verify")
@_source
@click.option("--measurements", "measurements_file", metavar="FILE",
              help="Analyse iperf3 results and member counters measured elsewhere (VerifyRequest JSON) instead.")
@click.option("--client", default=None, metavar="HOST", help="Lab host that runs the iperf3 client (default: the first).")
@click.option("--seconds", type=click.IntRange(1, 120), default=default_of(TenGigLaggVerifyOptions, "seconds"),
              show_default=True, help="Measured seconds per test.")
@click.option("--join", type=click.IntRange(1, 16), default=None, metavar="N",
              help="Verify on this machine, the NAS, with N desktops that join: each runs the join command shown "
              "(over an address on the LAGG).")
@click.option("--port", type=click.IntRange(1, 65535), default=JOIN_PORT, show_default=True,
              help="With --join: the port desktops join on (this machine's every address).")
@click.option("--join-timeout", type=click.IntRange(10, 3600), default=default_of(TenGigLaggVerifyOptions, "join_timeout"),
              show_default=True, help="With --join: seconds to wait for the desktops.")
@click.option("--streams", type=click.IntRange(1, 64), default=None,
              help="With --join: the N of each desktop's N-flow tests (default: the plan's).")
@click.option("--json", "as_json", is_flag=True)
def verify_command(measurements_file, client, seconds, join, port, join_timeout, streams, as_json, **source):
    """Measure the LAGG (iperf3 1 and N flows, both ways; member byte counters) against the plan: on the lab,
    or with --join on this NAS with the desktops that join.

    Without --request the plan is made from the NAS's own ports (the lab has no bonding driver: its ports
    stand in as members, and the counters show which of them carried the flows)."""
    if join is not None:
        if client or measurements_file:
            raise ValidationError.one("--client" if client else "--measurements", "with --join the desktops that "
                                      "join are the far end and measure now; leave it out")
        request = _request(**{**source, "clear_member_config": source["clear_member_config"]
                              or not source["request_file"]})
        plan = plan_lagg(request)
        result = _verify_joined(request, join, join_timeout, streams, seconds, port)
        if as_json:
            click.echo(result.model_dump_json(indent=1))
            return
        click.echo(f"{plan.name} ({plan.protocol}, members {', '.join(result.members)}) measured on {result.nas} with "
                   f"{len(result.desktops)} desktop(s) joined:")
        if result.emulated:
            click.echo(f"emulated: {result.emulated}")
        click.echo(result.summary)
        return
    if measurements_file:
        plan = plan_lagg(_request(**source))
        verdict = analyse(plan, read_request_file(measurements_file))
        click.echo(verdict.model_dump_json(indent=1) if as_json else verdict.summary)
        return
    system = lagg_system()
    nics = None if source["request_file"] else lab_nics(system.lab, system.nas)
    # The lab's ports carry the lab's own addresses; verify changes nothing, so plan as if cleared.
    plan = plan_lagg(_request(**{**source, "clear_member_config": source["clear_member_config"]
                                 or not source["request_file"]}, nics=nics))
    endpoints = choose_endpoints(system, plan, client=client)

    def work(bar, cancel):
        return verify_on(system, plan, BenchContext(system.hosts, progress=bar, cancel=cancel), endpoints,
                         seconds=seconds, omit=default_of(TenGigLaggVerifyOptions, "omit"))
    result = with_ctrl_c(f"lagg verify {endpoints.client} -> {system.nas} {endpoints.lagg_address}", work)
    if as_json:
        click.echo(result.model_dump_json(indent=1))
        return
    click.echo(f"{plan.name} ({plan.protocol}, members {', '.join(m.name for m in plan.members)}) measured from "
               f"{result.client} to {result.nas} {result.lagg_address}:")
    click.echo(result.verdict.summary)


JOIN_FLAGS = {"options.join": "--join", "options.streams": "--streams", "options.seconds": "--seconds",
              "options.join_timeout": "--join-timeout", "request.members": "--member", "request.options.members": "--member"}


def _verify_joined(request: LaggRequest, join: int, join_timeout: int, streams: int | None, seconds: int, port: int):
    """tengig.lagg.verify on this machine, the NAS, hosted here: the desktops join it on ``port``; errors
    name this command's flags."""
    options = {"system": "local", "join": join, "join_timeout": join_timeout, "seconds": seconds,
               **({"streams": streams} if streams else {})}
    result = run_hosted(lambda api, show_join, bar, cancel: run_over_api(
        api, request.model_dump(mode="json"), method="tengig.lagg.verify", options=options, on_session=show_join,
        progress=bar, cancel=cancel, field_prefix=""), label=f"lagg verify, {join} desktop(s) to join", port=port,
        listen=True, flags=JOIN_FLAGS)
    return JoinedLaggVerification.model_validate(result)
