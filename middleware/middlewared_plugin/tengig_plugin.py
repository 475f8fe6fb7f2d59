"""tengig as a middlewared plugin: one file the installer copies into middlewared/plugins/ (SCALE).

For each tengig service (tengig.api.services.default_services()) it defines a middlewared Service
subclass of the same name and Config whose methods delegate to tengig's, declared with middlewared's
``@api_method`` (tengig's Args/Result models re-parented under ``middlewared.api.`` and onto
middlewared's own BaseModel, tengig's roles) and, for jobs, ``@job`` with tengig's lock,
lock_queue_size and abortable. What to declare is computed by tengig.plugin_spec (tested without
middlewared); this file only turns it into classes. It also serves the built panel at
``/_plugins/tengig/`` (middleware.plugin_route_add), where the panel talks to middlewared's own
``/api/current`` and logs in as TrueNAS users do. tengig's services get the middleware object in their
seams (tengig.systems.seams.inside_middlewared): ``system: truenas`` is middlewared itself.

- Sync bodies stay sync, so middlewared runs them in its thread pool; async bodies stay async.
- A job body gets a ``TenGigJob`` adapter (set_progress, aborted, check_aborted, on_abort) around
  middlewared's Job. Limit: middlewared 25.10 aborts only coroutine jobs (it cancels them); a sync
  job such as tengig.bench.run cannot see core.job_abort there. 26+ sets ``job.aborted_event``,
  which the adapter watches.
- tengig's CallError / ValidationErrors become middlewared's (same errmsg, errno, extra / each
  (attribute, errmsg, errno)); JobAborted becomes JobCancelledException (26+) or
  asyncio.CancelledError; any other tengig error goes through tengig.api.translate() first.

This file must never take middlewared down. middlewared (SCALE and CORE alike) imports every plugin
with no try/except, and builds every method's JSON schema at startup, after every import-time rule
has passed. So: on a middlewared it cannot serve (no ``middlewared.api``: CORE 13.x, SCALE before
25.04), or when tengig is missing, broken or does not conform, it logs one line and defines no
service; and before defining any, it runs middlewared's own schema builder on every model
(``_preflight``), so what would fail at startup fails here, where it only costs tengig's methods.
The file is kept valid Python 3.9 (CORE 13.3's interpreter) so that even there it is imported and
declines cleanly.
"""
from __future__ import annotations

import asyncio
import logging
import threading
import weakref

TENGIG_SERVICES = []
TENGIG_LOAD_ERROR = None

try:
    from middlewared.api import api_method
    from middlewared.api.base import BaseModel as MiddlewaredBaseModel
    from middlewared.service import CallError, Service, ValidationErrors, job
except ImportError as exc:
    TENGIG_LOAD_ERROR = (f"this middlewared cannot host tengig's methods ({exc}); TrueNAS CORE 13.x and "
                         "SCALE before 25.04 have no middlewared.api: run `tengig serve` beside it instead")

try:  # 26+: a sync job ends ABORTED when it raises this after seeing job.aborted_event
    from middlewared.job import JobCancelledException as _JobCancelled
except ImportError:  # 25.10 and earlier
    _JobCancelled = asyncio.CancelledError

logger = logging.getLogger(__name__)

__all__ = ["TenGigJob", "TENGIG_SERVICES", "TENGIG_LOAD_ERROR"]


class TenGigJob:
    """tengig's job interface around middlewared's Job."""

    def __init__(self, mw_job):
        self._job = mw_job
        self._hooks = []
        self._fired = False
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._watcher = None

    def set_progress(self, percent=None, description=None, extra=None):
        self._job.set_progress(percent, description, extra)

    @property
    def app(self):
        """The connection that started the job (None for an internal call): what TrueNAS methods that
        take the caller's connection (interface.websocket_interface) are given."""
        return getattr(self._job, "app", None)

    def _abort_seen(self):
        event = getattr(self._job, "aborted_event", None)
        if event is not None and event.is_set():
            return True
        return bool(getattr(self._job, "aborted", False))

    @property
    def aborted(self):
        if self._abort_seen():
            self._fire()
            return True
        return False

    def check_aborted(self):
        if self.aborted:
            from tengig.api import JobAborted

            raise JobAborted(f"job {getattr(self._job, 'id', '?')} was aborted")

    def on_abort(self, hook):
        with self._lock:
            fired = self._fired
            if not fired:
                self._hooks.append(hook)
        if fired or self._abort_seen():
            self._fire() if not fired else _run_hook(hook)
            return
        event = getattr(self._job, "aborted_event", None)
        if event is not None and self._watcher is None:
            self._watcher = threading.Thread(target=self._watch, args=(event,), daemon=True,
                                             name=f"tengig-abort-{getattr(self._job, 'id', '?')}")
            self._watcher.start()

    def _watch(self, event):
        while not self._done.is_set():
            if event.wait(0.5):
                self._fire()
                return

    def _fire(self):
        with self._lock:
            if self._fired:
                return
            self._fired = True
            hooks, self._hooks = self._hooks, []
        for hook in hooks:
            _run_hook(hook)

    def close(self):
        self._done.set()


def _run_hook(hook):
    try:
        hook()
    except Exception:
        logger.exception("tengig: an on_abort hook failed")


def _to_middlewared(exc):
    """The middlewared exception for ``exc`` (None: let it propagate as it is)."""
    from tengig.api import exceptions as api_exceptions
    from tengig import errors as tengig_errors

    if isinstance(exc, api_exceptions.JobAborted):
        return _JobCancelled(str(exc))
    if isinstance(exc, tengig_errors.TengigError):
        exc = api_exceptions.translate(exc) or exc
    if isinstance(exc, api_exceptions.ValidationErrors):
        verrors = ValidationErrors()
        for attribute, errmsg, errno in exc:
            verrors.add(attribute, errmsg, errno)
        return verrors
    if isinstance(exc, api_exceptions.CallError):
        return CallError(exc.errmsg, exc.errno, exc.extra)
    return None


def _reraise(exc):
    translated = _to_middlewared(exc)
    if translated is None:
        raise exc
    raise translated from exc


class _Connection:
    """middlewared's websocket app as tengig's methods that take the connection use it (the joined
    desktop's side of a run, tengig.bench.session.*): the TCP addresses, a callback when it closes, and
    room for what tengig keeps per connection. One per app, for as long as the app lives."""

    _of = weakref.WeakKeyDictionary()

    def __init__(self, app):
        origin = getattr(app, "origin", None)
        self.peer_address = getattr(origin, "rem_addr", None)
        self.local_address = getattr(origin, "loc_addr", None)
        self.bench_session = None
        self.bench_client = None
        self._app = app

    @classmethod
    def of(cls, app):
        if app is None:  # an internal call (middleware.call): no connection
            return None
        if app not in cls._of:
            cls._of[app] = cls(app)
        return cls._of[app]

    def on_close(self, callback):
        try:  # 25.04+: the websocket app runs its CLOSE callbacks when the connection ends
            from middlewared.api.base.server.ws_handler.rpc import RpcWebSocketAppEvent

            self._app.register_callback(RpcWebSocketAppEvent.CLOSE, lambda _app: callback())
        except (ImportError, AttributeError):  # no close hook: the run notices by its answer timeout
            logger.debug("tengig: no close callback on %r", type(self._app).__name__)


def _dump(method, value):
    from tengig.api.params import dump_result

    return dump_result(method.returns, value)


def _make_method(method):
    name = method.name
    if method.job is not None:
        if method.is_async:
            async def body(self, job, *args):
                adapter = TenGigJob(job)
                try:
                    return _dump(method, await getattr(self._tengig, name)(adapter, *args))
                except Exception as exc:
                    _reraise(exc)
                finally:
                    adapter.close()
        else:
            def body(self, job, *args):
                adapter = TenGigJob(job)
                try:
                    return _dump(method, getattr(self._tengig, name)(adapter, *args))
                except Exception as exc:
                    _reraise(exc)
                finally:
                    adapter.close()
    elif method.pass_app:  # async only (tengig's conformance: not a job); middlewared hands the app first
        async def body(self, app, *args):
            try:
                return _dump(method, await getattr(self._tengig, name)(_Connection.of(app), *args))
            except Exception as exc:
                _reraise(exc)
    elif method.is_async:
        async def body(self, *args):
            try:
                return _dump(method, await getattr(self._tengig, name)(*args))
            except Exception as exc:
                _reraise(exc)
    else:
        def body(self, *args):
            try:
                return _dump(method, getattr(self._tengig, name)(*args))
            except Exception as exc:
                _reraise(exc)
    body.__name__ = name
    body.__qualname__ = name
    body.__doc__ = method.doc
    if method.job is not None:
        options = method.job
        body = job(lock=options.lock, lock_queue_size=options.lock_queue_size, abortable=options.abortable,
                   description=options.description, transient=options.transient)(body)  # innermost
    if not method.authentication_required:  # callable before login: no roles; middlewared limits its rate
        return api_method(method.accepts, method.returns, authentication_required=False, pass_app=method.pass_app,
                          rate_limit=method.rate_limit)(body)
    return api_method(method.accepts, method.returns, roles=list(method.roles), pass_app=method.pass_app)(body)


def _make_service(plan, add_routes):
    source = plan.source

    def __init__(self, middleware):
        from tengig.systems.seams import inside_middlewared

        Service.__init__(self, middleware)
        # system truenas is this middlewared itself (its own methods, nothing to configure), and this
        # machine is a TrueNAS: tengig never changes its interfaces behind middlewared's back
        self._tengig = source(middleware, seams=inside_middlewared(middleware))
        if add_routes:
            _add_panel_route(middleware)

    config = type("Config", (), {"namespace": plan.namespace, "cli_namespace": plan.cli_namespace})
    namespace = {"__module__": __name__, "__qualname__": plan.class_name, "__doc__": plan.doc,
                 "Config": config, "__init__": __init__}
    for method in plan.methods:
        namespace[method.name] = _make_method(method)
    return type(plan.class_name, (Service,), namespace)


PANEL_ROUTE = ("tengig", "{path:.*}")  # /_plugins/tengig/<path>


def _add_panel_route(middleware):
    """Serve the built panel at /_plugins/tengig/ (TrueNAS's nginx proxies /_plugins/ to middlewared),
    every answer with the security headers `tengig serve` sends (the panel talks to this origin only).
    Added while middlewared constructs the services, before its web router is frozen. A failure
    here costs the panel, never middlewared."""
    try:
        from aiohttp import web
        from tengig.panel_files import panel_dir, panel_file
        from tengig.server.security_headers import HEADERS

        root = panel_dir()

        async def serve_panel(request):
            target = panel_file(root, request.match_info.get("path", "")) if root is not None else None
            if target is None:
                reason = "not found" if root is not None else "the tengig panel is not installed"
                return web.Response(status=404, text=f"{reason}\n", headers=HEADERS)
            return web.FileResponse(target, headers=HEADERS)

        middleware.plugin_route_add(PANEL_ROUTE[0], PANEL_ROUTE[1], serve_panel)
    except Exception as exc:
        logger.error("tengig panel not served at /_plugins/tengig/: %s: %s", type(exc).__name__, exc)


def _preflight(plan):
    """Run middlewared's own startup work on every tengig model now: ``core.get_methods`` builds
    each method's schema with ``get_json_schema`` while middlewared starts, and an exception there
    stops middlewared; here it only keeps tengig out."""
    from middlewared.api.base.jsonschema import get_json_schema

    for service in plan:
        for method in service.methods:
            for model in (method.accepts, method.returns):
                get_json_schema(model)


def _load():
    from tengig.plugin_conformance import check_plugin
    from tengig.plugin_spec import build_plan

    plan = build_plan(model_base=MiddlewaredBaseModel)
    violations = check_plugin(plan)
    if violations:
        raise RuntimeError("tengig plugin does not conform to middlewared's rules: " + "; ".join(violations))
    _preflight(plan)
    return [_make_service(service, add_routes=(i == 0)) for i, service in enumerate(plan)]


if TENGIG_LOAD_ERROR is None:
    try:
        TENGIG_SERVICES = _load()
    except Exception as exc:  # never stop middlewared: no tengig methods instead
        TENGIG_SERVICES = []
        TENGIG_LOAD_ERROR = f"{type(exc).__name__}: {exc}"
        logger.debug("tengig plugin load failure", exc_info=True)
if TENGIG_LOAD_ERROR is not None:
    logger.error("tengig plugin not loaded: %s", " ".join(TENGIG_LOAD_ERROR.split()))

for _service in TENGIG_SERVICES:  # middlewared collects Service subclasses from the module's globals
    globals()[_service.__name__] = _service
globals().pop("_service", None)
