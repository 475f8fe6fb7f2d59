"""`tengig lagg plan|validate|apply|verify`: link aggregation from this machine's NIC inventory (or a
request file), with the reasons and what to expect per direction. Every one calls tengig.lagg.* (and
tengig.nic.query for the ports) through the front door (front_door.py): the services decide where to act
and what to refuse; this module builds the request from the flags and prints the answer."""
from __future__ import annotations

import json
from typing import Any

import click

from ..api.models.base import default_of
from ..api.models.lagg import TenGigLaggApplied, TenGigLaggValidation, TenGigLaggVerifyOptions
from ..errors import ValidationError
from ..lagg.joined import JoinedLaggVerification
from ..lagg.measure import LaggVerification
from ..lagg.models import LaggPlan
from ..lagg.verify import LaggVerdict
from .front_door import REQUEST_FILE, Flags, call, front_door, hosted, job
from .joined_host import JOIN_PORT
from .request_file import read_request_file

# The API's fields as this command's flags (errors name them). With a request file its fields are the file's.
SOURCE_FLAGS = {**REQUEST_FILE, "request.platform": "--platform", "request.topology": "--topology",
                "request.goal": "--goal", "request.client_count": "--clients", "request.options.members": "--member",
                "request.options.clear_member_config": "--clear-member-config",
                "request.options.address": "--address", "request.options.protocol": "--protocol"}
VERIFY_FLAGS = {"options.client": "--client", "options.seconds": "--seconds", "options.join": "--join",
                "options.streams": "--streams", "options.join_timeout": "--join-timeout", "options.system": "--join",
                "request.members": "--member", "measurements": "--measurements", "measurements.": ""}


def _flags(source: dict[str, Any], more: Flags | None = None) -> Flags:
    return {**(REQUEST_FILE if source["request_file"] else SOURCE_FLAGS), **(more or {})}


def _nics(system: str, api) -> list[dict[str, Any]]:
    """The physical ports of this machine ('local') or of the lab's NAS ('lab'): tengig.nic.query."""
    found = call("tengig.nic.query", {"system": system}, api=api)
    return [n for n in found if n["kind"] == "physical"]


def _request(request_file, platform, topology, goal, clients, members, clear_member_config=False,
             address=None, protocol=None, *, api, nics: list[dict[str, Any]] | None = None) -> Any:
    """The LaggRequest the flags give, as the API takes it (the service checks it); without a request file
    from ``nics``, else this machine's ports (asked of ``api``)."""
    if request_file:
        for flag, given in (("--address", address), ("--protocol", protocol), ("--member", members)):
            if given:
                raise ValidationError.one(flag, f"{flag} is taken from the request file (--request): set it there")
        return read_request_file(request_file)
    doc = {"nics": _nics("local", api) if nics is None else nics, "platform": platform, "topology": topology,
           "goal": goal, "client_count": clients, "options": {}}
    if members:
        doc["options"]["members"] = list(members)
    if clear_member_config:
        doc["options"]["clear_member_config"] = True
    if address:
        doc["options"]["address"] = address
    if protocol:
        doc["options"]["protocol"] = protocol
    return doc


def _plan(request, api) -> LaggPlan:
    return LaggPlan.model_validate(call("tengig.lagg.plan", request, api=api))


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
    with front_door(_flags(source)) as api:
        plan = _plan(_request(**source, api=api), api)
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
    with front_door(_flags(source)) as api:
        validation = call("tengig.lagg.validate", _request(**source, api=api), api=api)
    rendered = TenGigLaggValidation.model_validate(validation).rendered
    for api_call in rendered.api_calls:
        click.echo(f"midclt call {api_call.method} " + " ".join(f"'{json.dumps(p)}'" for p in api_call.params))
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
    def run(api, on_session, bar, cancel):
        request = _request(**source, api=api)
        applied = TenGigLaggApplied.model_validate(job(api, "tengig.lagg.apply", request, {"system": "local"},
                                                       on_session=on_session, bar=bar, cancel=cancel))
        return applied, _plan(request, api) if as_json else None
    applied, plan = hosted(run, label="lagg apply", flags=_flags(source, {"options.system": "apply"}))
    click.echo(plan.model_dump_json(indent=1) if as_json else f"{applied.name} created ({len(applied.ran)} commands)")


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
        plan, result = _verify_joined(source, join, join_timeout, streams, seconds, port)
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
        measurements = read_request_file(measurements_file, "--measurements")
        with front_door(_flags(source, VERIFY_FLAGS)) as api:
            verdict = LaggVerdict.model_validate(call("tengig.lagg.analyse", _request(**source, api=api),
                                                      measurements, api=api))
        click.echo(verdict.model_dump_json(indent=1) if as_json else verdict.summary)
        return
    plan, result = _verify_on_the_lab(source, client, seconds)
    if as_json:
        click.echo(result.model_dump_json(indent=1))
        return
    click.echo(f"{plan.name} ({plan.protocol}, members {', '.join(m.name for m in plan.members)}) measured from "
               f"{result.client} to {result.nas} {result.lagg_address}:")
    click.echo(result.verdict.summary)


def _verify_on_the_lab(source: dict[str, Any], client: str | None, seconds: int) -> tuple[LaggPlan, LaggVerification]:
    """tengig.lagg.verify on the lab (system lab: it drives both ends). Without a request file the plan is made
    from the lab NAS's ports (tengig.nic.query): they carry the lab's own addresses, and verify changes
    nothing, so it plans as if they were cleared."""
    options = {"seconds": seconds, **({"client": client} if client else {})}

    def run(api, on_session, bar, cancel):
        nics = None if source["request_file"] else _nics("lab", api)
        request = _request(**_as_if_cleared(source), api=api, nics=nics)
        plan = _plan(request, api)
        return plan, LaggVerification.model_validate(job(api, "tengig.lagg.verify", request, options,
                                                          on_session=on_session, bar=bar, cancel=cancel))
    return hosted(run, label=f"lagg verify on the lab{f' from {client}' if client else ''}",
                  flags=_flags(source, VERIFY_FLAGS))


def _as_if_cleared(source: dict[str, Any]) -> dict[str, Any]:
    """Without a request file, the ports' own addresses are cleared in the plan (verify changes nothing)."""
    return {**source, "clear_member_config": source["clear_member_config"] or not source["request_file"]}


def _verify_joined(source: dict[str, Any], join: int, join_timeout: int, streams: int | None, seconds: int,
                   port: int) -> tuple[LaggPlan, JoinedLaggVerification]:
    """tengig.lagg.verify on this machine, the NAS, hosted here: the desktops join it on ``port``; errors
    name this command's flags."""
    options = {"system": "local", "join": join, "join_timeout": join_timeout, "seconds": seconds,
               **({"streams": streams} if streams else {})}

    def run(api, show_join, bar, cancel):
        request = _request(**_as_if_cleared(source), api=api)
        plan = _plan(request, api)
        return plan, JoinedLaggVerification.model_validate(job(api, "tengig.lagg.verify", request, options,
                                                                on_session=show_join, bar=bar, cancel=cancel))
    return hosted(run, label=f"lagg verify, {join} desktop(s) to join", port=port, listen=True,
                  flags=_flags(source, VERIFY_FLAGS))
