"""What the fix lab tests share: tengig.fix.apply as a job that a desktop joins, and a run's SMB copies."""
from __future__ import annotations

import threading

from ..bench.joined_harness import join


def apply_joined(lab, api, urls, request: dict) -> dict:
    """tengig.fix.apply as a job; desk joins the re-measure with the token its progress shows."""
    outcome, token = {}, threading.Event()

    def progress(job):
        session = ((job.get("progress") or {}).get("extra") or {}).get("session")
        if session and "token" not in outcome:
            outcome["token"] = session["token"]
            token.set()

    def body():
        try:
            outcome["result"] = api.call("tengig.fix.apply", request, job=True, callback=progress, timeout=900)
        except Exception as exc:  # the test reads it below
            outcome["error"] = exc
        token.set()

    thread = threading.Thread(target=body)
    thread.start()
    assert token.wait(120), "the fix never showed its join token"
    assert "error" not in outcome, outcome.get("error")
    desk = join(lab, "desk", urls["desk"], outcome["token"])
    thread.join(900)
    desk.wait(60)
    assert "error" not in outcome, outcome.get("error")
    return outcome["result"]


def copies(run: dict, direction: str) -> list[float]:
    desk = next(c for c in run["results"]["clients"] if c["client"] == "desk")
    return desk["smb"][direction]["bytes_per_s"]["values"]
