"""Property-based fuzz of the JSON-RPC face (hypothesis): bad params of every shape to every method of
tengig's own registry (tengig.*, core.*, auth.*), malformed frames, and a share over a real websocket.
About 5,700 payloads in all under make test (a quarter in the inner loop: tests/depth.py); the oracle: never
an internal error (-32603), every -32602 names a field, every request with an id is answered.

Most payloads go to the dispatcher in-process (fast); the wire share proves the same holds through
aiohttp's framing."""
from __future__ import annotations

import asyncio
import json
import os

import aiohttp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tengig.api import Registry
from tengig.errors import LabError
from tengig.server import rpc
from tengig.server.apikeys import ApiKeyStore
from tengig.server.dispatcher import Dispatcher
from tengig.server.host import ServerMiddleware
from tengig.server.session import Credentials, Session
from tengig.systems.seams import Seams

from ..depth import examples
from .checks import assert_no_internal_error
from .harness import open_raw, running_server

FUZZ = settings(database=None, deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
PER_METHOD_EXAMPLES = examples(2000)  # make test's counts; a quarter in the inner loop (tests/depth.py)
FRAME_EXAMPLES = examples(1500)
WIRE_BATCHES, WIRE_BATCH_SIZE = examples(40), 16

# Boundary integers on purpose: 0, -1 and numbers past every machine width are where ids break.
edge_ints = st.sampled_from([0, -1, 1, 2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64, 2**70, -(2**63) - 1])
json_scalars = (st.none() | st.booleans() | edge_ints | st.integers(min_value=-(2**70), max_value=2**70)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=12), inner, max_size=4), max_leaves=12)


def _no_system(*_args):
    raise LabError("fuzz: no system to measure")


# A valid tengig.bench, tengig.lagg or tengig.mesh call must not measure (or re-address) whatever lab is
# up, nor ping from this machine: the fuzzed hosts act through seams that refuse.
NO_SYSTEM = Seams(bench_system=_no_system, mesh_system=_no_system, run_on_nas=_no_system, lagg_probe=_no_system)


class InProcess:
    """A dispatcher on its own loop, one authenticated session whose frames land in a list."""

    def __init__(self, tmp_path):
        os.environ["TENGIG_DB"] = str(tmp_path / "results.sqlite3")
        self.loop = asyncio.new_event_loop()
        self.middleware = ServerMiddleware(Registry.default(seams=NO_SYSTEM), ApiKeyStore(tmp_path / "apikeys.sqlite3"))
        self.dispatcher = Dispatcher(self.middleware)
        self.sent: list[str] = []
        self.session = Session(self.sent.append, origin="fuzz")
        self.session.credentials = Credentials("API_KEY", "root")
        self.count = 0

    def send(self, frame: str, expect_answer: bool) -> list[dict]:
        self.count += 1
        self.sent.clear()

        async def handle():
            task = self.dispatcher.handle_frame(self.session, frame)
            if task is not None:
                await asyncio.wait_for(task, 10)
        self.loop.run_until_complete(handle())
        frames = [json.loads(text) for text in self.sent]
        if expect_answer:
            assert any("id" in f and ("result" in f or "error" in f) for f in frames), f"no answer to {frame!r}"
        return frames

    def close(self):
        self.loop.run_until_complete(self.middleware.shutdown(5))
        self.loop.close()


@pytest.fixture(scope="module")
def in_process(tmp_path_factory):
    target = InProcess(tmp_path_factory.mktemp("fuzz"))
    yield target
    target.close()


def _field_shaped(model) -> st.SearchStrategy:
    """Objects that look like the model's params: its own field names with random values, plus noise."""
    names = list(model.model_fields)
    if not names:
        return json_values
    return st.dictionaries(st.sampled_from(names) | st.text(max_size=8), json_values, max_size=len(names) + 1)


def _methods():
    registry = ServerMiddleware.__new__(ServerMiddleware)  # only to list method names and models
    return sorted(Registry.default().with_services(*_host_services()).bind(registry).items())


def _host_services():
    from tengig.server.auth_service import AuthService
    from tengig.server.core_service import CoreService
    return (CoreService, AuthService)


METHODS = _methods()
# Methods that wait on purpose (job_wait on a real job) or change the session's own login are left
# to the protocol tests; everything else is fuzzed.
SKIP = {"core.job_wait", "auth.logout"}
FUZZED = [(name, entry) for name, entry in METHODS if name not in SKIP]


@st.composite
def method_calls(draw):
    name, entry = draw(st.sampled_from(FUZZED))
    fields = entry.spec.accepts.model_fields
    shaped = [_field_shaped(f.annotation) if hasattr(f.annotation, "model_fields") else json_values
              for f in fields.values()]
    params = draw(st.lists(json_values, max_size=len(fields) + 2)
                  | st.tuples(*shaped).map(list) if shaped else st.lists(json_values, max_size=2))
    request_id = draw(st.integers(min_value=0, max_value=2**31) | st.text(max_size=8))
    return name, request_id, params


def test_bad_params_to_every_method_never_break_the_server(in_process):
    start = in_process.count

    @settings(FUZZ, max_examples=PER_METHOD_EXAMPLES)
    @given(call=method_calls())
    def fuzz(call):
        name, request_id, params = call
        frame = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": name, "params": params})
        for answer in in_process.send(frame, expect_answer=True):
            assert_no_internal_error(answer)
    fuzz()
    assert in_process.count - start >= PER_METHOD_EXAMPLES * 0.95


malformed_frames = st.one_of(
    st.text(max_size=60),
    json_values.map(json.dumps),
    st.dictionaries(st.sampled_from(["jsonrpc", "id", "method", "params", "extra"]), json_values,
                    max_size=5).map(json.dumps),
    st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": json_scalars,
                           "method": st.sampled_from([n for n, _ in FUZZED]) | st.text(max_size=20),
                           "params": json_values}).map(json.dumps),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
)


def test_malformed_frames_never_break_the_server(in_process):
    start = in_process.count

    @settings(FUZZ, max_examples=FRAME_EXAMPLES)
    @given(frame=malformed_frames)
    def fuzz(frame):
        for answer in in_process.send(frame, expect_answer=False):
            assert_no_internal_error(answer)
            assert answer.get("jsonrpc") == "2.0"
    fuzz()
    assert in_process.count - start >= FRAME_EXAMPLES * 0.95


def test_the_same_holds_over_the_wire(tmp_path):
    sent = 0
    with running_server(tmp_path, seams=NO_SYSTEM) as srv:
        async def check(frames):
            async with aiohttp.ClientSession() as session:
                conn = await open_raw(srv.url, session)
                await conn.login(srv.api_key)
                for i, frame in enumerate(frames):
                    await conn.send(json.dumps({"jsonrpc": "2.0", "id": f"w{i}", "method": frame[0],
                                                "params": frame[2]}))
                for i in range(len(frames)):
                    assert_no_internal_error(await conn.answer(f"w{i}"))

        @settings(FUZZ, max_examples=WIRE_BATCHES)
        @given(frames=st.lists(method_calls(), min_size=WIRE_BATCH_SIZE, max_size=WIRE_BATCH_SIZE))
        def fuzz(frames):
            nonlocal sent
            asyncio.run(check(frames))
            sent += len(frames)
        fuzz()
    assert sent >= WIRE_BATCHES * WIRE_BATCH_SIZE * 0.95


def test_the_oracle_catches_an_internal_error():
    with pytest.raises(AssertionError, match="internal error"):
        assert_no_internal_error(rpc.error(1, rpc.INTERNAL_ERROR, "Internal error", rpc.truenas_error(14, "x")))
    with pytest.raises(AssertionError):
        assert_no_internal_error(rpc.error(1, rpc.INVALID_PARAMS, "Invalid params",
                                           rpc.truenas_error(22, "x", [["", "no path", 22]])))
