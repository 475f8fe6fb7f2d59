"""A bench session: the NAS's side of desktops that join a run over the network.

The NAS opens no connection to a client and a client opens no port (but a one-test iperf3 server on its
own cable for another desktop in a mesh verify: desk/peer_rule.py): a client connects to the NAS's
API (the same websocket the panel uses), joins with the session's token (no login: the same protocol
under tengig's own host and inside middlewared), then asks for its next instruction, runs it (iperf3,
an SMB copy) and submits what the tool printed, in parts when it is long (a connection that has not
logged in may send messages of at most 8 KiB, on both hosts). The NAS parses the
raw output itself and checks the bytes on its own port; a client's numbers are never taken on trust.

One token per session (the join command the user copies to every desktop); it can join this session
and submit to it, nothing else. Tokens are kept as SHA-256 digests. An ended session is remembered
for an hour, so a desktop that reuses its token is told the session ended rather than "wrong token".

Memory is bounded in bytes (UTF-8, as held: parts are kept encoded): one submission at most
MAX_OUTPUT_BYTES, everything a desktop has sent that the run has not taken yet at most
PARTS_BYTES_PER_CLIENT, a whole session PARTS_BYTES_PER_SESSION. An answer the run took is the run's
(it stores it); a desktop's parts and answers are dropped when its connection closes, everyone's when
the run ends, and parts after that are refused: an ended session keeps only what its "ended" answers
need (names, the reason).

Thread model: the run (a job thread) posts instructions and waits for results; the API methods of
clients (an event loop) poll ``next`` and call ``submit``. One lock guards everything; waits are
Conditions with deadlines and the run's cancel token.
"""
from __future__ import annotations

import hashlib
import hmac
import itertools
import secrets
import threading
import time
from collections import deque
from typing import Any

from ...errors import Aborted, TengigError, ValidationError
from ...join_protocol.messages import MAX_OUTPUT_BYTES, Instruction, JoinInfo, Submission
from ...join_protocol.naming import CLIENT_NAME_CHARS, LABEL_HEX, SECRET_HEX, client_name, token_label

REANNOUNCE_S = 10.0  # how often a run waiting for its desktops says so again, with the time left
ENDED_KEPT_SECONDS = 3600
# MAX_OUTPUT_BYTES: what one tool's answer may hold (stdout, stderr and argv, UTF-8). tengig's client and the
# Windows kit send at most FRAME_BUDGET (48 KiB) per tool (iperf3 -J of 64 streams without its per-second
# intervals: ~100 KB), and a desktop's own disk's small files one line per file of each batch
# (join_protocol/limits.py sizes their counts by it).
PARTS_BYTES_PER_CLIENT = MAX_OUTPUT_BYTES  # all a desktop's answers the run has not taken yet, together
PARTS_BYTES_PER_SESSION = 4 * 1024 * 1024  # and all its desktops' (16 honest ones: under 1 MiB)
MAX_CLIENTS = 16


class ClientGone(TengigError):
    """A client left (its connection closed) or did not answer in time."""


class SessionEnded(TengigError):
    pass


class JoinedClient:
    """One desktop in a session, as the NAS sees it."""

    def __init__(self, name: str, info: JoinInfo, peer: str, local: str):
        self.name = name
        self.info = info
        self.peer_address = peer  # the client's address, as the NAS's socket sees it
        self.local_address = local  # the NAS's address the client reached: the link under test
        self.joined_at = time.time()
        self.queue: deque[Instruction] = deque()
        self.pending: set[int] = set()
        self.results: dict[int, Submission] = {}  # answers the run has not taken yet
        self.parts: dict[int, _Parts] = {}  # instruction -> what came so far of a submission in parts
        self.held = 0  # bytes of the two above
        self.answered: set[int] = set()
        self.refused: dict[int, str] = {}  # instruction -> why its answer was refused (the run fails with it)
        self.fetched: dict[int, float] = {}  # instruction -> when the client took it (the NAS's monotonic clock)
        self.arrived: dict[int, float] = {}  # instruction -> when its whole answer arrived (the same clock)
        self.gone: str | None = None
        self.told_end = False  # it has taken the run's end (done or abort) from next()

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "os": self.info.os, "address": self.peer_address, "nas_address": self.local_address,
                "joined_at": self.joined_at, "gone": self.gone}


class BenchSession:
    def __init__(self, session_id: int, token_digest: bytes, expected: int, *, join_timeout: float,
                 token_label: str = ""):
        if not 1 <= expected <= MAX_CLIENTS:
            raise ValidationError.one("join", f"between 1 and {MAX_CLIENTS} clients can join a run, not {expected}")
        self.id = session_id
        self.token_digest = token_digest
        self.token_label = token_label  # the token's public part: which run (SessionRegistry.create)
        self.expected = expected
        self.join_timeout = join_timeout
        self.created = time.time()
        self.clients: list[JoinedClient] = []
        self.ended: str | None = None
        self.ended_at: float | None = None
        self._ids = itertools.count(1)
        self._cond = threading.Condition()

    # -- the client's side (API methods) ----------------------------------------------------------

    def join(self, info: JoinInfo, *, peer: str, local: str) -> JoinedClient:
        with self._cond:
            if self.ended:
                raise SessionEnded(f"bench session {self.id} has ended ({self.ended}); ask for a new join command")
            if len(self.clients) >= self.expected:
                raise SessionEnded(f"bench session {self.id} expected {self.expected} client(s) and all have joined; "
                                   "this desktop joined late: start a run that expects it")
            name = self._unique(client_name(info.hostname))
            client = JoinedClient(name, info, peer, local)
            self.clients.append(client)
            self._cond.notify_all()
            return client

    def next(self, client: JoinedClient) -> Instruction | None:
        with self._cond:
            if self.ended and not client.queue:
                client.told_end = True
                self._cond.notify_all()
                return Instruction(id=0, kind="abort" if self.ended != "finished" else "done",
                                   params={"reason": self.ended})
            if not client.queue:
                return None
            instruction = client.queue.popleft()
            client.fetched[instruction.id] = time.monotonic()
            return instruction

    def submit(self, client: JoinedClient, submission: Submission) -> None:
        iid = submission.instruction
        with self._cond:
            if self.ended:
                raise SessionEnded(f"bench session {self.id} has ended ({self.ended}); it takes no more answers")
            if client.gone:
                raise SessionEnded(f"{client.name} was already dropped from bench session {self.id} ({client.gone})")
            if iid in client.answered:
                raise ValidationError.one("submission.instruction", f"instruction {iid} was already answered")
            if iid in client.refused:
                raise ValidationError.one("submission.instruction", f"the answer to instruction {iid} was refused "
                                          f"({client.refused[iid]})")
            if iid not in client.pending:
                raise ValidationError.one("submission.instruction", f"no instruction {iid} is waiting for "
                                          f"{client.name}")
            parts = client.parts.get(iid) or _Parts()
            out, err, argv = _encoded(submission)
            grows = len(out) + len(err) + argv - parts.argv_bytes  # the argv is the latest part's
            try:
                self._check_room(client, parts.size + grows, grows, submission)
            except ValidationError as exc:
                self._refuse(client, iid, exc.errors[0][1])
                raise
            parts.add(submission, out, err, argv)
            client.held += grows
            if submission.more:
                client.parts[iid] = parts
                return
            client.parts.pop(iid, None)
            client.pending.discard(iid)
            client.answered.add(iid)
            client.results[iid] = parts.whole()
            client.arrived[iid] = time.monotonic()
            self._cond.notify_all()

    def gone(self, client: JoinedClient, reason: str) -> None:
        with self._cond:
            if client.gone is None:
                client.gone = reason
                self._cond.notify_all()
            _drop_answers(client)

    def held_bytes(self) -> int:
        """Bytes of the desktops' answers this session holds (parts, and answers the run has not taken)."""
        with self._cond:
            return sum(c.held for c in self.clients)

    def nas_seconds(self, client: JoinedClient, instruction: int) -> float | None:
        """How long an answered instruction took on the NAS's clock: from when the desktop took it to when
        its whole answer arrived (longer than what the desktop did: it holds the delivery and the answer)."""
        with self._cond:
            fetched, arrived = client.fetched.get(instruction), client.arrived.get(instruction)
            return arrived - fetched if fetched is not None and arrived is not None else None

    def _check_room(self, client: JoinedClient, size: int, grows: int, submission: Submission) -> None:
        """Whether an answer may become ``size`` bytes, ``grows`` more than this session holds of it now."""
        field = "submission.stdout" if submission.stdout or not submission.stderr else "submission.stderr"
        if size > MAX_OUTPUT_BYTES:
            raise ValidationError.one(field, f"the answer to instruction {submission.instruction} adds up to "
                                      f"{size} bytes (UTF-8), more than the {MAX_OUTPUT_BYTES} bytes one answer "
                                      "may hold")
        if client.held + grows > PARTS_BYTES_PER_CLIENT:
            raise ValidationError.one(field, f"{client.name} would hold {client.held + grows} bytes (UTF-8) of "
                                      f"answers the run has not taken, more than the {PARTS_BYTES_PER_CLIENT} "
                                      "bytes a desktop may")
        session = sum(c.held for c in self.clients) + grows
        if session > PARTS_BYTES_PER_SESSION:
            raise ValidationError.one(field, f"bench session {self.id} would hold {session} bytes (UTF-8) of "
                                      f"answers its run has not taken, more than the {PARTS_BYTES_PER_SESSION} "
                                      "bytes a session may")

    def _refuse(self, client: JoinedClient, instruction: int, why: str) -> None:
        """An answer too big to take: its parts are freed, and the run, waiting for it, fails saying why."""
        dropped = client.parts.pop(instruction, None)
        client.held -= dropped.size if dropped else 0
        client.pending.discard(instruction)
        client.refused[instruction] = why
        self._cond.notify_all()

    # -- the NAS's side (the run) ------------------------------------------------------------------

    def wait_joined(self, cancel: threading.Event, on_change=None) -> list[JoinedClient]:
        """The clients, once ``expected`` joined. ``on_change(clients, left_s)`` hears each join or leave, and
        the time left every REANNOUNCE_S: a job's watcher that subscribed after the first word still hears
        the join command (middlewared sends a job event only when its progress changes; its own client
        drops the events that arrive before it has the job's id)."""
        deadline = time.monotonic() + self.join_timeout
        seen = None
        said_at = 0.0
        with self._cond:
            while len(self.clients) < self.expected:
                now = (len(self.clients), sum(c.gone is not None for c in self.clients))  # a leaver is news too
                left = deadline - time.monotonic()
                if now != seen or time.monotonic() - said_at >= REANNOUNCE_S:
                    seen, said_at = now, time.monotonic()
                    if on_change:
                        on_change(list(self.clients), max(0.0, left))
                if cancel.is_set():
                    raise Aborted("the benchmark was aborted while waiting for clients to join")
                if left <= 0:
                    names = ", ".join(c.name for c in self.clients) or "none"
                    raise ClientGone(f"waited {self.join_timeout:g} s for {self.expected} client(s) to join; joined: "
                                     f"{names}. Run the join command on each desktop, or expect fewer (join)")
                self._cond.wait(min(left, 0.5, REANNOUNCE_S))
            if on_change:
                on_change(list(self.clients), max(0.0, deadline - time.monotonic()))
            return list(self.clients)

    def post(self, client: JoinedClient, kind: str, params: dict[str, Any]) -> int:
        with self._cond:
            if client.gone:
                raise ClientGone(f"{client.name} left the run ({client.gone})")
            instruction = Instruction(id=next(self._ids), kind=kind, params=params)
            client.pending.add(instruction.id)
            client.queue.append(instruction)
            self._cond.notify_all()
            return instruction.id

    def post_all(self, orders: list[tuple[JoinedClient, str, dict[str, Any]]]) -> list[int]:
        """The start barrier of a concurrent phase: one instruction for each client, queued at the same
        instant (under one lock), after the run has waited for every client's previous answer. Each
        client takes its own at its next poll; ``fetched`` says when, on the NAS's clock."""
        with self._cond:
            for client, _, _ in orders:
                if client.gone:
                    raise ClientGone(f"{client.name} left the run ({client.gone})")
            ids = []
            for client, kind, params in orders:
                instruction = Instruction(id=next(self._ids), kind=kind, params=params)
                client.pending.add(instruction.id)
                client.queue.append(instruction)
                ids.append(instruction.id)
            self._cond.notify_all()
            return ids

    def wait_result(self, client: JoinedClient, instruction: int, *, timeout: float,
                    cancel: threading.Event) -> Submission:
        deadline = time.monotonic() + timeout
        with self._cond:
            while instruction not in client.results:
                if instruction in client.refused:
                    raise ClientGone(f"{client.name}'s answer to instruction {instruction} was refused: "
                                     f"{client.refused[instruction]}")
                if client.gone:
                    raise ClientGone(f"{client.name} left the run ({client.gone}) before answering")
                if cancel.is_set():
                    raise Aborted("the benchmark was aborted; what ran was stopped and the scratch data removed")
                left = deadline - time.monotonic()
                if left <= 0:
                    client.gone = f"no answer within {timeout:g} s"
                    raise ClientGone(f"{client.name} did not answer within {timeout:g} s (instruction {instruction}): "
                                     "it vanished or its tool hung")
                self._cond.wait(min(left, 0.5))
            taken = client.results.pop(instruction)  # the run's now: the session keeps no copy
            client.held -= _size(taken)
            return taken

    def end(self, reason: str) -> None:
        with self._cond:
            if self.ended is None:
                self.ended, self.ended_at = reason, time.time()
            for client in self.clients:  # an ended session answers "ended", and needs none of it
                _drop_answers(client)
                for kept in (client.pending, client.answered, client.refused, client.fetched, client.arrived):
                    kept.clear()
            self._cond.notify_all()

    def wait_told(self, timeout: float) -> bool:
        """After the end: wait until every client still connected has taken it (its next poll), so that a
        host that stops with the run (`tengig bench --join`) does not cut a desktop off before it knows."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while any(not c.told_end and c.gone is None for c in self.clients):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.2))
            return True

    def describe(self) -> dict[str, Any]:
        with self._cond:
            return {"id": self.id, "expected": self.expected, "ended": self.ended,
                    "clients": [c.describe() for c in self.clients]}

    def _unique(self, name: str) -> str:
        taken = {c.name for c in self.clients}
        if name not in taken:
            return name
        for n in itertools.count(2):
            candidate = f"{name[:CLIENT_NAME_CHARS - 3]}-{n}"
            if candidate not in taken:
                return candidate
        raise AssertionError("unreachable")


class _Parts:
    """A submission as it arrives in parts, held as UTF-8 (what is counted is what is held): the texts
    appended in order, the rest (exit code, argv, seconds) from the latest part."""

    def __init__(self):
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.last: Submission | None = None  # without its texts
        self.argv_bytes = 0

    @property
    def size(self) -> int:
        return len(self.stdout) + len(self.stderr) + self.argv_bytes

    def add(self, part: Submission, out: bytes, err: bytes, argv_bytes: int) -> None:
        self.stdout += out
        self.stderr += err
        self.last = part.model_copy(update={"stdout": "", "stderr": ""})
        self.argv_bytes = argv_bytes

    def whole(self) -> Submission:
        assert self.last is not None
        return self.last.model_copy(update={"stdout": self.stdout.decode(), "stderr": self.stderr.decode(),
                                            "argv": [_utf8(a).decode() for a in self.last.argv]})


def _utf8(text: str) -> bytes:
    """``text`` in UTF-8; what is not text (a lone surrogate, which JSON can escape) becomes "?"."""
    return text.encode("utf-8", "replace")


def _encoded(submission: Submission) -> tuple[bytes, bytes, int]:
    """(stdout, stderr, bytes of argv) of a submission, in UTF-8."""
    return (_utf8(submission.stdout), _utf8(submission.stderr), sum(len(_utf8(a)) for a in submission.argv))


def _size(submission: Submission) -> int:
    out, err, argv = _encoded(submission)
    return len(out) + len(err) + argv


def _drop_answers(client: JoinedClient) -> None:
    """Free what a desktop sent that the run has not taken (it left, or the run ended)."""
    client.parts.clear()
    client.results.clear()
    client.queue.clear()
    client.held = 0


class SessionRegistry:
    """Every open session of this process, and the ended ones for an hour."""

    def __init__(self):
        self._sessions: dict[int, BenchSession] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def create(self, expected: int, *, join_timeout: float) -> tuple[BenchSession, str]:
        """A new session and its token: ``tgb-`` + a public label of LABEL_HEX hex digits (which run; unique
        among the sessions kept) + SECRET_HEX hex digits of secret (160 random bits)."""
        with self._lock:
            self._sweep()
            taken = {s.token_label for s in self._sessions.values()}
            while (label := secrets.token_hex(LABEL_HEX // 2)) in taken:
                pass
            token = f"tgb-{label}{secrets.token_hex(SECRET_HEX // 2)}"
            session = BenchSession(next(self._ids), _digest(token), expected, join_timeout=join_timeout,
                                   token_label=label)
            self._sessions[session.id] = session
        return session, token

    def knows_label(self, token: str) -> bool:
        """Whether ``token``'s public label names a session kept here (its secret is not looked at): the
        login gate lets a token whose label is known be compared at once, the first time from an address."""
        label = token_label(token)
        with self._lock:
            return label is not None and any(s.token_label == label for s in self._sessions.values())

    def by_token(self, token: str) -> BenchSession | None:
        digest = _digest(token)
        with self._lock:
            self._sweep()
            found = None
            for session in self._sessions.values():  # every digest compared: no early exit to time
                if hmac.compare_digest(session.token_digest, digest):
                    found = session
            return found

    def by_id(self, session_id: int) -> BenchSession | None:
        with self._lock:
            return self._sessions.get(session_id)

    def _sweep(self) -> None:
        now = time.time()
        for sid in [s.id for s in self._sessions.values() if s.ended_at and now - s.ended_at > ENDED_KEPT_SECONDS]:
            del self._sessions[sid]


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


SESSIONS = SessionRegistry()
