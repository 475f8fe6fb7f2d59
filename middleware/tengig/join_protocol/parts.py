"""The rule for a long answer: a submission in parts that each fit one message of a connection that has not
logged in.

A joined desktop never logs in (its token goes to JOIN_METHOD), and both API hosts take
at most 8 KiB per message from such a connection (middlewared's MsgSizeLimit.UNAUTHENTICATED; tengig's
host mirrors it). A tool's output can be longer (iperf3 -J of many streams), so it goes in parts:
consecutive slices of stdout, then of stderr, each part with ``more`` true but the last. The NAS
appends them in order (bench/join/session.py). The Windows kit splits the same way.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .messages import SUBMIT_METHOD

MESSAGE_LIMIT = 8192  # bytes of one websocket message from a connection that has not logged in
FIRST_SLICE = 3000  # characters of output per part to try first; halved while the message is too long
# Output a desktop sends per tool at most (in parts): a bigger iperf3 -J (many streams) goes without its
# per-second intervals (the NAS reads only its start and end).
FRAME_BUDGET = 48 * 1024


def message_bytes(part: dict[str, Any]) -> int:
    """The size of the JSON-RPC message that carries ``part`` (as tengig's client encodes it, with the
    widest call id it uses)."""
    frame = {"jsonrpc": "2.0", "id": 2**31, "method": SUBMIT_METHOD, "params": [part]}
    return len(json.dumps(frame).encode())


def submission_parts(submission: dict[str, Any], limit: int = MESSAGE_LIMIT) -> Iterator[dict[str, Any]]:
    """``submission`` (instruction, exit_code, stdout, stderr, argv, seconds) as parts of at most
    ``limit`` bytes each. Raises ValueError when not even one character of output fits (an argv too
    long to send)."""
    stdout, stderr = submission.get("stdout", ""), submission.get("stderr", "")
    base = {k: v for k, v in submission.items() if k not in ("stdout", "stderr", "more")}
    while True:
        budget = FIRST_SLICE
        while True:
            out = stdout[:budget]
            err = stderr[:budget - len(out)]
            last = len(out) == len(stdout) and len(err) == len(stderr)
            part = {**base, "stdout": out, "stderr": err, "more": not last}
            if message_bytes(part) <= limit:
                break
            if budget == 1:
                raise ValueError(f"a submission for instruction {base.get('instruction')} does not fit in "
                                 f"{limit} bytes even with one character of output")
            budget //= 2
        yield part
        if last:
            return
        stdout, stderr = stdout[len(out):], stderr[len(err):]
