"""What TrueNAS answers instead of a result becomes a tengig error at one boundary (caller.py)."""
import errno

import pytest

from tengig.backends.truenas import MiddlewareCaller, TrueNASBackend, TrueNASError
from tengig.client import ClientError
from tengig.errors import ValidationError


class Recorder:
    def __init__(self, raise_: BaseException | None = None, answer=None):
        self.raise_, self.answer, self.calls = raise_, answer, []

    def call(self, method, *params, job=False):
        self.calls.append((method, params, job))
        if self.raise_ is not None:
            raise self.raise_
        return self.answer


def test_client_validation_keeps_truenas_field_paths():
    refusal = ClientError("interface.create: ...", code=-32602, errno=22, method="interface.create",
                          extra=[["interface_create.lag_ports.0", "Interface enp3s0f0 is currently in use by bond1.", 22]])
    with pytest.raises(ValidationError) as caught:
        TrueNASBackend(Recorder(refusal)).create_interface({"type": "LINK_AGGREGATION"})
    assert caught.value.errors == [("interface_create.lag_ports.0", "Interface enp3s0f0 is currently in use by bond1.")]
    assert isinstance(caught.value.__cause__, ClientError)


def test_call_errors_keep_errno_and_name_the_method():
    refusal = ClientError("There are no pending interface changes.", code=-32001, errno=errno.EFAULT)
    with pytest.raises(TrueNASError) as caught:
        TrueNASBackend(Recorder(refusal)).checkin()
    assert caught.value.errno == errno.EFAULT and caught.value.method == "interface.checkin"
    assert "interface.checkin" in str(caught.value)


def test_client_side_failures_pass_through():
    timeout = ClientError("no answer within 60 s", errno=errno.ETIMEDOUT)
    with pytest.raises(ClientError) as caught:
        TrueNASBackend(Recorder(timeout)).rollback()
    assert caught.value is timeout


def test_middlewared_exceptions_by_shape_inside_the_plugin():
    class ValidationErrors(Exception):  # middlewared's, as call_sync raises it
        def __init__(self, items):
            super().__init__("x")
            self.errors = items

    class Item:
        attribute, errmsg, errno = "interface_update.mtu", "MTU cannot be changed.", 22

    class CallError(Exception):
        errmsg, errno = "Failover needs to be disabled", errno.EPERM

    with pytest.raises(ValidationError) as invalid:
        TrueNASBackend(Recorder(ValidationErrors([Item()]))).update_interface("enp3s0f0", {"mtu": 9000})
    with pytest.raises(TrueNASError) as refused:
        TrueNASBackend(Recorder(CallError())).commit(checkin_timeout=30)
    assert invalid.value.errors == [("interface_update.mtu", "MTU cannot be changed.")]
    assert refused.value.errno == errno.EPERM


def test_middleware_caller_waits_for_jobs():
    class Job:
        def wait_sync(self, raise_error=False):
            assert raise_error
            return {"done": True}

    class Middleware:
        def call_sync(self, method, *params):
            return Job() if method == "pool.dataset.destroy_snapshots" else [method, *params]

    caller = MiddlewareCaller(Middleware())
    assert caller.call("pool.dataset.destroy_snapshots", {}, job=True) == {"done": True}
    assert caller.call("interface.query", []) == ["interface.query", []]
