"""The panel in TrueNAS's real middlewared (25.10.6 and 25.04.2.6, from source, tengig installed by its
installer): chromium opens /_plugins/tengig/, logs in through middlewared's auth.login_ex (a stand-in
checks the password; the models are middlewared's) with a username and password as on a TrueNAS, and
shows what tengig.* answers; a wrong password is refused in words with no data; an API key works too,
in every view; no request leaves middlewared's origin, not even when a link names another server
(`?api=ws://...`, issue 23); the route sends tengig serve's security headers. Screenshots in test-output/."""
from __future__ import annotations

import json
import urllib.request
from urllib.parse import quote

import pytest

from tengig.server.security_headers import HEADERS

from ..ui.browser import SCREENSHOTS, UI_DIST, outside_origin, run_scenario
from ..ui.ws_logger import ws_logger
from .conftest import TEST_API_KEY, TEST_PASSWORD, TEST_USER
from .test_plugin_in_middlewared import http_get

pytestmark = [pytest.mark.realmw, pytest.mark.browser]  # no lab: runs beside the lab's tests (scripts/test.sh)

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


@pytest.mark.abuse
def test_the_panel_route_sends_the_security_headers_of_tengig_serve(truenas):
    """The page, a script and a 404 each carry every header `tengig serve` sends (one list:
    tengig/server/security_headers.py), among them the Content-Security-Policy that keeps the panel on
    its own origin."""
    _, page, _ = http_get(panel_url(truenas))
    asset = page.split(b'src="./', 1)[1].split(b'"', 1)[0].decode()
    answers = {name: http_get(panel_url(truenas) + name) for name in ("", asset, "nope.js")}
    assert [status for status, _, _ in answers.values()] == [200, 200, 404]
    for name, (_, _, headers) in answers.items():
        assert {header: headers.get(header) for header in HEADERS} == HEADERS, name


@pytest.mark.abuse
def test_a_link_naming_another_server_gets_no_password(truenas):
    """The genuine panel on TrueNAS, opened from a link that adds `?api=<a logger on another port>`:
    the typed password goes to middlewared only; the logger gets not even a connection."""
    with ws_logger() as logger:
        link = f"{panel_url(truenas)}?api={quote(logger.url, safe='')}"
        report = run_scenario("login-link", link, "",
                              params={"secret": "password", "username": TEST_USER, "password": TEST_PASSWORD})
    assert logger.received() == ([], [])
    facts = report["facts"]
    assert (facts["tabs"], facts["errors"]) == (1, [])
    assert facts["endpoint"] == f"Connects to {api_socket(truenas)}"
    assert outside_origin(report["requests"], truenas.http_url) == []


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
