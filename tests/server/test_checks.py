"""Each protocol assertion fails on a frame that is wrong in the way it guards against: a check that
cannot fail would prove nothing."""
from __future__ import annotations

import copy

import pytest

from tengig.server import rpc

from .checks import assert_error, assert_field_paths, assert_job_events


def job_event(msg, state, percent=0, result=None, job_id=1):
    fields = {k: None for k in ("description", "error", "exception", "exc_info", "time_finished")}
    fields.update(id=job_id, message_ids=[5], method="demo.jobs.count", arguments=[], abortable=True,
                  transient=False, progress={"percent": percent, "description": "", "extra": None},
                  state=state, result=result, time_started={"$date": 0})
    return {"msg": msg, "collection": "core.get_jobs", "id": job_id, "fields": fields}


GOOD_EVENTS = [job_event("added", "WAITING"), job_event("changed", "RUNNING"),
               job_event("changed", "RUNNING", 50), job_event("changed", "SUCCESS", 100, result=3)]


def test_assert_error_fails_on_wrong_code_errno_id_or_a_success():
    frame = rpc.error(4, rpc.CALL_ERROR, "Method call error", rpc.truenas_error(2, "[ENOENT] gone"))
    assert_error(frame, -32001, errno=2, request_id=4)
    for wrong in ({"code": -32602}, {"errno": 22}, {"request_id": 5}):
        kwargs = {"errno": 2, "request_id": 4, **{k: v for k, v in wrong.items() if k != "code"}}
        with pytest.raises(AssertionError):
            assert_error(frame, wrong.get("code", -32001), **kwargs)
    with pytest.raises(AssertionError):
        assert_error(rpc.success(4, "pong"), -32001)


def test_assert_field_paths_fails_without_paths_or_on_a_missing_path():
    frame = rpc.error(1, rpc.INVALID_PARAMS, "Invalid params",
                      rpc.truenas_error(22, "x", [["options.limit", "too small", 22]]))
    assert_field_paths(frame, "options.limit")
    with pytest.raises(AssertionError):
        assert_field_paths(frame, "options.seconds")
    no_path = copy.deepcopy(frame)
    no_path["error"]["data"]["extra"] = [["", "too small", 22]]
    with pytest.raises(AssertionError):
        assert_field_paths(no_path)
    no_extra = copy.deepcopy(frame)
    no_extra["error"]["data"]["extra"] = None
    with pytest.raises(AssertionError):
        assert_field_paths(no_extra)


@pytest.mark.parametrize("break_it", [
    lambda ev: ev.pop(0),                                             # no ADDED
    lambda ev: ev.__setitem__(0, job_event("added", "RUNNING")),      # ADDED not WAITING
    lambda ev: ev.pop(1) and ev.pop(1),                               # never RUNNING
    lambda ev: ev.insert(3, job_event("changed", "RUNNING", 10)),     # progress backwards
    lambda ev: ev.append(job_event("changed", "FAILED", 100)),        # two final states
    lambda ev: ev.__setitem__(3, job_event("changed", "SUCCESS", 100, result=4)),  # wrong result
    lambda ev: ev[2]["fields"].pop("exc_info"),                       # job dict misses a key
    lambda ev: ev.__setitem__(2, job_event("changed", "RUNNING", 50, job_id=2)),   # another job's event
])
def test_assert_job_events_fails_on_a_broken_sequence(break_it):
    assert_job_events(copy.deepcopy(GOOD_EVENTS), "SUCCESS", result=3, message_id=5)
    events = copy.deepcopy(GOOD_EVENTS)
    break_it(events)
    with pytest.raises(AssertionError):
        assert_job_events(events, "SUCCESS", result=3, message_id=5)
