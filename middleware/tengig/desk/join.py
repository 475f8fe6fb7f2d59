"""``tengig client join URL --token T``: this desktop joins a benchmark run on the NAS.

It connects to the NAS's API (opening no port of its own but, in a mesh verify, a one-test iperf3 server on
its own cable for another desktop: desk/peer_rule.py), joins with the run's token (no login: the
same protocol with tengig's own host and with TrueNAS's middlewared), says what it is, then runs what
the NAS asks, one instruction at a time, and sends back what the tool printed, in parts of at most
8 KiB (join_protocol/parts.py):
iperf3 to the NAS's address (1 and N streams, both ways) and timed copies through this desktop's own
SMB client (Samba's smbclient). The NAS parses the output and checks the bytes on its own port.

It runs its tools only against the NAS it joined (the addresses the URL's host resolved to when it
connected, the address its socket reached, and those the user listed with --nas-address, e.g. the NAS's
address on a mesh link when the API was reached over another), or, in a mesh verify, towards another
desktop on one of its own cables (peer_rule.py says which). Whatever the NAS says is printed with
its control characters escaped.

A NAS that answers no call for the silence limit (desk/nas_pace.py) ends the desktop's part as a stop signal
does (desk/stop_signals.py): its tools and its one-test server stopped, its work files removed, one line
naming the call.
"""
from __future__ import annotations

import errno
import json
import os
import platform
import socket
import ssl
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..client.client import Client
from ..client.errors import ClientError
from ..errors import CommandNotFound, CommandTimeout, TengigError, ValidationError
from ..join_protocol.lines import OWN_COPY
from ..join_protocol.messages import JOIN_METHOD, NEXT_METHOD, SUBMIT_METHOD
from ..join_protocol.parts import FRAME_BUDGET, submission_parts
from ..runner import Runner
from ..text import shown
from . import own_disk
from .beneath import Beneath, said, shared_why
from .instructions import (SMALLEST_COPY_BYTES, check_room, check_room_for, disk_size, iperf3_argv, nas_addresses,
                           plain_address, small_dir, smallfiles_op, smb_op)
from .link_facts import link_towards
from .mounted_copy import MountedCopyError, get, put, remote_path
from .peer_rule import attached_subnets, connect_argv, listen_argv, peer_op, served_port
from .peer_server import PeerServer, connect
from .nas_pace import NAS_SILENCE_S, EarlyNulls, checked_silence, next_wait
from .nas_url import join_uri
from .smallfiles import STDBUF, SmallSet, own_disk_run, own_run, smbclient_commands, timed_run
from .stop_signals import held
from .tool_cpu import children_cpu, cpus_available, thread_cpu

MiB = 1024 * 1024


class JoinError(TengigError):
    pass


def _os_name() -> str:
    return {"Linux": "linux", "Darwin": "macos", "Windows": "windows", "FreeBSD": "freebsd"}.get(platform.system(),
                                                                                                "linux")


def _cpu(seconds: float | None) -> dict[str, float]:
    """The answer's cpu_seconds and this desktop's CPUs' worth (cpus), when measured."""
    cpus = cpus_available()
    return {"cpu_seconds": seconds, **({"cpus": cpus} if cpus is not None else {})} if seconds is not None else {}


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


def listed_addresses(addresses: Sequence[str]) -> frozenset[str]:
    """The NAS's addresses the user listed (--nas-address), each an IP address."""
    for text in addresses:
        try:
            plain_address(text)
        except ValueError:
            raise ValidationError.one("--nas-address", f"{text!r} is not an IP address (one address of the NAS "
                                      "per --nas-address, e.g. 10.250.12.1)") from None
    return nas_addresses(addresses)


def resolved_addresses(host: str) -> frozenset[str]:
    """Every address ``host`` resolves to here (an IP address: itself); none when it does not resolve
    (the connection then fails and says so)."""
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return frozenset()
    return nas_addresses(str(info[4][0]) for info in found)


def _shaped(answer: Any, fields: dict[str, type], what: str) -> dict[str, Any]:
    """The NAS's answer, if it has ``fields`` of those types (else JoinError: a NAS that is not tengig's)."""
    if not isinstance(answer, dict) or any(not isinstance(answer.get(k), t) for k, t in fields.items()):
        raise JoinError(f"the NAS's answer is not {what} of tengig's join protocol: {shown(repr(answer)[:300])}")
    return answer


class Joiner:
    def __init__(self, url: str, token: str, *, smb_auth_file: Path | None = None, smb_conf: Path | None = None,
                 workdir: Path | None = None, name: str | None = None, runner: Runner | None = None,
                 say: Callable[[str], None] = print, tls: ssl.SSLContext | bool = True,
                 nas_address: Sequence[str] = (), mount: Path | None = None, disk: Path | None = None,
                 silence: float = NAS_SILENCE_S):
        self.uri, self.host = join_uri(url)
        self.silence = checked_silence(silence)
        self.next_wait = next_wait(silence)
        self.listed = listed_addresses(nas_address)
        self.nas: frozenset[str] = self.listed  # and, once connected, the addresses it joined
        self.tls = tls
        self.token = token
        self.name = name or socket.gethostname()
        if mount is not None and smb_auth_file is not None:
            raise ValidationError.one("--mount", "copies go through the mounted share or through smbclient "
                                      "(--smb-auth-file), not both: give one")
        if mount is not None and not mount.is_dir():
            raise ValidationError.one("--mount", f"{mount} is not a directory: give the directory where the "
                                      "NAS's share is mounted")
        if disk is not None and not disk.is_dir():
            raise ValidationError.one("--disk", f"{disk} is not a directory: give a directory on the disk to "
                                      "compare the NAS with")
        if disk is not None and (why := shared_why(disk)) is not None:
            raise ValidationError.one("--disk", f"{disk}: {why}, so another user could swap tengig's files there "
                                      "for links to yours; give a directory of your own (or one with the sticky "
                                      "bit, as /tmp has)")
        self.smb_auth_file = smb_auth_file
        self.smb_conf = smb_conf
        self.mount = mount
        self.disk = disk
        self.workdir = workdir or Path(tempfile.gettempdir())
        self.runner = runner or Runner()
        self.say = lambda line: say(shown(line))  # lines quote the NAS
        self._source: Path | None = None
        self._small: SmallSet | None = None
        self._peer = PeerServer(self.runner)

    @property
    def copies(self) -> bool:
        return self.smb_auth_file is not None or self.mount is not None

    def run(self) -> str:
        """Take part until the NAS says done (returns "done") or the run stops (JoinError with why)."""
        if self.copies:  # found out before joining, not once the NAS is measuring
            try:
                check_room(self.workdir, SMALLEST_COPY_BYTES)
            except ValidationError as exc:
                raise JoinError(f"--workdir: {exc.errors[0][1]}") from exc
        resolved = resolved_addresses(self.host)
        try:
            connection = Client(self.uri, tls=self.tls, call_timeout=self.silence)
        except ClientError as exc:
            hint = " (--nas-silence)" if exc.errno == errno.ETIMEDOUT else ""
            raise JoinError(f"cannot reach the NAS's API: {exc}{hint}") from exc
        reached = {connection.peer_address} if connection.peer_address else set()
        self.nas = resolved | nas_addresses(reached) | self.listed
        try:
            with connection as client:
                joined = _shaped(self._ask(client, JOIN_METHOD, self.token, self._info()),
                                 {"session": int, "name": str, "nas_address": str}, "its join")
                over = f", over the NAS's address {joined['nas_address']}" if joined["nas_address"] else ""
                self.say(f"joined run {joined['session']} as {joined['name']}{over}")
                self.say(f"tools run against the NAS at {', '.join(sorted(self.nas))} only (--nas-address adds "
                         "another of its addresses)")
                if self.mount is not None:
                    self.say(f"copies go through the share mounted at {self.mount}")
                if self.disk is not None:
                    self.say(f"this desktop's own disk is measured in {self.disk} when the NAS asks")
                return self._serve(client)
        except ClientError as exc:
            if exc.code is None:  # no answer at all: the connection went, or the NAS fell silent
                raise JoinError(f"lost the NAS at {self.uri}: {shown(exc)}. Its run has stopped (restarted, switched "
                                "off, or the network between is gone); this desktop's part ended and its files "
                                "are removed. Join its next run with the command it shows then") from exc
            raise JoinError(f"the NAS answered: {shown(exc)}") from exc
        finally:
            with held():  # a stop signal now waits for the end of this
                self._peer.stop()
                self._drop_source()
                self._drop_small()

    def _ask(self, client: Client, method: str, *params: Any) -> Any:
        """The NAS's answer to ``method``; JoinError naming it when none came within the silence limit."""
        try:
            return client.call(method, *params)
        except ClientError as exc:
            if exc.errno != errno.ETIMEDOUT:
                raise
            raise JoinError(f"the NAS did not answer {method} within {self.silence:g} s (--nas-silence): it is "
                            "gone, unreachable or stuck; this desktop's tools are stopped and its work files "
                            "removed") from None

    def _info(self) -> dict[str, Any]:
        """What this desktop says of itself; "disk" only when it measures its disk (a NAS of an earlier
        tengig refuses a key it does not know)."""
        facts = link_towards(self.runner, self.host)
        return {"hostname": self.name, "os": _os_name(), "tengig": __version__,
                "smb": self.copies, **({"disk": True} if self.disk is not None else {}), **facts}

    def _serve(self, client: Client) -> str:
        early = EarlyNulls(self.next_wait)
        while True:
            asked = time.monotonic()
            instruction = self._ask(client, NEXT_METHOD, self.next_wait)
            self._peer.expire()
            if instruction is None:  # ask again: at once after the NAS waited, later and later when it did not
                time.sleep(early.pause_after(time.monotonic() - asked))
                continue
            early.reset()
            instruction = _shaped(instruction, {"id": int, "kind": str, "params": dict}, "an instruction")
            kind, params = instruction["kind"], instruction["params"]
            if kind == "done":
                self.say("the run is finished; its verdict is on the NAS")
                return "done"
            if kind == "abort":
                raise JoinError(f"the NAS stopped the run: {shown(params.get('reason', 'no reason given'))}")
            result = self._execute(kind, params)
            if params.get("cpu") is not True:  # a NAS of an earlier tengig refuses keys it does not know
                result = {k: v for k, v in result.items() if k not in ("cpu_seconds", "cpus")}
            for part in submission_parts({"instruction": instruction["id"], **result}):
                self._ask(client, SUBMIT_METHOD, part)

    def _execute(self, kind: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            if kind == "iperf3":
                argv = iperf3_argv(params, self.nas)
                self.say(f"iperf3 {'read' if params.get('reverse') else 'write'} {params['streams']} stream(s)")
                return self._tool(argv, timeout=params["seconds"] + params["omit"] + 30, compact=compact_iperf3)
            if kind == "smb":
                return self._smb(params)
            if kind == "disk":
                return self._own_disk(params)
            if kind == "smallfiles":
                return self._smallfiles(params)
            if kind == "peer":
                return self._peer_test(params)
        except ValidationError as exc:
            self.say(f"refused: {exc.message}")  # here too: the person at this desktop may be the one to act
            return {"exit_code": 2, "stderr": f"refused: {exc.message}", "argv": []}
        except (CommandNotFound, CommandTimeout) as exc:
            return {"exit_code": 127 if isinstance(exc, CommandNotFound) else 124, "stderr": exc.message, "argv": []}
        return {"exit_code": 2, "stderr": f"refused: {kind!r} is not something tengig measures", "argv": []}

    def _tool(self, argv: list[str], *, timeout: float, compact: Callable[[str], str] = str) -> dict[str, Any]:
        started = time.monotonic()
        with children_cpu() as cpu:
            done = self.runner.run(argv, timeout=timeout, check=False)
        return {"exit_code": done.returncode, "stdout": compact(done.stdout)[:FRAME_BUDGET],
                "stderr": done.stderr[-4096:], "argv": list(argv), "seconds": time.monotonic() - started,
                **_cpu(cpu.seconds)}

    def _peer_test(self, params: dict[str, Any]) -> dict[str, Any]:
        """A mesh verify's cable to another desktop (desk/peer_rule.py says what is allowed)."""
        op = peer_op(params)
        if op == "served":
            return self._peer.served(served_port(params))
        attached = attached_subnets(self.runner)
        if op == "listen":
            argv, lifetime = listen_argv(params, attached)  # params checked: bind and port are what it listens on
            self.say(f"peer: iperf3 server on {params['bind']} port {params['port']} for another desktop's test")
            return self._peer.listen(argv, params["port"], lifetime)
        argv = connect_argv(params, attached)
        self.say(f"peer: iperf3 {'read' if '-R' in argv else 'write'} towards {params['server']}")
        return connect(lambda a: self._tool(a, timeout=params["seconds"] + params["omit"] + 30,
                                            compact=compact_iperf3), argv)

    def _smbclient(self, server: str, share: str) -> list[str]:
        base = ["smbclient", f"//{server}/{share}", "-A", str(self.smb_auth_file)]
        return base + (["-s", str(self.smb_conf)] if self.smb_conf else [])

    def _smb(self, params: dict[str, Any]) -> dict[str, Any]:
        op, server, share, remote, size = smb_op(params, self.nas)
        if not self.copies:
            return {"exit_code": 2, "stderr": "refused: this desktop joined without SMB (neither --smb-auth-file "
                    "nor --mount)", "argv": []}
        base = self._smbclient(server, share)
        if op == "prepare":
            self._drop_source()
            check_room(self.workdir, size)
            self.say(f"smb: writing {size // MiB} MiB of random data to copy")
            try:
                self._source = self._random_file(size)
            except OSError as exc:
                return {"exit_code": 1, "stderr": f"could not write the file to copy in {self.workdir}: "
                        f"{exc.strerror}", "argv": []}
            if self.mount is not None:
                return self._mounted_dir(remote_path(self.mount, remote))
            return self._tool([*base, "-c", f"mkdir {remote}"], timeout=60)
        if self._source is None or self._source.stat().st_size != size:
            return {"exit_code": 2, "stderr": "refused: no prepared file of that size", "argv": []}
        self.say(f"smb {op} {remote}")
        if self.mount is not None:
            return self._mounted(op, remote_path(self.mount, remote), size)
        command = f"put {self._source} {remote}" if op == "put" else f"get {remote} {os.devnull}"
        return self._tool([*base, "-c", command], timeout=120 + 2 * size / MiB)

    def _smallfiles(self, params: dict[str, Any]) -> dict[str, Any]:
        """One batch of the small-file test (desk/smallfiles.py): ``prepare`` makes this size's files here and
        its directory in the share; ``disk`` runs every batch in --disk."""
        op, server, share, remote, size, count = smallfiles_op(params, self.nas)
        if op == "disk" and self.disk is None:
            return {"exit_code": 2, "stderr": "refused: this desktop joined without --disk", "argv": []}
        if op != "disk" and not self.copies:
            return {"exit_code": 2, "stderr": "refused: this desktop joined without SMB (neither --smb-auth-file "
                    "nor --mount)", "argv": []}
        made = op == "prepare" or self._small is None or not self._small.matches(size, count)
        if made:
            self._drop_small()
        if op == "disk":  # the files on --disk, and this size's set in --workdir when it is made now
            check_room_for([("--disk", self.disk, size * count)]
                           + ([("--workdir", self.workdir, 2 * size * count)] if made else []))
        if made:
            self.say(f"small files: making {count} files of {size} bytes")
            self._small = SmallSet(self.workdir, size, count)
        directory = small_dir(remote, size)
        if op == "disk":
            self.say(f"small files: {count} x {size} bytes on this desktop's own disk ({self.disk})")
            return own_disk_run(("write", "stat", "read", "delete"), self.disk, self._small)
        self.say(f"small files: {op} {count} x {size} bytes")
        if self.mount is not None:
            path = remote_path(self.mount, directory)
            if op == "prepare":
                made = self._mounted_dir(path.parent)
                return made if made["exit_code"] else self._mounted_dir(path)
            return own_run((op,), path, self._small)
        argv = [*STDBUF, *self._smbclient(server, share), "-c", smbclient_commands(op, directory, self._small)]
        return timed_run(argv, timeout=120 + count + 4 * size * count / MiB, env=self.runner.environment())

    def _drop_small(self) -> None:
        if self._small is not None:
            self._small.remove()
            self._small = None

    def _own_disk(self, params: dict[str, Any]) -> dict[str, Any]:
        size = disk_size(params)
        if self.disk is None:
            return {"exit_code": 2, "stderr": "refused: this desktop joined without --disk", "argv": []}
        prepared = self._source is not None and self._source.stat().st_size == size
        # the file measured in --disk, and the file it copies in --workdir unless the SMB copies' is there
        check_room_for([("--disk", self.disk, size)] + ([] if prepared else [("--workdir", self.workdir, size)]))
        self.say(f"own disk: writing then reading {size // MiB} MiB in {self.disk}")
        if prepared:
            return own_disk.measure(self.runner, self.disk, size, self._source)
        source = self._random_file(size)
        try:
            return own_disk.measure(self.runner, self.disk, size, source)
        finally:
            source.unlink(missing_ok=True)

    def _mounted_dir(self, place: Beneath) -> dict[str, Any]:
        argv = ["mkdir", str(place)]
        try:
            place.make_dir()  # never through a link in the share (desk/beneath.py)
        except OSError as exc:
            return {"exit_code": 1, "stderr": f"cannot create {place}: {said(exc, place)}", "argv": argv}
        return {"exit_code": 0, "argv": argv}

    def _mounted(self, op: str, path: Beneath, size: int) -> dict[str, Any]:
        started = time.monotonic()
        try:
            with thread_cpu() as cpu:  # the copy is this thread's reads and writes
                line = put(self._source, path, size) if op == "put" else get(path, size)
        except MountedCopyError as exc:
            return {"exit_code": 1, "stderr": str(exc), "argv": [OWN_COPY, str(path)],
                    "seconds": time.monotonic() - started}
        return {"exit_code": 0, "stdout": line + "\n", "argv": [OWN_COPY, str(path)],
                "seconds": time.monotonic() - started, **_cpu(cpu.seconds)}

    def _drop_source(self) -> None:
        if self._source is not None:
            self._source.unlink(missing_ok=True)
            self._source = None

    def _random_file(self, size: int) -> Path:
        fd, name = tempfile.mkstemp(prefix="tengig-smb-", suffix=".dat", dir=self.workdir)
        try:  # from its first instruction: a stop signal is raised anywhere (desk/stop_signals.py)
            with open(fd, "wb") as out:
                left = size
                while left > 0:
                    chunk = os.urandom(min(MiB, left))
                    out.write(chunk)
                    left -= len(chunk)
        except BaseException:
            Path(name).unlink(missing_ok=True)
            raise
        return Path(name)
