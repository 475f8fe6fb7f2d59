"""``tengig client join URL --token T``: this desktop joins a benchmark run on the NAS.

It connects to the NAS's API (opening no port of its own), joins with the run's token (no login: the
same protocol with tengig's own host and with TrueNAS's middlewared), says what it is, then runs what
the NAS asks, one instruction at a time, and sends back what the tool printed, in parts of at most
8 KiB (desk/submit_parts.py):
iperf3 to the NAS's address (1 and N streams, both ways) and timed copies through this desktop's own
SMB client (Samba's smbclient). The NAS parses the output and checks the bytes on its own port.
"""
from __future__ import annotations

import json
import os
import platform
import socket
import ssl
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import __version__
from ..client.client import Client
from ..client.connect import candidate_uris
from ..client.errors import ClientError
from ..errors import CommandNotFound, CommandTimeout, TengigError, ValidationError
from ..runner import Runner
from .instructions import iperf3_argv, smb_op
from .link_facts import link_towards
from .submit_parts import submission_parts

MiB = 1024 * 1024
FRAME_BUDGET = 48 * 1024  # output sent per tool at most (in 8 KiB parts): big iperf3 outputs lose their intervals


class JoinError(TengigError):
    pass


def _os_name() -> str:
    return {"Linux": "linux", "Darwin": "macos", "Windows": "windows", "FreeBSD": "freebsd"}.get(platform.system(),
                                                                                                "linux")


def compact_iperf3(stdout: str) -> str:
    """iperf3 -J of many streams can pass the NAS's frame limit: drop the per-second intervals then
    (the NAS reads only `start` and `end`); small outputs go as printed."""
    if len(stdout) <= FRAME_BUDGET:
        return stdout
    try:
        doc = json.loads(stdout)
    except json.JSONDecodeError:
        return stdout[:FRAME_BUDGET]
    doc.pop("intervals", None)
    return json.dumps(doc)


class Joiner:
    def __init__(self, url: str, token: str, *, smb_auth_file: Path | None = None, smb_conf: Path | None = None,
                 workdir: Path | None = None, name: str | None = None, runner: Runner | None = None,
                 say: Callable[[str], None] = print, tls: ssl.SSLContext | bool = True):
        self.uri = candidate_uris(url)[0]
        self.tls = tls
        self.token = token
        self.name = name or socket.gethostname()
        self.smb_auth_file = smb_auth_file
        self.smb_conf = smb_conf
        self.workdir = workdir or Path(tempfile.gettempdir())
        self.runner = runner or Runner()
        self.say = say
        self._source: Path | None = None

    def run(self) -> str:
        """Take part until the NAS says done (returns "done") or the run stops (JoinError with why)."""
        try:
            connection = Client(self.uri, tls=self.tls)
        except ClientError as exc:
            raise JoinError(f"cannot reach the NAS's API: {exc}") from exc
        try:
            with connection as client:
                joined = client.call("tengig.bench.session.join", self.token, self._info())
                over = f", over the NAS's address {joined['nas_address']}" if joined["nas_address"] else ""
                self.say(f"joined run {joined['session']} as {joined['name']}{over}")
                return self._serve(client)
        except ClientError as exc:
            raise JoinError(f"the NAS answered: {exc}") from exc
        finally:
            if self._source is not None:
                self._source.unlink(missing_ok=True)

    def _info(self) -> dict[str, Any]:
        host = self.uri.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
        facts = link_towards(self.runner, host)
        return {"hostname": self.name, "os": _os_name(), "tengig": __version__,
                "smb": self.smb_auth_file is not None, **facts}

    def _serve(self, client: Client) -> str:
        while True:
            instruction = client.call("tengig.bench.session.next", 10)
            if instruction is None:
                continue
            kind, params = instruction["kind"], instruction["params"]
            if kind == "done":
                self.say("the run is finished; its verdict is on the NAS")
                return "done"
            if kind == "abort":
                raise JoinError(f"the NAS stopped the run: {params.get('reason', 'no reason given')}")
            result = self._execute(kind, params)
            for part in submission_parts({"instruction": instruction["id"], **result}):
                client.call("tengig.bench.session.submit", part)

    def _execute(self, kind: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            if kind == "iperf3":
                argv = iperf3_argv(params)
                self.say(f"iperf3 {'read' if params.get('reverse') else 'write'} {params['streams']} stream(s)")
                return self._tool(argv, timeout=params["seconds"] + params["omit"] + 30, compact=compact_iperf3)
            if kind == "smb":
                return self._smb(params)
        except ValidationError as exc:
            return {"exit_code": 2, "stderr": f"refused: {exc.message}", "argv": []}
        except (CommandNotFound, CommandTimeout) as exc:
            return {"exit_code": 127 if isinstance(exc, CommandNotFound) else 124, "stderr": exc.message, "argv": []}
        return {"exit_code": 2, "stderr": f"refused: {kind!r} is not something tengig measures", "argv": []}

    def _tool(self, argv: list[str], *, timeout: float, compact: Callable[[str], str] = str) -> dict[str, Any]:
        started = time.monotonic()
        done = self.runner.run(argv, timeout=timeout, check=False)
        return {"exit_code": done.returncode, "stdout": compact(done.stdout)[:FRAME_BUDGET],
                "stderr": done.stderr[-4096:], "argv": list(argv), "seconds": time.monotonic() - started}

    def _smb(self, params: dict[str, Any]) -> dict[str, Any]:
        op, server, share, remote, size = smb_op(params)
        if self.smb_auth_file is None:
            return {"exit_code": 2, "stderr": "refused: this desktop joined without SMB credentials "
                    "(--smb-auth-file)", "argv": []}
        base = ["smbclient", f"//{server}/{share}", "-A", str(self.smb_auth_file)]
        base += ["-s", str(self.smb_conf)] if self.smb_conf else []
        if op == "prepare":
            self.say(f"smb: writing {size // MiB} MiB of random data to copy")
            self._source = self._random_file(size)
            return self._tool([*base, "-c", f"mkdir {remote}"], timeout=60)
        if self._source is None or self._source.stat().st_size != size:
            return {"exit_code": 2, "stderr": "refused: no prepared file of that size", "argv": []}
        self.say(f"smb {op} {remote}")
        command = f"put {self._source} {remote}" if op == "put" else f"get {remote} {os.devnull}"
        return self._tool([*base, "-c", command], timeout=120 + 2 * size / MiB)

    def _random_file(self, size: int) -> Path:
        if self._source is not None:
            self._source.unlink(missing_ok=True)
        fd, name = tempfile.mkstemp(prefix="tengig-smb-", suffix=".dat", dir=self.workdir)
        with os.fdopen(fd, "wb") as out:
            left = size
            while left > 0:
                chunk = os.urandom(min(MiB, left))
                out.write(chunk)
                left -= len(chunk)
        return Path(name)
