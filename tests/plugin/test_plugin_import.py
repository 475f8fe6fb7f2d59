"""The plugin's job adapter, delegation and error translation, unit-tested against a stand-in for
middlewared.

The stand-in (written to a temporary directory, named ``middlewared`` as the plugin expects) provides
only what the plugin imports, with middlewared's signatures (api/base/decorator.py api_method,
service/decorators.py job, service_exception.py CallError/ValidationErrors, api/base BaseModel's three
class methods and jsonschema.get_json_schema). It is NOT middlewared: loading, registration, schemas,
validation errors, jobs and the panel route are tested in real middlewared 25.10 and 25.04
(tests/realmw). What stays here is what real middlewared cannot be made to do on demand: a job
aborted mid-way, an abort event, a FakeJob's exact progress list."""
from __future__ import annotations

import ast
import asyncio
import errno
import importlib.util
import inspect
import sys
import textwrap
from pathlib import Path

import pytest
from pydantic import Field

from tengig import errors as tengig_errors
from tengig.api import Service as TengigService, api_method, job
from tengig.api.exceptions import CallError as TengigCallError
from tengig.api.models.base import ApiInput, ApiOutput
from tengig.plugin_spec import plan_service

PLUGIN = Path(__file__).resolve().parents[2] / "middleware" / "middlewared_plugin" / "tengig_plugin.py"

STAND_IN = {
    "middlewared/__init__.py": '"""Stand-in for middlewared (tests only)."""\n',
    "middlewared/api/__init__.py": '''
        """Stand-in: api_method with middlewared's signature and import-time checks."""
        API_CALLS = []


        def api_method(accepts, returns, *, audit=None, audit_callback=False, audit_extended=None, rate_limit=True,
                       roles=None, private=False, cli_private=False, authentication_required=True,
                       authorization_required=True, pass_app=False, pass_app_require=False,
                       pass_thread_local_storage=False, skip_args=None, removed_in=None, check_annotations=False):
            if list(returns.model_fields) != ["result"]:
                raise TypeError("`returns` model must only have one field called `result`")
            for model in (accepts, returns):
                if not model.__module__.startswith("middlewared.api."):
                    raise ValueError(f"{model.__name__} is defined in {model.__module__}")
            if not roles:
                raise ValueError("Role definition is required for public API endpoints")

            def wrapper(func):
                names = list(func.__code__.co_varnames)[:func.__code__.co_argcount]
                expected = ["self"] + (["job"] if hasattr(func, "_job") else [])
                if names[:len(expected)] != expected:
                    raise RuntimeError(f"Invalid method signature for {func!r}: must start with {expected}")
                func.new_style_accepts = accepts
                func.new_style_returns = returns
                func.roles = roles
                API_CALLS.append(func.__name__)
                return func
            return wrapper
    ''',
    "middlewared/api/base/__init__.py": '''
        """Stand-in: middlewared's BaseModel with the class methods middlewared calls at startup."""
        import pydantic


        class BaseModel(pydantic.BaseModel):
            @classmethod
            def schema_model_fields(cls):
                return dict(cls.model_fields)

            @classmethod
            def from_previous(cls, value):
                return value

            @classmethod
            def to_previous(cls, value):
                return value
    ''',
    "middlewared/api/base/jsonschema.py": '''
        """Stand-in: get_json_schema as middlewared builds it (one schema per argument)."""


        def get_json_schema(model):
            schema = model.model_json_schema()
            return [schema["properties"][name] for name in model.schema_model_fields()]
    ''',
    "middlewared/service/__init__.py": '''
        """Stand-in: Service, job, CallError, ValidationErrors."""
        import errno

        JOB_CALLS = []


        class CallError(Exception):
            def __init__(self, errmsg, errno=errno.EFAULT, extra=None):
                super().__init__(errmsg)
                self.errmsg, self.errno, self.extra = errmsg, errno, extra


        class ValidationErrors(Exception):
            def __init__(self, errors=None):
                super().__init__()
                self.errors = list(errors or [])

            def add(self, attribute, errmsg, errno=errno.EINVAL):
                self.errors.append((attribute, errmsg, errno))


        class Service:
            def __init__(self, middleware):
                self.middleware = middleware


        def job(lock=None, lock_queue_size=5, logs=False, pipes=None, check_pipes=True, transient=False,
                description=None, abortable=False, read_roles=None):
            def check_job(fn):
                JOB_CALLS.append({"name": fn.__name__, "lock": lock, "lock_queue_size": lock_queue_size,
                                  "abortable": abortable, "transient": transient, "description": description})
                fn._job = {"lock": lock, "lock_queue_size": lock_queue_size, "abortable": abortable}
                return fn
            return check_job
    ''',
}


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    for name, text in STAND_IN.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m == "middlewared" or m.startswith("middlewared.")]:
        monkeypatch.delitem(sys.modules, name)
    spec = importlib.util.spec_from_file_location("tengig_plugin_under_test", PLUGIN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    for name in [m for m in sys.modules if m == "middlewared" or m.startswith("middlewared.")]:
        del sys.modules[name]


def test_plugin_is_valid_python_39():
    """CORE 13.3 imports it with Python 3.9: it must parse there to decline cleanly."""
    ast.parse(PLUGIN.read_text(), filename=str(PLUGIN), feature_version=(3, 9))


# -- delegation, the job adapter and errors, through a small tengig service -------------------------

class TenGigEchoEchoArgs(ApiInput):
    value: int = Field(description="A value; negative is refused, 13 is a call error.")


class TenGigEchoEchoResult(ApiOutput):
    result: int = Field(description="The value.")


class TenGigEchoCountArgs(ApiInput):
    upto: int = Field(3, description="Count to this.")


class TenGigEchoCountResult(ApiOutput):
    result: list[int] = Field(description="The numbers counted.")


class TenGigEchoLaterArgs(ApiInput):
    value: int = Field(description="A value.")


class TenGigEchoLaterResult(ApiOutput):
    result: int = Field(description="The value doubled.")


class TenGigEchoService(TengigService):
    class Config:
        namespace = "tengig.echo"
        cli_namespace = "tengig.echo"

    @api_method(TenGigEchoEchoArgs, TenGigEchoEchoResult, roles=["READONLY_ADMIN"])
    def echo(self, value):
        if value < 0:
            raise tengig_errors.ValidationError.one("value", "must not be negative")
        if value == 13:
            raise TengigCallError("unlucky", errno.EPERM)
        return value

    @api_method(TenGigEchoCountArgs, TenGigEchoCountResult, roles=["FULL_ADMIN"])
    @job(lock="echo", lock_queue_size=0, abortable=True)
    def count(self, job, upto):
        seen = []
        job.on_abort(lambda: seen.append(-1))
        for n in range(upto):
            job.check_aborted()
            job.set_progress(100 * (n + 1) / upto, f"counted {n + 1}")
            seen.append(n)
        return seen

    @api_method(TenGigEchoLaterArgs, TenGigEchoLaterResult, roles=["READONLY_ADMIN"])
    async def later(self, value):
        return self.middleware.twice(value)


class FakeJob:
    def __init__(self, abort_after=None):
        self.id = 7
        self.progress = []
        self.aborted = False
        self.abort_after = abort_after

    def set_progress(self, percent=None, description=None, extra=None):
        self.progress.append((percent, description, extra))
        if self.abort_after is not None and len(self.progress) >= self.abort_after:
            self.aborted = True


class FakeMiddleware:
    def twice(self, value):
        return 2 * value


@pytest.fixture
def echo(plugin):
    from middlewared.api.base import BaseModel

    cls = plugin._make_service(plan_service(TenGigEchoService, model_base=BaseModel), add_routes=False)
    return cls(FakeMiddleware())


def test_sync_method_delegates_and_stays_sync(echo):
    assert not inspect.iscoroutinefunction(type(echo).echo)
    assert echo.echo(5) == 5


def test_async_method_stays_async(echo):
    assert inspect.iscoroutinefunction(type(echo).later)
    assert asyncio.run(echo.later(4)) == 8


def test_errors_become_middlewareds(echo):
    from middlewared.service import CallError, ValidationErrors

    with pytest.raises(ValidationErrors) as raised:
        echo.echo(-1)
    assert raised.value.errors == [("value", "must not be negative", errno.EINVAL)]
    with pytest.raises(CallError) as raised:
        echo.echo(13)
    assert (raised.value.errmsg, raised.value.errno) == ("unlucky", errno.EPERM)


def test_job_adapter_progress_and_result(echo):
    mw_job = FakeJob()
    assert echo.count(mw_job, 2) == [0, 1]
    assert mw_job.progress == [(50.0, "counted 1", None), (100.0, "counted 2", None)]


def test_job_adapter_abort_ends_cancelled_and_runs_hooks(echo):
    mw_job = FakeJob(abort_after=1)
    with pytest.raises(asyncio.CancelledError):  # no middlewared.job.JobCancelledException in the stand-in
        echo.count(mw_job, 5)
    assert len(mw_job.progress) == 1


def test_job_adapter_watches_aborted_event(plugin):
    import threading

    class EventJob(FakeJob):
        def __init__(self):
            super().__init__()
            self.aborted_event = threading.Event()

    mw_job = EventJob()
    adapter = plugin.TenGigJob(mw_job)
    fired = threading.Event()
    adapter.on_abort(fired.set)
    assert not adapter.aborted
    mw_job.aborted_event.set()
    assert fired.wait(5) and adapter.aborted
    adapter.close()
