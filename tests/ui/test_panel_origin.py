"""The panel talks to its own origin only (issue 23, item 1): a link to the genuine panel that names another
server (`?api=ws://...`, once an override) must not carry a typed API key, a typed password or a key the
tab remembered anywhere else. The other server is a websocket logger on another loopback port; it must
receive nothing, not even a connection, while the panel logs in to the server that served it. The login
form says where it connects. Also run behind the stand-in of TrueNAS's plugin route (no security headers
there, so the panel's own code is what refuses), and against real middlewared in
tests/realmw/test_panel_in_middlewared.py."""
from __future__ import annotations

from urllib.parse import quote, urlsplit

import pytest

from .browser import outside_origin, run_scenario
from .conftest import page_url

pytestmark = [pytest.mark.abuse, pytest.mark.browser]  # no lab: a tengig serve and a browser

NO_PASSWORD_LOGIN = ("This server does not log in with a password (it takes: API key): choose “API key” "
                     "and log in with a key (for tengig serve: tengig apikey create NAME).\ndismiss")


def link(page: str, logger) -> str:
    """The genuine panel's address with what a hostile link adds."""
    return f"{page}?api={quote(logger.url, safe='')}"


def own_socket(page: str) -> str:
    """The websocket of the server that served ``page``."""
    return f"ws://{urlsplit(page).netloc}/api/current"


def test_a_typed_api_key_goes_only_to_the_panels_own_server(panel, logger):
    page = page_url(panel)
    report = run_scenario("login-link", link(page, logger), panel.api_key, params={"secret": "key"})
    assert logger.received() == ([], [])
    facts = report["facts"]
    assert (facts["tabs"], facts["errors"]) == (1, [])
    assert facts["endpoint"] == f"Connects to {own_socket(page)}"
    assert own_socket(page) in report["requests"]
    assert outside_origin(report["requests"], page) == []


def test_a_typed_password_goes_only_to_the_panels_own_server(panel, logger):
    page = page_url(panel)
    report = run_scenario("login-link", link(page, logger), "",
                          params={"secret": "password", "username": "root", "password": "typed-password-23"})
    assert logger.received() == ([], [])
    facts = report["facts"]
    assert (facts["tabs"], facts["errors"]) == (0, [NO_PASSWORD_LOGIN])  # tengig serve's own answer
    assert facts["endpoint"] == f"Connects to {own_socket(page)}"
    assert outside_origin(report["requests"], page) == []


def test_a_remembered_key_goes_only_to_the_panels_own_server(panel, logger):
    page = page_url(panel)
    report = run_scenario("remembered-key-link", page, panel.api_key, params={"link": link(page, logger)})
    assert logger.received() == ([], [])
    facts = report["facts"]
    assert facts["remembered"] == ["tengig.apiKey"]  # the tab did keep a key to resume with
    assert (facts["tabs"], facts["errors"]) == (1, [])  # and resumed, on its own server
    assert report["requests"].count(own_socket(page)) == 2
    assert outside_origin(report["requests"], page) == []


def test_the_plugin_route_panel_ignores_a_link_naming_another_server(plugin_route, panel, logger):
    """The stand-in route sends no Content-Security-Policy: only the panel's own code keeps the key home."""
    report = run_scenario("login-link", link(plugin_route, logger), panel.api_key, params={"secret": "key"})
    assert logger.received() == ([], [])
    assert (report["facts"]["tabs"], report["facts"]["errors"]) == (1, [])
    assert report["facts"]["endpoint"] == f"Connects to {own_socket(plugin_route)}"


def test_the_security_policy_lets_the_page_open_only_its_own_websocket(panel, logger):
    """Chromium counts ws:// to the page's own host and port as 'self' (connect-src 'self'); another
    port is refused before any connection is made."""
    report = run_scenario("csp-websockets", page_url(panel), "", params={"other": logger.url})
    assert (report["facts"]["own"], report["facts"]["other"]) == ("open", "error")
    assert logger.received() == ([], [])
    assert any("violates the following Content Security Policy directive: \"connect-src 'self'\"" in line
               for line in report["facts"]["consoleErrors"]), report["facts"]["consoleErrors"]
