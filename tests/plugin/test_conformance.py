"""The middlewared plugin plan against docs/truenas-api.md §1: tengig's real services pass, and each rule,
broken on purpose, is reported under its own tag (and only that one)."""
from __future__ import annotations

import dataclasses

import pytest
from pydantic import BaseModel, ConfigDict, Field

from tengig.api.decorators import _API_ATTR, _JOB_ATTR, ApiMethodSpec, JobOptions
from tengig.api.models.base import ApiInput, ApiOutput
from tengig.api.models.bench import TenGigBenchRunArgs, TenGigBenchRunRequest, TenGigBenchRunResult
from tengig.plugin_conformance import (
    APP_SIGNATURE, BUILTIN_ROLE, BUILTIN_ROLES, CONFIG_NAMESPACE, FIELD_DESCRIPTION, INPUT_FORBIDS_EXTRA, JOB_SIGNATURE,
    MODEL_BASE, MODEL_MODULE, MODEL_NAME, RESULT_ONE_FIELD, RULES, _models_in, check_plugin, rule_of,
)
from tengig.plugin_spec import PLUGIN_MODEL_MODULE, build_plan, method_names, reparent

MW = "middlewared.api.tengig_test"


class MiddlewaredBaseStandIn(BaseModel):
    """Stand-in for middlewared.api.base.BaseModel: the class methods middlewared calls at startup
    (real middlewared is in tests/realmw)."""

    @classmethod
    def schema_model_fields(cls):
        return dict(cls.model_fields)

    @classmethod
    def from_previous(cls, value):
        return value

    @classmethod
    def to_previous(cls, value):
        return value


def check(services):
    return check_plugin(services, model_base=MiddlewaredBaseStandIn)


def rules(violations: list[str]) -> set[str]:
    return {rule_of(v) for v in violations}


def declare(fn, accepts, returns, roles=("FULL_ADMIN",), job: JobOptions | None = None, pass_app: bool = False):
    """Attach tengig's declarations without tengig's import-time checks (to build broken services)."""
    setattr(fn, _API_ATTR, ApiMethodSpec(accepts, returns, tuple(roles), True, True, pass_app))
    if job is not None:
        setattr(fn, _JOB_ATTR, job)
    return fn


def model(name: str, base: type[BaseModel], module: str = MW, **fields) -> type[BaseModel]:
    namespace = {"__module__": module, "__qualname__": name, "__annotations__": {}}
    for field, (annotation, default) in fields.items():
        namespace["__annotations__"][field] = annotation
        namespace[field] = default
    return type(base)(name, (base,), namespace)


def ok_args(name="FooPingArgs"):
    return model(name, ApiInput, value=(int, Field(1, description="A value.")))


def ok_result(name="FooPingResult"):
    return model(name, ApiOutput, result=(int, Field(description="The value.")))


def service(name="FooService", namespace="foo", cli_namespace="foo", **methods):
    config = type("Config", (), {"namespace": namespace, "cli_namespace": cli_namespace})
    return type(name, (), {"Config": config, **methods})


def bench_plan():
    return [s for s in build_plan(model_base=MiddlewaredBaseStandIn) if s.class_name == "TenGigBenchService"][0]


def replace_run(**changes):
    plan = bench_plan()
    methods = tuple(dataclasses.replace(m, **changes) if m.name == "run" else m for m in plan.methods)
    return dataclasses.replace(plan, methods=methods)


# -- the real plugin -------------------------------------------------------------------------------

def test_real_plan_has_no_violations():
    assert check(build_plan(model_base=MiddlewaredBaseStandIn)) == []


def test_real_plan_declares_every_public_method():
    assert method_names(build_plan()) == [
        "tengig.bench.kit", "tengig.bench.network", "tengig.bench.pool", "tengig.bench.run",
        "tengig.bench.session.join", "tengig.bench.session.next", "tengig.bench.session.submit",
        "tengig.bench.smb", "tengig.bench.systems", "tengig.fix.apply", "tengig.fix.plan", "tengig.fix.query",
        "tengig.fix.undo",
        "tengig.lagg.analyse", "tengig.lagg.apply", "tengig.lagg.checkin", "tengig.lagg.plan", "tengig.lagg.validate", "tengig.lagg.verify",
        "tengig.mesh.apply", "tengig.mesh.checkin", "tengig.mesh.plan", "tengig.mesh.render", "tengig.mesh.verify", "tengig.nic.query",
        "tengig.results.compare", "tengig.results.delete", "tengig.results.export", "tengig.results.get",
        "tengig.results.query",
        "tengig.targets.create", "tengig.targets.delete", "tengig.targets.query",
    ]


def test_bench_jobs_keep_their_options():
    jobs = [method for method in bench_plan().methods if method.name not in ("systems", "kit")]  # plain calls
    assert len(jobs) == 4
    for method in jobs:
        assert method.job is not None and method.job.lock_queue_size == 0 and method.job.abortable
        assert method.job.lock([{"pool": "tank"}]) == "tengig.bench:tank"
        assert method.roles == ("FULL_ADMIN",)


def test_models_are_reparented_not_mutated():
    run = [m for m in bench_plan().methods if m.name == "run"][0]
    assert run.accepts.__name__ == "TenGigBenchRunArgs" and run.accepts.__module__ == PLUGIN_MODEL_MODULE
    assert issubclass(run.accepts, TenGigBenchRunArgs) and run.accepts is not TenGigBenchRunArgs
    assert TenGigBenchRunArgs.__module__ == "tengig.api.models.bench"
    assert TenGigBenchRunResult.__module__ == "tengig.api.models.bench"
    assert list(run.returns.model_fields) == ["result"]
    assert reparent(TenGigBenchRunArgs, model_base=MiddlewaredBaseStandIn) is run.accepts  # one copy per model
    # a copy validates like the original, unknown keys refused
    assert run.accepts.model_validate({"request": {"pool": "tank"}}).request.pool == "tank"
    with pytest.raises(Exception):
        run.accepts.model_validate({"request": {"nope": 1}})


def test_nested_models_are_walked():
    assert TenGigBenchRunRequest in _models_in(TenGigBenchRunArgs)


def test_role_list_covers_what_trueNAS_md_names():
    assert {"READONLY_ADMIN", "FULL_ADMIN", "NETWORK_INTERFACE_WRITE", "DATASET_WRITE", "SHARING_SMB_WRITE"} <= BUILTIN_ROLES


# -- each rule, broken on purpose ------------------------------------------------------------------

def test_result_with_two_fields():
    two = model("TenGigBenchRunResult", ApiOutput, result=(int, Field(description="r")),
                extra=(int, Field(description="e")))
    assert rules(check([replace_run(returns=reparent(two, MW, MiddlewaredBaseStandIn))])) == {RESULT_ONE_FIELD}


def test_result_field_not_named_result():
    one = model("FooPingResult", ApiOutput, value=(int, Field(description="v")))
    cls = service(ping=declare(lambda self, value: value, ok_args(), one))
    assert rules(check([cls])) == {RESULT_ONE_FIELD}


def test_wrong_model_names():
    cls = service(ping=declare(lambda self, value: value, ok_args("FooPingArguments"), ok_result("PingResult")))
    violations = check([cls])
    assert rules(violations) == {MODEL_NAME} and len(violations) == 2
    assert "FooPingArgs" in violations[0] and "FooPingResult" in violations[1]


def test_model_name_uses_middlewareds_camel_case():
    def get_jobs(self, value):
        return value
    cls = service(get_jobs=declare(get_jobs, ok_args("FooGetJobsArgs"), ok_result("FooGetJobsResult")))
    assert check([cls]) == []


def test_models_outside_middlewared_api():
    outside = reparent(TenGigBenchRunArgs, TenGigBenchRunArgs.__module__, MiddlewaredBaseStandIn)
    assert rules(check([replace_run(accepts=outside)])) == {MODEL_MODULE}
    cls = service(ping=declare(lambda self, value: value, ok_args(), model(
        "FooPingResult", ApiOutput, module="tengig.api.models.foo", result=(int, Field(description="r")))))
    assert check([cls]) == []  # a class is planned: its models are re-parented, whatever their module


def test_made_up_role():
    assert rules(check([replace_run(roles=("TENGIG_ADMIN",))])) == {BUILTIN_ROLE}


def test_no_roles():
    assert rules(check([replace_run(roles=())])) == {BUILTIN_ROLE}


def test_before_login_no_roles_and_roles_refused():
    run = next(m for m in bench_plan().methods if m.name == "run")
    assert run.authentication_required and run.roles
    assert rules(check([replace_run(authentication_required=False)])) == {BUILTIN_ROLE}
    join = next(m for s in build_plan(model_base=MiddlewaredBaseStandIn) for m in s.methods
                if m.full_name == "tengig.bench.session.join")
    assert not join.authentication_required and join.roles == () and join.pass_app


def test_a_method_given_the_connection_must_be_async_take_app_and_not_be_a_job():
    async def join(self, app, token):
        return token
    assert check([service(ping=declare(join, ok_args(), ok_result(), pass_app=True))]) == []

    async def no_app(self, token):
        return token
    assert rules(check([service(ping=declare(no_app, ok_args(), ok_result(), pass_app=True))])) == {APP_SIGNATURE}

    def sync(self, app, token):
        return token
    assert rules(check([service(ping=declare(sync, ok_args(), ok_result(), pass_app=True))])) == {APP_SIGNATURE}
    assert rules(check([replace_run(pass_app=True)])) == {APP_SIGNATURE}


def test_missing_cli_namespace():
    violations = check([service(cli_namespace="")])
    assert rules(violations) == {CONFIG_NAMESPACE} and "cli_namespace" in violations[0]


def test_missing_namespace():
    config = type("Config", (), {"cli_namespace": "foo"})
    assert rules(check([type("FooService", (), {"Config": config})])) == {CONFIG_NAMESPACE}


def test_job_without_job_parameter():
    def ping(self, value):
        return value
    cls = service(ping=declare(ping, ok_args(), ok_result(), job=JobOptions(lock="x", lock_queue_size=0)))
    assert rules(check([cls])) == {JOB_SIGNATURE}

    def pong(self, value, job):
        return value
    cls = service(ping=declare(pong, ok_args(), ok_result(), job=JobOptions()))
    assert rules(check([cls])) == {JOB_SIGNATURE}


def test_job_with_job_parameter_passes():
    def ping(self, job, value):
        return value
    cls = service(ping=declare(ping, ok_args(), ok_result(), job=JobOptions()))
    assert check([cls]) == []


def test_field_without_description_top_level():
    args = model("FooPingArgs", ApiInput, value=(int, 1))
    cls = service(ping=declare(lambda self, value: value, args, ok_result()))
    violations = check([cls])
    assert rules(violations) == {FIELD_DESCRIPTION} and "FooPingArgs.value" in violations[0]


def test_field_without_description_nested():
    inner = model("FooInner", ApiInput, depth=(int, 1))
    args = model("FooPingArgs", ApiInput, items=(list[inner] | None, Field(None, description="Items.")))
    cls = service(ping=declare(lambda self, items: items, args, ok_result()))
    violations = check([cls])
    assert rules(violations) == {FIELD_DESCRIPTION} and "FooInner.depth" in violations[0]

    inner_out = model("FooOut", ApiOutput, x=(int, Field()))
    result = model("FooPingResult", ApiOutput, result=(dict[str, inner_out], Field(description="r")))
    cls = service(ping=declare(lambda self, value: value, ok_args(), result))
    assert rules(check([cls])) == {FIELD_DESCRIPTION}


def test_input_allowing_extra_keys():
    loose = model("FooPingArgs", BaseModel, value=(int, Field(1, description="v")))
    cls = service(ping=declare(lambda self, value: value, loose, ok_result()))
    assert rules(check([cls])) == {INPUT_FORBIDS_EXTRA}


def test_nested_input_allowing_extra_keys():
    class Loose(BaseModel):
        model_config = ConfigDict(extra="allow")
        x: int = Field(1, description="x")
    args = model("FooPingArgs", ApiInput, inner=(Loose, Field(default_factory=Loose, description="i")))
    cls = service(ping=declare(lambda self, inner: inner, args, ok_result()))
    violations = check([cls])
    assert rules(violations) == {INPUT_FORBIDS_EXTRA} and "Loose" in violations[0]


def test_every_rule_has_a_test():
    tested = {RESULT_ONE_FIELD, MODEL_NAME, MODEL_MODULE, BUILTIN_ROLE, CONFIG_NAMESPACE, JOB_SIGNATURE, APP_SIGNATURE,
              FIELD_DESCRIPTION, INPUT_FORBIDS_EXTRA, MODEL_BASE}
    assert tested == set(RULES)


def test_plain_pydantic_models_are_refused():
    """What stopped real middlewared at startup: models that are not middlewared's BaseModel."""
    violations = check_plugin(build_plan())
    assert rules(violations) == {MODEL_BASE}
    assert len(violations) == 2 * len(method_names(build_plan()))  # every Args and Result
