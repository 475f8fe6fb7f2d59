"""Run by an official client's own interpreter (tests/server/official_client.py), never by tengig's:

    python scenario.py '{"uri": "ws://127.0.0.1:PORT/api/current", "key": "ID-KEY", "username": "root"}'

Logs in as that client logs in, then drives what a TrueNAS user's script does, and prints one JSON
line of what happened (answers, exception classes, errnos), for the test to judge.
"""
from __future__ import annotations

import json
import sys
import threading

from truenas_api_client import Client, ClientException, ValidationErrors

try:  # the newest client: API keys through auth_api_key (SCRAM by default, PLAIN on request)
    from truenas_api_client.auth_api_key import APIKeyAuthMech
except ImportError:
    APIKeyAuthMech = None


def log_in(c, spec: dict, legacy: bool) -> str:
    if legacy:
        return "ok" if c.call("auth.login_with_api_key", spec["key"]) else "refused"
    if APIKeyAuthMech is not None:
        try:
            c.login_with_api_key(spec["username"], spec["key"], auth_mechanism=APIKeyAuthMech.PLAIN)
            return "ok"
        except ValueError as exc:
            return f"refused: {exc}"
    answer = c.call("auth.login_ex", {"mechanism": "API_KEY_PLAIN", "username": spec["username"],
                                      "api_key": spec["key"]})
    return "ok" if answer["response_type"] == "SUCCESS" else f"refused: {answer['response_type']}"


def error_of(call) -> dict:
    try:
        return {"result": call()}
    except ValidationErrors as exc:
        return {"class": "ValidationErrors", "errors": [[e.attribute, e.errmsg, e.errcode] for e in exc.errors]}
    except ClientException as exc:
        return {"class": type(exc).__name__, "errno": exc.errno, "error": exc.error}


def main() -> None:
    spec = json.loads(sys.argv[1])
    legacy = spec["uri"].endswith("/websocket")
    out: dict = {"client_class": None}
    with Client(spec["uri"]) as c:
        out["client_class"] = type(c._Client__client).__name__ if hasattr(c, "_Client__client") else type(c).__name__
        out["ping"] = c.ping() if not legacy else c.call("core.ping")
        out["wrong_password"] = c.call("auth.login_ex", {"mechanism": "PASSWORD_PLAIN", "username": "root",
                                                         "password": "wrong"}) if not legacy else None
        out["login"] = log_in(c, spec, legacy)
        if out["login"] != "ok":
            print(json.dumps(out))
            return
        out["validation"] = error_of(lambda: c.call("tengig.results.query", {"kind": "no-such-kind"}))
        out["call_error"] = error_of(lambda: c.call("tengig.results.get", 999999))
        methods = c.call("core.get_methods")
        out["methods"] = {name: methods[name] for name in spec.get("methods", [])}
        out["method_count"] = len(methods)
        if spec.get("job"):
            progress: list = []
            events: list = []
            seen = threading.Event()

            def on_event(mtype, **message):
                events.append([mtype, message.get("id")])
                seen.set()

            c.subscribe("core.get_jobs", on_event)
            out["job"] = c.call(spec["job"][0], *spec["job"][1:], job=True,
                                callback=lambda job: progress.append(job["progress"]["percent"]))
            seen.wait(10)
            out["job_progress"] = progress
            out["job_events"] = len(events)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
