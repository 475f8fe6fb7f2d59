"""The LAGG view against the lab, through a real `tengig serve` (TengigServer) and Debian's chromium:
read the lab NAS's ports, plan an LACP bond of them (linux, 4 clients, member config cleared), see what
apply would run, then "Measure on the lab": the job's progress moves and each test shows measured vs
expected with the per-member shares. Every cable is 1 Gb/s, so one link's goodput is ~941 Mb/s; this
kernel has no bonding driver, so the tests go to the NAS's address on desk's cable: eth-desk carries
every byte and eth-lab is idle (tests/lab/test_lagg_verify_lab.py checks the same through the API).
Also, on the same lab (one lab up per module): each view in the light and the dark theme, the LAGG plan
among them, with recorded runs stored for the verdict, History and compare (stored_runs.py).
The lab is taken under /run/tengig/lab.lock (tests/conftest.py), up and down within this module."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tengig.lab import Lab, build_spec

from .browser import run_scenario
from .colours import TEXT_CONTRAST, contrast, rgb
from .conftest import page_url
from .stored_runs import store_recorded_runs

pytestmark = [pytest.mark.lab, pytest.mark.browser]

GOODPUT_1G_MBPS = 941.5  # TCP goodput of a 1 Gb/s link at MTU 1500


@pytest.fixture(scope="module")
def even_lab():
    if os.geteuid() != 0:
        pytest.fail("lab tests need root (run `make test` as root)")
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=1g", "lab-nas=1g", "desk-lab=1g"]))
    yield lab
    lab.down()


def _mbps(text: str) -> float:
    """'941.4 Mb/s' -> 941.4, '1.77 Gb/s' -> 1770.0; anything else fails the test."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?) (Mb|Gb)/s", text.strip())
    assert m, f"not a rate with its unit: {text!r}"
    return float(m[1]) * (1000 if m[2] == "Gb" else 1)


def test_plan_validate_and_measure_the_lab_nas_ports(even_lab, panel):
    report = run_scenario("lagg-measure", page_url(panel), panel.api_key, {"seconds": 2, "omit": 1})
    facts = report["facts"]
    assert facts["errors"] == [] and facts["measureErrors"] == []
    assert facts["consoleErrors"] == []

    # the inventory: both cable ends as physical ports at the cable's shaped rate, with their lab addresses
    ports = {row.split("\t")[1]: row for row in facts["nics"]}
    assert set(ports) == {"eth-desk", "eth-lab"}, facts["nics"]
    assert all("link up · 1 Gb/s" in row for row in ports.values()), facts["nics"]

    # the plan: both members, their addresses cleared, and 1 vs 4 flows per direction
    assert facts["headline"].startswith("bond1: LACP (802.3ad) over eth-desk, eth-lab, hash LAYER3+4"), facts["headline"]
    assert [m.split("\t")[0] for m in facts["members"]] == ["eth-desk", "eth-lab"]
    assert "address 10.250.12.1/24" in facts["members"][0] and "address 10.250.13.1/24" in facts["members"][1]
    assert [r.split("\t")[:3] for r in facts["throughput"]] == [
        ["read (NAS sends)", "1", "0.94 Gb/s"], ["read (NAS sends)", "4", "1.77 Gb/s"],
        ["write (NAS receives)", "1", "0.94 Gb/s"], ["write (NAS receives)", "4", "1.77 Gb/s"]], facts["throughput"]

    # what apply would run (Linux: iproute2), and its undo
    steps = facts["applySteps"].splitlines()
    assert steps[:2] == ["ip addr flush dev eth-desk", "ip addr flush dev eth-lab"], steps
    assert any(s.startswith("ip link add bond1 type bond mode 802.3ad") for s in steps), steps
    assert "ip link set dev eth-lab master bond1" in steps
    assert "ip addr add 10.250.12.1/24 dev eth-desk" in facts["undoSteps"]

    # the measurement's progress moved through the four tests, with each finished test's rate live
    moving = [p for p in facts["percents"] if 0 < p < 100]
    assert len(set(moving)) >= 2 and moving == sorted(moving), facts["percents"]
    assert {f"bond1: iperf3 {d}, {n} flow(s)" for d in ("read", "write") for n in (1, 4)} <= set(facts["descriptions"]), \
        facts["descriptions"]
    assert facts["live"] and all(re.fullmatch(r"(read|write), [14] flows?: \d+\.\d (Mb|Gb)/s", t) for t in facts["live"]), facts["live"]
    assert facts["state"] == "done"

    # the result: where it measured, and per test the numbers (real, in Mb/s or Gb/s), status, reason, shares
    assert facts["measureHeadline"].startswith("Measured from desk to nas at 10.250.12.1: "), facts["measureHeadline"]
    assert facts["measureHeadline"].endswith("eth-lab idle in every test."), facts["measureHeadline"]
    tests = facts["tests"]
    assert [t["key"] for t in tests] == ["lagg-test-read-1", "lagg-test-read-4", "lagg-test-write-1", "lagg-test-write-4"]
    for t in tests:
        assert 0 < _mbps(t["measured"]) <= 1.03 * GOODPUT_1G_MBPS, t  # the 1 Gb/s cable bounds it
        # the status is its own figures' (judged in lagg/verify.py): a busy machine can hold a test short
        assert t["status"] in ("as expected", "at the plan's low end", "below the plan's low end"), t
        assert [(s["name"], s["idle"]) for s in t["shares"]] == [("eth-desk", False), ("eth-lab", True)], t
        desk, lab = t["shares"]
        assert desk["text"].startswith("eth-desk 100.0% (") and desk["text"].endswith(" MB)") and desk["width"] == "100%", desk
        assert lab["text"].startswith("eth-lab IDLE 0.0% (") or lab["text"].startswith("eth-lab idle 0.0% ("), lab
    one, many = tests[0], tests[1]
    # one flow on one member is as the plan expects unless the machine held it short (then its row says how
    # far); four flows through one port are short of the plan's two members, whatever the load
    percent = int(re.search(r"(\d+)% of expected", one["row"])[1])
    assert one["status"] == "as expected" or percent < 91, one
    assert many["status"] in ("at the plan's low end", "below the plan's low end"), many
    assert "eth-desk carried 100% of the bytes" in many["reason"], many["reason"]
    assert report["screenshots"][-1].endswith("lagg-measure.png")
    assert any(s.endswith("lagg-measure-progress.png") for s in report["screenshots"])


def test_a_refused_measure_option_shows_its_error_in_words_and_no_numbers(even_lab, panel):
    report = run_scenario("lagg-measure-refused", page_url(panel), panel.api_key, {"client": "printer"})
    facts = report["facts"]
    # once, by the measure form, with the option's path; not in the view's error list too
    assert facts["measureErrors"] == ["options.client: 'printer' is not a client of lab (desk, lab)"], facts
    assert facts["errors"] == []
    assert facts["state"] == "failed: no result"
    assert (facts["tests"], facts["headline"]) == (0, 0)
    assert not re.search(r"\d\s*(Mb|Gb)/s", facts["progressText"]), facts["progressText"]


@pytest.fixture(scope="module")
def runs(panel) -> dict[str, int]:
    return store_recorded_runs()


def test_each_view_in_both_themes(even_lab, panel, runs):
    report = run_scenario("themes", page_url(panel), panel.api_key,
                          {"runId": runs["single"], "compare": [runs["single"], runs["joined"]]})
    facts = report["facts"]
    light, dark = facts["light"], facts["dark"]
    assert facts["consoleErrors"] == [] and light["errors"] == [] and dark["errors"] == []
    shots = {Path(s).name for s in report["screenshots"]}
    assert shots == {f"theme-{t}-{v}.png" for t in ("light", "dark") for v in ("verdict", "history", "compare", "mesh", "lagg")}

    # the themes differ: a dark page with light text, and the other way round
    assert rgb(light["page"]["bg"]) != rgb(dark["page"]["bg"])
    assert sum(rgb(dark["page"]["bg"])) < sum(rgb(dark["page"]["fg"]))
    assert sum(rgb(light["page"]["bg"])) > sum(rgb(light["page"]["fg"]))
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
        assert len(rows) >= 3  # the recorded runs (and any this module ran)
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
