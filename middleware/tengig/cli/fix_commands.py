"""`tengig fix RUN [FIX]` and `tengig fix undo RUN`: clients of tengig.fix, hosted in this process as `tengig
bench` is. The first shows what answers the run's advice (each fix with its setting's value now and the SMB
figure it predicts; the advice that stays words, with why), asks before it changes anything (y/N, or --yes),
then applies it as a job the desktops join again (the command prints what each runs), and says whether the
change was kept, with the copies before and after."""
from __future__ import annotations

import json
import os
from typing import Any

import click

from ..bench.run.over_api import run_over_api
from ..errors import ValidationError
from ..fix.models import FixOutcome, FixPlan
from ..fix.plan import predicted_text
from .in_process import in_process_api
from .joined_host import JOIN_PORT, run_hosted
from .words import in_cli_words

FIX_FLAGS = {"fix": "FIX", "run_id": "RUN", "confirm": "--yes", "join_timeout": "--join-timeout",
             "force_busy": "--force-busy", "checkin_timeout": "--checkin-timeout"}


class _DefaultApply(click.Group):
    """`tengig fix RUN [FIX]` is `tengig fix apply RUN [FIX]`: a first word that is no subcommand is a run."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["apply", *args]
        return super().parse_args(ctx, args)


def plan_text(plan: FixPlan) -> str:
    lines = [f"run {plan.run_id}: {len(plan.fixes)} fix(es) answer its advice"]
    for f in plan.fixes:
        now = f.from_value if f.from_value is not None else f"unknown now (the run saw: {f.run_read})"
        lines += [f"  {f.name} ({f.client}'s {f.rule}): {f.setting.text()} {now} -> {f.to_value}",
                  f"    how: {f.call}",
                  f"    predicted: {f.gain_unknown or predicted_text(f) or 'no gain the run can predict'}"]
        lines += [f"      {p.why}" for p in f.predictions]
    for w in plan.words:
        lines.append(f"  stays advice: {w.rule}{f' ({w.client})' if w.client else ''}: {w.why}")
    return "\n".join(lines)


def outcome_text(out: FixOutcome) -> str:
    said = "kept" if out.state == "kept" else "put back"
    lines = [f"fix {out.fix_id} ({out.fix.name}): {said}: {out.why}"]
    if out.after_run_id is not None:
        lines.append(f"runs: before {out.run_id}, after {out.after_run_id} (`tengig results compare {out.run_id} "
                     f"{out.after_run_id}`)")
    for p in out.fix.predictions:
        after = next((g.after_median for g in out.gains if g.direction == p.direction), None)
        if after is not None:
            lines.append(f"predicted {p.direction} {p.predicted_bytes_per_s / 1e6:.1f} MB/s, measured "
                         f"{after / 1e6:.1f} MB/s ({100 * (after - p.predicted_bytes_per_s) / p.predicted_bytes_per_s:+.0f}%)")
    if out.state == "kept":
        lines.append(f"`tengig fix undo {out.run_id}` puts back {out.previous}")
    return "\n".join(lines)


@click.group("fix", cls=_DefaultApply)
def fix_group() -> None:
    """Answer a run's advice with a change of the NAS, and prove it: `tengig fix RUN [FIX]` (FIX: a fix's name,
    when the run has several), `tengig fix undo RUN`."""


@fix_group.command("apply")
@click.argument("run_id", metavar="RUN", type=click.IntRange(1))
@click.argument("fix", metavar="[FIX]", required=False)
@click.option("--yes", is_flag=True, help="Apply without asking (the change is still shown).")
@click.option("--join-timeout", type=click.IntRange(10, 3600), default=None,
              help="Seconds to wait for the desktops to join the re-measure (default: the run's).")
@click.option("--force-busy", is_flag=True, help="Apply it even while the NAS is busy with something else (an SMB "
              "session that is not the run's, a scrub on the pool): refused without it, naming what.")
@click.option("--checkin-timeout", type=click.IntRange(5, 600), default=None,
              help="A network fix on a TrueNAS: seconds of its rollback timer, within which the desktops must "
              "answer (default 60).")
@click.option("--port", type=click.IntRange(1, 65535), default=JOIN_PORT, show_default=True,
              help="The port desktops join the re-measure on (this machine's every address).")
@click.option("--json", "as_json", is_flag=True, help="Print the plan, or the outcome, as JSON.")
@click.option("--db", default=None, help="Results database (default $TENGIG_DB or /var/lib/tengig/results.sqlite3).")
def apply_command(run_id: int, fix: str | None, yes: bool, join_timeout: int | None, force_busy: bool,
                  checkin_timeout: int | None, port: int, as_json: bool, db: str | None) -> None:
    """Show what answers run RUN's advice; with one fix (or FIX named), ask, apply it, measure SMB again with the
    same desktops, keep it only for a real gain."""
    if db:
        os.environ["TENGIG_DB"] = db  # the service reads where the command was told
    with in_process_api() as api:
        plan = FixPlan.model_validate(api.call("tengig.fix.plan", run_id))
        share = api.call("tengig.results.get", run_id)["inputs"].get("share")
    if fix is None and len(plan.fixes) != 1:
        click.echo(json.dumps(plan.model_dump(mode="json"), indent=1) if as_json else plan_text(plan))
        if plan.fixes:
            click.echo(f"\nname one: tengig fix {run_id} FIX", err=True)
        return
    chosen = [f for f in plan.fixes if fix is None or fix in (f.name, f.rule)]
    if not as_json:
        click.echo(plan_text(plan.model_copy(update={"fixes": chosen or plan.fixes})))
    if chosen and not yes and not click.confirm(f"apply {chosen[0].name}: {chosen[0].setting.text()} -> "
                                                f"{chosen[0].to_value}?", default=False, err=True):
        click.echo("nothing changed", err=True)
        return
    request: dict[str, Any] = {"run_id": run_id, "fix": fix, "confirm": True}
    if join_timeout is not None:
        request["join_timeout"] = join_timeout
    if force_busy:
        request["force_busy"] = True
    if checkin_timeout is not None:
        request["checkin_timeout"] = checkin_timeout
    try:
        result = run_hosted(lambda api, show_join, bar, cancel: run_over_api(
            api, request, on_session=show_join, progress=bar, cancel=cancel, method="tengig.fix.apply"),
            label="fix", port=port, listen=True, share=share)
    except ValidationError as exc:
        raise in_cli_words(exc, FIX_FLAGS) from exc
    out = FixOutcome.model_validate(result)
    click.echo(json.dumps(out.model_dump(mode="json"), indent=1) if as_json else outcome_text(out))


@fix_group.command("undo")
@click.argument("run_id", metavar="RUN", type=click.IntRange(1))
@click.option("--db", default=None, help="Results database (default $TENGIG_DB or /var/lib/tengig/results.sqlite3).")
def undo_command(run_id: int, db: str | None) -> None:
    """Put back the value before every fix run RUN kept."""
    if db:
        os.environ["TENGIG_DB"] = db
    with in_process_api() as api:
        for line in api.call("tengig.fix.undo", run_id):
            click.echo(line)
