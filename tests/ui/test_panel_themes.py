"""The panel in the light and the dark theme, and a run shared as Markdown, through a real `tengig serve`
(TengigServer) and Debian's chromium. The results database holds recorded lab runs (the panel's own
fixtures, ui/src/fixtures): desk alone over its 1 Gb/s link, desk and lab joined at once, a failed run.
The verdict, History (one line per run), the comparison of two runs, the mesh plan and the LAGG plan of
the lab NAS's two ports are each shot in both themes (test-output/theme-<theme>-<view>.png) and their
colours read back: the themes differ, text keeps its contrast, equal figures get equal bars.
The lab (two 1 Gb/s cables, for the LAGG view) is taken under /run/tengig/lab.lock (tests/conftest.py)."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tengig.lab import Lab, build_spec
from tengig.results.models import Environment
from tengig.results.store import ResultStore

from .browser import ROOT, run_scenario
from .conftest import page_url

pytestmark = pytest.mark.lab

FIXTURES = ROOT / "ui" / "src" / "fixtures"
TEXT_CONTRAST = 4.5  # WCAG AA for body text


@pytest.fixture(scope="module")
def nas_ports_lab():
    if os.geteuid() != 0:
        pytest.fail("lab tests need root (run `make test` as root)")
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=1g", "lab-nas=1g"]))
    yield lab
    lab.down()


def _store(run: dict, kind: str, results: dict, verdict: dict | None) -> int:
    """One finished run in the panel server's database (TENGIG_DB, set by the panel fixture)."""
    store = ResultStore()
    env = Environment.model_validate(run["environment"]) if run.get("environment") else None
    run_id = store.start_run(kind, run["inputs"], env)
    store.finish_run(run_id, "success", results=results, verdict=verdict)
    return run_id


@pytest.fixture(scope="module")
def runs(panel) -> dict[str, int]:
    single = json.loads((FIXTURES / "run-lab-desk-1g.json").read_text())
    joined = json.loads((FIXTURES / "run-joined-desk-lab.json").read_text())
    ids = {
        "single": _store(single, "all", single["results"], single["verdict"]),
        "joined": _store({**single, "inputs": {**single["inputs"], "kind": "smb", "join": 2}}, "smb", joined,
                         joined["clients"][0]["verdict"]),
    }
    store = ResultStore()
    failed = store.start_run("smb", single["inputs"], None)
    store.finish_run(failed, "failed", error="smbclient on desk: NT_STATUS_CONNECTION_REFUSED")
    ids["failed"] = failed
    return ids


def _rgb(css: str) -> tuple[float, ...]:
    m = re.fullmatch(r"rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)", css)
    assert m, f"not a computed colour: {css!r}"
    assert m[4] is None or float(m[4]) == 1, f"a see-through colour cannot be judged: {css}"
    return tuple(int(m[i]) for i in (1, 2, 3))


def contrast(pair: dict[str, str]) -> float:
    """WCAG contrast ratio of {fg, bg} (computed rgb() strings), 1 to 21."""
    def luminance(css: str) -> float:
        lin = [c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in _rgb(css)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((luminance(pair["fg"]), luminance(pair["bg"])), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_each_view_in_both_themes(nas_ports_lab, panel, runs):
    report = run_scenario("themes", page_url(panel), panel.api_key,
                          {"runId": runs["single"], "compare": [runs["single"], runs["joined"]]})
    facts = report["facts"]
    light, dark = facts["light"], facts["dark"]
    assert facts["consoleErrors"] == [] and light["errors"] == [] and dark["errors"] == []
    shots = {Path(s).name for s in report["screenshots"]}
    assert shots == {f"theme-{t}-{v}.png" for t in ("light", "dark") for v in ("verdict", "history", "compare", "mesh", "lagg")}

    # the themes differ: a dark page with light text, and the other way round
    assert _rgb(light["page"]["bg"]) != _rgb(dark["page"]["bg"])
    assert sum(_rgb(dark["page"]["bg"])) < sum(_rgb(dark["page"]["fg"]))
    assert sum(_rgb(light["page"]["bg"])) > sum(_rgb(light["page"]["fg"]))
    for theme, seen in (("light", light), ("dark", dark)):
        for what in ("page", "verdict", "muted", "barValue", "historyText", "chartLegend", "meshHost", "meshLabel",
                     "laggHeadline"):
            assert contrast(seen[what]) >= TEXT_CONTRAST, (theme, what, seen[what])
        assert contrast(seen["barFill"]) >= 1.5, (theme, seen["barFill"])  # a bar stands out from its track

        # one scale per verdict: the 117.7 MB/s link is the same bar in read and write; the pools differ
        bars = seen["bars"]
        assert bars["ceiling-read-link"] == pytest.approx(bars["ceiling-write-link"], abs=0.5), bars
        assert bars["ceiling-write-pool"] > 1.4 * bars["ceiling-read-pool"], bars  # 470.1 vs 310.3 MB/s

        # History: one line per run, the summary paragraph is not there
        assert seen["historyOverflow"] == 0  # the table fits its card at 1200 px: no sideways scrolling
        rows = seen["historyRows"]
        assert len(rows) == 3
        for row in rows:
            assert row["height"] < 2 * row["lineHeight"], row
            assert "Against 15k rpm" not in row["text"], row
        assert any(re.search(r"\tloses\tread -48\.3%\tLink$", r["text"]) for r in rows), [r["text"] for r in rows]
        assert any("failed: smbclient on desk" in r["text"] for r in rows)

        # compare: which ceiling moved, in the server's words, and the ceilings table
        assert seen["moved"] and all(re.match(r"(aggregate|desk|lab) (read|write): ", line) for line in seen["moved"])
        assert any(" link " in line for line in seen["moved"]), seen["moved"]
        assert seen["ceilingRows"], seen

    # the toggle against the browser's dark: light, remembered over a reload
    assert facts["toggled"] == ["light", "light"]
    assert facts["afterReload"] == "light"


def test_a_run_is_copied_and_saved_as_the_servers_markdown(nas_ports_lab, panel, runs):
    report = run_scenario("share-markdown", page_url(panel), panel.api_key, {"runId": runs["joined"]})
    facts = report["facts"]
    expected = ResultStore().export_markdown(runs["joined"])
    assert facts["errors"] == [] and facts["consoleErrors"] == []
    assert facts["filename"] == f"tengig-run-{runs['joined']}.md"
    assert facts["downloaded"] == expected
    assert facts["clipboard"] == expected
    assert facts["copyStatus"] == "copied as Markdown"
    assert "desk" in expected and "lab" in expected  # the joined run's two clients, as the server wrote them
