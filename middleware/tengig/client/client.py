"""A small synchronous client for scripts, speaking what tengig's host and TrueNAS's middlewared speak.

    with Client("ws://127.0.0.1:8610/api/current", api_key=KEY) as c:
        c.call("core.ping")                                  # 'pong'
        c.call("tengig.bench.run", request, job=True, callback=lambda job: print(job["progress"]))
        c.subscribe("core.get_jobs", lambda mtype, **event: print(mtype, event["id"]))

Two wire protocols (wire.py), the same calls, events and errors over both: JSON-RPC 2.0 at
``/api/current`` (TrueNAS 25.04+, tengig) and the legacy protocol at ``/websocket`` (TrueNAS 24.10,
CORE), chosen by the URI's path or ``protocol=``. ``connect()`` (connect.py) finds the right one.

Like the official truenas_api_client it sets ``legacy_jobs`` false on connect (JSON-RPC only), so a job call answers
when the job ends, with its result; it follows the job's ``core.get_jobs`` events for ``callback``
(matched by the request id in ``message_ids``). Against a server that keeps legacy jobs (TrueNAS
25.04) it waits for the job's final event instead. URIs: ``ws://``, ``wss://`` and
``ws+unix:///run/tengig/tengig.sock`` (as midclt writes them; root on the socket needs no key).

The websocket runs on an asyncio loop in a background thread; callbacks run one at a time on a
separate thread, in the order events arrived, so they may call the client themselves.
"""
from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import itertools
import json
import ssl
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import aiohttp

from .errors import ClientError
from .scram import ScramExchange
from .tls import UNTRUSTED_HINT
from .wire import JsonRpcWire, LegacyWire, wire_for

UNIX_PREFIX = "ws+unix://"
DEFAULT_URI = f"{UNIX_PREFIX}/run/tengig/tengig.sock"
CALL_TIMEOUT = 60.0
CLOSE_WAIT_S = 1.0  # for the server's answer to our close: one that has gone silent is not waited on longer
FINAL_JOB_STATES = ("SUCCESS", "FAILED", "ABORTED")
CALLBACK_THREAD = "tengig-client-callback"
SCRAM = "SCRAM"  # auth.login_ex's mechanism for an API key on TrueNAS 26 (client/scram.py)
FINISHED_KEPT = 1000  # final job states remembered for a waiter that has not arrived yet (legacy jobs)

JobCallback = Callable[[dict[str, Any]], Any]
EventCallback = Callable[..., Any]


def _close_timeout() -> Any:
    """ws_connect's timeout for the server's answer to a close: aiohttp 3.11+ takes ClientWSTimeout, earlier
    ones (middlewared 25.04's 3.9) a float that is that timeout."""
    if hasattr(aiohttp, "ClientWSTimeout"):
        return aiohttp.ClientWSTimeout(ws_receive=None, ws_close=CLOSE_WAIT_S)
    return CLOSE_WAIT_S


class Client:
    def __init__(self, uri: str = DEFAULT_URI, *, api_key: str | None = None, username: str | None = None,
                 call_timeout: float = CALL_TIMEOUT, protocol: str | None = None, tls: ssl.SSLContext | bool = True,
                 plain_key_in_clear: bool = False):
        """``tls``: how wss:// checks the server's certificate (client/tls.py); ws:// ignores it.
        ``plain_key_in_clear``: send a plain API key over ws:// to another host anyway (a TrueNAS revokes such a
        key: only for a test's stand-in login)."""
        self.uri = uri
        self.tls = tls
        self.plain_key_in_clear = plain_key_in_clear
        self.wire: JsonRpcWire | LegacyWire = wire_for(uri, protocol)
        self.call_timeout = call_timeout
        self.legacy_jobs = True
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._job_callbacks_by_call: dict[int, JobCallback] = {}
        self._job_callbacks: dict[int, JobCallback] = {}
        self._job_ends: dict[int, asyncio.Future[dict[str, Any]]] = {}  # legacy servers only
        # Legacy jobs: a job can end (its FAILED or SUCCESS event) before the answer with its id is read;
        # the last FINISHED_KEPT final states are kept so waiting for such a job ends at once.
        self._finished_jobs: dict[Any, dict[str, Any]] = {}
        self._event_callbacks: dict[str, list[tuple[str, EventCallback]]] = {}
        self._jobs_subscription: str | None = None
        self._callbacks = ThreadPoolExecutor(max_workers=1, thread_name_prefix=CALLBACK_THREAD)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tengig-client", daemon=True)
        self._thread.start()
        self._session: aiohttp.ClientSession | None = None
        self._handshake: asyncio.Future[str] | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        # The IP address of the server's end of the connection (None over a unix socket): the host this
        # client actually reached, whatever the URL's name resolves to later.
        self.peer_address: str | None = None
        try:
            self._run(self._connect(), timeout=call_timeout)
            if self.wire.name == "jsonrpc":  # 24.10's legacy protocol always answers a job with its id
                options = self.call("core.set_options", {"legacy_jobs": False})
                # 25.10+ answers the options it keeps; 25.04 answers null and knows no legacy_jobs (its
                # job calls answer the job's id at once, as legacy ones do)
                self.legacy_jobs = bool(options.get("legacy_jobs", True)) if isinstance(options, dict) else True
            if api_key is not None:
                self.login_with_api_key(api_key, username)
        except BaseException:
            self.close()
            raise

    # -- public -------------------------------------------------------------------------------------

    @property
    def secure_transport(self) -> bool:
        """A key sent here stays between the two ends: a unix socket, TLS (wss://), or this machine's loopback
        (what TrueNAS counts as secure before it revokes a plain key)."""
        if self.uri.startswith((UNIX_PREFIX, "wss://")):
            return True
        try:
            return self.peer_address is not None and ipaddress.ip_address(self.peer_address).is_loopback
        except ValueError:
            return False

    def mechanisms(self) -> list[str]:
        """What auth.mechanism_choices offers (asked before logging in); [] where the server has no such method."""
        try:
            offered = self.call("auth.mechanism_choices")
        except ClientError:
            return []
        return [str(m) for m in offered] if isinstance(offered, list) else []

    def login_with_api_key(self, api_key: str, username: str | None = None) -> None:
        """Log in with an API key as TrueNAS stores it: SCRAM through auth.login_ex where the server offers it
        (TrueNAS 26; the key never crosses the wire, and the server proves it holds the key), else the plain key,
        only over a secure transport on JSON-RPC (TrueNAS 25.04+ revokes a key sent in the clear; CORE's legacy
        protocol does not): auth.login_ex API_KEY_PLAIN
        with a username, else auth.login_with_api_key (25.x, 24.10, tengig's own host). ClientError EACCES if
        refused."""
        if username is not None and SCRAM in self.mechanisms():
            self._login_scram(api_key, username)
            return
        # JSON-RPC servers (TrueNAS 25.04+) revoke a plain key from an insecure transport; the legacy protocol's
        # (24.10, CORE 13.3, which has no such revocation) take it as before
        if self.wire.name == "jsonrpc" and not self.secure_transport and not self.plain_key_in_clear:
            raise ClientError(f"{self.uri} offers no SCRAM login and is not encrypted: the API key would cross the "
                              "network in the clear, and a TrueNAS revokes a key sent that way. Connect with wss:// "
                              "(TrueNAS's HTTPS port), or from the NAS itself", errno=errno.ENOTSUP)
        if username is not None:
            answer = self.call("auth.login_ex", {"mechanism": "API_KEY_PLAIN", "username": username,
                                                 "api_key": api_key})
            ok = answer.get("response_type") == "SUCCESS"
        else:
            ok = self.call("auth.login_with_api_key", api_key) is True
        if not ok:
            raise ClientError(f"the server refused the API key (user {username or 'of the key'}); "
                              "check it with `tengig apikey list` on the server", errno=errno.EACCES)

    def _login_scram(self, api_key: str, username: str) -> None:
        exchange = ScramExchange(username, api_key)
        answers = []
        for kind, step in (("CLIENT_FIRST_MESSAGE", exchange.client_first),
                           ("CLIENT_FINAL_MESSAGE", lambda: exchange.client_final(answers[-1]))):
            answer = self.call("auth.login_ex", {"mechanism": SCRAM, "scram_type": kind, "rfc_str": step()})
            wanted = "SERVER_FIRST_RESPONSE" if kind == "CLIENT_FIRST_MESSAGE" else "SERVER_FINAL_RESPONSE"
            if not isinstance(answer, dict) or answer.get("response_type") != "SCRAM_RESPONSE" \
                    or answer.get("scram_type") != wanted:
                said = answer.get("response_type") if isinstance(answer, dict) else answer
                raise ClientError(f"the server refused the API key (SCRAM as user {username}: {said}); check the "
                                  "key and its user in the TrueNAS's API Keys page", errno=errno.EACCES)
            answers.append(str(answer.get("rfc_str") or ""))
        exchange.check_server_final(answers[-1])

    def call(self, method: str, *params: Any, job: bool = False, callback: JobCallback | None = None,
             timeout: float | None = None) -> Any:
        """Call ``method`` with positional ``params``. ``job=True``: wait for the job's end (no time
        limit unless ``timeout``), calling ``callback(job_dict)`` on every event of it."""
        limit = timeout if timeout is not None else (None if job else self.call_timeout)
        try:
            return self._run(self._call(method, list(params), job, callback), timeout=limit)
        finally:
            if job and callback is not None:
                self._callbacks_delivered()

    def _callbacks_delivered(self) -> None:
        """Wait until every callback queued so far has run (the worker takes them in order), so a job's
        events reach its caller's callback before the call returns or raises. Not from a callback itself:
        it would wait for its own end."""
        if threading.current_thread().name.startswith(CALLBACK_THREAD):
            return
        with contextlib.suppress(RuntimeError):  # the client is closing: no worker left to wait for
            self._callbacks.submit(lambda: None).result(timeout=self.call_timeout)

    def subscribe(self, name: str, callback: EventCallback) -> str:
        """``callback(msg_type, **params)`` for every ``collection_update`` of ``name`` ('*': all);
        msg_type is 'ADDED'/'CHANGED'/'REMOVED', params has collection, id and fields."""
        ident = self._run(self._subscribe(name), timeout=self.call_timeout)
        self._event_callbacks.setdefault(name, []).append((ident, callback))
        return ident

    def unsubscribe(self, ident: str) -> None:
        if isinstance(self.wire, LegacyWire):
            self._run(self._send(self.wire.unsub(ident)), timeout=self.call_timeout)
        else:
            self.call("core.unsubscribe", ident)
        for name, entries in list(self._event_callbacks.items()):
            self._event_callbacks[name] = [e for e in entries if e[0] != ident]

    def close(self) -> None:
        """Bounded whatever the server does (CLOSE_WAIT_S for its answer to our close); every task on the
        client's loop ends before the loop does (none is left to be destroyed pending, nothing is printed)."""
        if self._loop.is_running():
            with contextlib.suppress(ClientError):
                self._run(self._disconnect(), timeout=2 * CLOSE_WAIT_S)
            with contextlib.suppress(ClientError):
                self._run(self._end_tasks(), timeout=2 * CLOSE_WAIT_S)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
        if not self._loop.is_running() and not self._loop.is_closed():
            self._loop.close()
        self._callbacks.shutdown(wait=True)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- on the client's loop -----------------------------------------------------------------------

    async def _connect(self) -> None:
        if self.uri.startswith(UNIX_PREFIX):
            connector = aiohttp.UnixConnector(path=self.uri[len(UNIX_PREFIX):])
            url = f"ws://localhost{self.wire.path}"
        else:
            connector, url = None, self.uri
        self._session = aiohttp.ClientSession(connector=connector)
        try:
            self._ws = await self._session.ws_connect(url, max_msg_size=0, autoping=True, ssl=self.tls,
                                                      timeout=_close_timeout())
        except aiohttp.ClientConnectorCertificateError as exc:
            raise ClientError(f"{self.uri}: the server's TLS certificate is not trusted here "
                              f"({exc.certificate_error}); {UNTRUSTED_HINT}", errno=errno.EACCES) from exc
        except aiohttp.WSServerHandshakeError as exc:
            # The server is there but has no websocket at this path (e.g. /api/current on TrueNAS 24.10).
            raise ClientError(f"no {self.wire.name} websocket API at {self.uri} (HTTP {exc.status})",
                              errno=errno.EPROTONOSUPPORT) from exc
        except (aiohttp.ClientError, OSError) as exc:
            raise ClientError(f"cannot connect to {self.uri}: {exc}; is `tengig serve` running?",
                              errno=errno.ECONNREFUSED) from exc
        peer = self._ws.get_extra_info("peername")
        if isinstance(peer, tuple) and peer and isinstance(peer[0], str):
            self.peer_address = peer[0]
        self._handshake = asyncio.get_running_loop().create_future()
        asyncio.ensure_future(self._read())
        if (hello := self.wire.hello()) is not None:
            await self._send(hello)
            if await self._handshake != "connected":
                raise ClientError(f"{self.uri} refused the legacy protocol handshake (version 1)",
                                  errno=errno.EPROTONOSUPPORT)

    async def _disconnect(self) -> None:
        if self._ws is not None:
            await self._ws.close()  # bounded by ws_close (CLOSE_WAIT_S): then the connection is dropped
        if self._session is not None:
            await self._session.close()

    async def _end_tasks(self) -> None:
        """Cancel what still runs here (the reader, a call whose caller stopped waiting, an unfinished
        close) and wait for it to end; the session is closed whatever was cut short."""
        rest = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in rest:
            task.cancel()
        await asyncio.gather(*rest, return_exceptions=True)
        if self._session is not None and not self._session.closed:
            await self._session.close()

    async def _call(self, method: str, params: list[Any], job: bool, callback: JobCallback | None) -> Any:
        if job and self._jobs_subscription is None:
            # Subscribe before the call, or the job's ADDED event (and its first progress) could be missed.
            self._jobs_subscription = await self._subscribe("core.get_jobs")
        call_id = next(self._ids)
        if job:
            self._job_callbacks_by_call[call_id] = callback or (lambda job_dict: None)
        answer = await self._send_and_wait(call_id, method, params)
        self._job_callbacks_by_call.pop(call_id, None)
        if "error" in answer:
            raise ClientError.from_error(answer["error"], method)
        result = answer.get("result")
        if job and self.legacy_jobs and isinstance(result, int):
            return await self._wait_legacy_job(result, callback)
        return result

    async def _subscribe(self, name: str) -> str:
        """A subscription id for ``name``: core.subscribe (JSON-RPC), or a sub frame answered 'ready'."""
        if not isinstance(self.wire, LegacyWire):
            return await self._call("core.subscribe", [name], False, None)
        ident = str(uuid.uuid4())
        answer = await self._frame_and_wait(ident, self.wire.sub(ident, name))
        if "error" in answer:
            raise ClientError.from_error(answer["error"], f"subscribe {name}")
        return ident

    async def _send_and_wait(self, call_id: int, method: str, params: list[Any]) -> dict[str, Any]:
        # The legacy protocol's ids are strings (the official client sends UUIDs).
        wire_id: Any = str(call_id) if isinstance(self.wire, LegacyWire) else call_id
        return await self._frame_and_wait(wire_id, self.wire.request(wire_id, method, params))

    async def _frame_and_wait(self, wire_id: Any, frame: dict[str, Any]) -> dict[str, Any]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[wire_id] = future
        try:
            await self._send(frame)
            return await future
        finally:
            self._pending.pop(wire_id, None)

    async def _send(self, frame: dict[str, Any]) -> None:
        if self._ws is None or self._ws.closed:
            raise ClientError(f"not connected to {self.uri}", errno=errno.ENOTCONN)
        await self._ws.send_str(json.dumps(frame))

    async def _wait_legacy_job(self, job_id: int, callback: JobCallback | None) -> Any:
        fields = self._finished_jobs.pop(job_id, None)
        if fields is None:  # still running (the usual case)
            end = self._job_ends.setdefault(job_id, asyncio.get_running_loop().create_future())
            if callback is not None:
                self._job_callbacks[job_id] = callback
            fields = await end
        if fields["state"] == "SUCCESS":
            return fields.get("result")
        raise ClientError.from_job(fields)

    async def _read(self) -> None:
        assert self._ws is not None
        try:
            async for msg in self._ws:
                if msg.type == aiohttp.WSMsgType.TEXT:
                    self._receive(json.loads(msg.data))
        finally:
            closed = ClientError(f"connection to {self.uri} closed (code {self._ws.close_code})",
                                 errno=errno.ECONNABORTED)
            for future in [*self._pending.values(), *self._job_ends.values()]:
                if not future.done():
                    future.set_exception(closed)
            if not self._handshake.done():
                self._handshake.set_result("closed")

    def _receive(self, message: dict[str, Any]) -> None:
        incoming = self.wire.parse(message)
        if incoming.kind == "event":
            self._on_event(incoming.event)
        elif incoming.kind == "answer":
            if (future := self._pending.get(incoming.id)) is not None and not future.done():
                future.set_result(incoming.answer)
        elif incoming.kind == "ready":
            for ident in incoming.subs:
                if (future := self._pending.get(ident)) is not None and not future.done():
                    future.set_result({"id": ident, "result": ident})
        elif incoming.kind in ("connected", "failed") and not self._handshake.done():
            self._handshake.set_result(incoming.kind)

    def _on_event(self, params: dict[str, Any]) -> None:
        collection, fields = params.get("collection"), params.get("fields") or {}
        if collection == "core.get_jobs" and fields:
            job_id = params.get("id")
            for call_id in fields.get("message_ids", []):
                if call_id in self._job_callbacks_by_call:
                    self._job_callbacks[job_id] = self._job_callbacks_by_call[call_id]
            if (callback := self._job_callbacks.get(job_id)) is not None:
                self._callbacks.submit(callback, fields)
            if fields.get("state") in FINAL_JOB_STATES:
                self._job_callbacks.pop(job_id, None)
                if (end := self._job_ends.pop(job_id, None)) is not None and not end.done():
                    end.set_result(fields)
                elif end is None:
                    self._finished_jobs[job_id] = fields
                    while len(self._finished_jobs) > FINISHED_KEPT:
                        self._finished_jobs.pop(next(iter(self._finished_jobs)))
        mtype = str(params.get("msg", "")).upper()
        for name in (collection, "*"):
            for _, callback in self._event_callbacks.get(name, []):
                self._callbacks.submit(callback, mtype, **params)

    # -- bridging -----------------------------------------------------------------------------------

    def _run(self, coroutine: Any, *, timeout: float | None) -> Any:
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            return future.result(timeout)
        except FutureTimeout:
            future.cancel()
            raise ClientError(f"no answer from {self.uri} within {timeout:g} s", errno=errno.ETIMEDOUT) from None
        except BaseException:  # the caller stopped waiting (Ctrl-C, a signal's exception): so does the call
            future.cancel()
            raise
