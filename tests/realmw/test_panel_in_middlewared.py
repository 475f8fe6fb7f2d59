"""The panel in TrueNAS's real middlewared (25.10.6 and 25.04.2.6, from source, tengig installed by its
installer): chromium opens /_plugins/tengig/, logs in through middlewared's auth.login_ex (a stand-in
checks the password; the models are middlewared's) with a username and password as on a TrueNAS, and
shows what tengig.* answers; a wrong password is refused in words with no data; an API key works too,
in every view; no request leaves middlewared's origin. Screenshots in test-output/."""
from __future__ import annotations

import json
import urllib.request

from ..ui.browser import SCREENSHOTS, UI_DIST, outside_origin, run_scenario
from .conftest import TEST_API_KEY, TEST_PASSWORD, TEST_USER

BUILTIN_TITLE = "15k rpm enterprise HDD"


def panel_url(truenas) -> str:
    return f"{truenas.http_url}/_plugins/tengig/"


def api_socket(truenas) -> str:
    return truenas.http_url.replace("http://", "ws://", 1) + "/api/current"


# middlewared's own methods the panel calls; 25.04's core.get_methods is private, so not listed by itself.
# (A call middlewared refused would also show on the page as an error, which the tests check.)
MIDDLEWARED_OWN = {"auth.login_ex", "core.subscribe", "core.get_methods"}


def not_in_middlewared(truenas, calls: list[str]) -> set[str]:
    """Methods the page called that this middlewared does not list (core.get_methods), beside its own."""
    return set(calls) - set(truenas.methods()) - MIDDLEWARED_OWN


def test_middlewared_serves_this_checkouts_build_of_the_panel(truenas):
    with urllib.request.urlopen(panel_url(truenas), timeout=30) as response:
        assert response.read() == (UI_DIST / "index.html").read_bytes()


def test_password_login_shows_the_targets_tengig_answers(truenas):
    shot = f"panel-in-middlewared-{truenas.build.version}"
    report = run_scenario("password-targets", panel_url(truenas), "",
                          params={"username": TEST_USER, "password": TEST_PASSWORD, "shot": shot})
    facts = report["facts"]
    assert facts["errors"] == [] and facts["consoleErrors"] == []
    assert facts["who"].startswith(f"{TEST_USER} ·")
    # the view shows every target tengig.targets.query answers in this middlewared, the built-in 15k HDD first
    done = truenas.midclt("call", "tengig.targets.query")
    assert done.returncode == 0, done.stderr
    titles = [t["title"] for t in json.loads(done.stdout)]
    assert titles[0].startswith(BUILTIN_TITLE)
    assert len(facts["targets"]) == len(titles)
    assert all(title in row for title, row in zip(titles, facts["targets"])), facts["targets"]
    assert TEST_PASSWORD not in facts["storage"]
    assert facts["afterReload"] == {"passwordChosen": True, "username": TEST_USER, "password": "", "tabs": 0}
    assert report["calls"][0] == "auth.login_ex" and "tengig.targets.query" in report["calls"]
    assert not_in_middlewared(truenas, report["calls"]) == set()
    assert any(call.startswith("tengig.") for call in report["calls"])
    assert api_socket(truenas) in report["requests"]
    assert outside_origin(report["requests"], truenas.http_url) == []
    assert report["screenshots"] == [str(SCREENSHOTS / f"{shot}.png")]


def test_a_wrong_password_is_refused_in_words_once_and_shows_no_data(truenas):
    shot = f"panel-in-middlewared-refused-{truenas.build.version}"
    report = run_scenario("password-refused", panel_url(truenas), "",
                          params={"username": TEST_USER, "wrongPassword": "not-" + TEST_PASSWORD, "shot": shot})
    facts = report["facts"]
    assert facts["errors"] == [f"Wrong username or password: the server refused to log in {TEST_USER}.\ndismiss"]
    assert (facts["tabs"], facts["targets"]) == (0, 0)
    assert facts["passwordField"] == ""
    assert report["requests"].count(api_socket(truenas)) == 2
    assert report["calls"] == ["auth.login_ex", "auth.login_ex"]  # no data asked, nor what TrueNAS fails unauthenticated
    assert outside_origin(report["requests"], truenas.http_url) == []
    assert report["screenshots"] == [str(SCREENSHOTS / f"{shot}.png")]


def test_an_api_key_login_opens_every_view(truenas):
    shot = f"panel-in-middlewared-apikey-{truenas.build.version}"
    report = run_scenario("tour", panel_url(truenas), TEST_API_KEY, params={"username": TEST_USER, "shot": shot})
    facts = report["facts"]
    assert facts["errors"] == [] and facts["consoleErrors"] == []
    assert set(facts["seen"]) == {"verdict", "run", "history", "mesh", "lagg", "targets"}
    assert "hdd-15k-best" in facts["seen"]["targets"]
    assert not_in_middlewared(truenas, report["calls"]) == set()
    assert any(call.startswith("tengig.") for call in report["calls"])
    assert outside_origin(report["requests"], truenas.http_url) == []
