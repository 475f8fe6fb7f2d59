"""The panel without the lab: login refused in words, every view served with no request leaving
the machine, the same build behind TrueNAS's /_plugins/tengig/ route, the mesh plan diagram, a stored
run copied and saved as Markdown."""
from __future__ import annotations

import re

import pytest

from tengig.results.store import ResultStore

from .browser import UI_DIST, non_local, run_scenario
from .conftest import page_url
from .stored_runs import store_recorded_runs

pytestmark = pytest.mark.browser  # a tengig serve and a browser: runs beside the lab's tests (scripts/test.sh)


def test_a_wrong_api_key_is_refused_in_words(panel):
    report = run_scenario("bad-key", page_url(panel), "1-not-a-real-key")
    assert report["facts"]["tabs"] == 0
    assert report["facts"]["errors"] == ["Wrong username or API key: the server refused to log in root.\ndismiss"]


def test_a_password_login_on_tengig_serve_says_it_takes_api_keys(panel):
    """tengig serve has no password login: its refusal (a schema error today, AUTH_ERR with
    auth.mechanism_choices offering API_KEY_PLAIN only once it answers as TrueNAS does) reads as that."""
    report = run_scenario("password-refused", page_url(panel), "",
                          params={"username": "root", "wrongPassword": "anything", "shot": "login-password-tengig-serve"})
    facts = report["facts"]
    assert (facts["tabs"], facts["passwordField"]) == (0, "")
    assert facts["errors"] == ["This server does not log in with a password (it takes: API key): choose “API key” "
                               "and log in with a key (for tengig serve: tengig apikey create NAME).\ndismiss"]


def test_production_build_served_by_tengig_makes_no_external_request(panel):
    report = run_scenario("tour", page_url(panel), panel.api_key)
    assert report["facts"]["errors"] == []
    assert report["facts"]["consoleErrors"] == []
    assert set(report["facts"]["seen"]) == {"verdict", "run", "history", "mesh", "lagg", "targets"}
    assert "hdd-15k-best" in report["facts"]["seen"]["targets"]
    requests = report["requests"]
    assert any(u.endswith("/api/current") and u.startswith("ws://127.0.0.1") for u in requests), requests
    assert any("/assets/" in u for u in requests), requests
    assert non_local(requests) == []


def test_built_files_name_no_external_host():
    """Nothing in the build points off the machine (no CDN, no web font, no analytics)."""
    hits = []
    for path in UI_DIST.rglob("*"):
        if path.suffix in (".html", ".js", ".css"):
            for url in re.findall(r"""(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}[^\s"'`)]*""", path.read_text()):
                # SVG/XML namespaces, and the docs link in Vue's production error text: words, never fetched
                if not url.startswith(("//www.w3.org", "http://www.w3.org", "https://vuejs.org/error-reference")):
                    hits.append(f"{path.name}: {url}")
    assert hits == []
    index = (UI_DIST / "index.html").read_text()
    assert re.findall(r'(?:src|href)="([^"]+)"', index) and all(
        ref.startswith(("./", "data:")) for ref in re.findall(r'(?:src|href)="([^"]+)"', index))


def test_the_same_build_works_behind_truenas_plugin_route(panel, plugin_route):
    report = run_scenario("tour", plugin_route, panel.api_key)
    assert report["facts"]["errors"] == []
    assert report["facts"]["consoleErrors"] == []
    assert any(u.startswith(plugin_route + "assets/") for u in report["requests"]), report["requests"]
    assert non_local(report["requests"]) == []


def test_mesh_plan_shows_the_diagram(panel):
    if "tengig.mesh.plan" not in panel.server.middleware.methods:
        pytest.skip("tengig.mesh.plan is not on this branch yet")
    report = run_scenario("mesh-plan", page_url(panel), panel.api_key)
    facts = report["facts"]
    assert facts["errors"] == []
    assert sorted(facts["nodes"]) == ["mesh-node-desk", "mesh-node-lab", "mesh-node-nas"]
    assert any("1 Gb/s" in e for e in facts["edges"]), facts["edges"]
    assert facts["counts"].startswith("3 hosts, 3 cables, 6 ports")


def test_mesh_view_offers_apply_and_verify_and_confirms_before_applying(panel):
    methods = panel.server.middleware.methods
    if "tengig.mesh.apply" not in methods or "tengig.mesh.verify" not in methods:
        pytest.skip("tengig.mesh.apply/verify are not on this branch yet")
    facts = run_scenario("mesh-plan", page_url(panel), panel.api_key)["facts"]
    assert facts["errors"] == []
    assert (facts["applyButton"], facts["verifyButton"]) == (1, 1)
    assert facts["missingNote"] == []
    assert sorted(facts["targets"]) == ["desk", "lab", "nas"]
    assert facts["confirm"].startswith("Apply the plan on the lab: desk, lab, nas will get the planned addresses"), facts["confirm"]
    assert facts["confirmAfterCancel"] == 0


@pytest.fixture(scope="module")
def runs(panel) -> dict[str, int]:
    return store_recorded_runs()


def test_a_run_is_copied_and_saved_as_the_servers_markdown(panel, runs):
    report = run_scenario("share-markdown", page_url(panel), panel.api_key, {"runId": runs["joined"]})
    facts = report["facts"]
    expected = ResultStore().export_markdown(runs["joined"])
    assert facts["errors"] == [] and facts["consoleErrors"] == []
    assert facts["filename"] == f"tengig-run-{runs['joined']}.md"
    assert facts["downloaded"] == expected
    assert facts["clipboard"] == expected
    assert facts["copyStatus"] == "copied as Markdown"
    assert "desk" in expected and "lab" in expected  # the joined run's two clients, as the server wrote them
