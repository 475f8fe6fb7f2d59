"""Each option's default lives once, in its API model's Field: services read the validated model's
attributes (tengig.api.params.typed), and the layers below take the value from them as an argument.

Two scans (AST, no import of what they read) fail when a default is written again:
- in the services and api/checkins.py: ``x.get("<field>", <literal>)`` / ``x.pop(...)`` /
  ``getattr(x, "<field>", <literal>)`` for a field of any API input model;
- in the functions the services hand those values to: a parameter named like the option with a
  literal default (checkin_timeout=60, seconds=3, ...).
"""
from __future__ import annotations

import ast
from pathlib import Path

from pydantic import BaseModel

import tengig.api.models as api_models
from tengig.api.models.base import ApiInput, default_of
from tengig.api.models.lagg import TenGigLaggApplyOptions, TenGigLaggVerifyOptions
from tengig.api.models.mesh import TenGigMeshApplyOptions, TenGigMeshVerifyOptions
from tengig.checkin import CHECKIN_TIMEOUT_S

PACKAGE = Path(__file__).resolve().parents[2] / "middleware" / "tengig"
SERVICE_FILES = sorted((PACKAGE / "api" / "services").glob("*.py")) + [PACKAGE / "api" / "checkins.py"]

# The lower-layer functions that receive an option's value from a service (or the CLI), and the
# parameters that must come from the caller, never from a default of their own.
PASSED_IN = {
    "mesh/orchestrate.py": {"apply_mesh": {"checkin_timeout"},
                            "verify_on": {"measure_throughput", "seconds", "min_percent"}},
    "mesh/verify.py": {"verify_mesh": {"measure_throughput", "seconds", "min_percent"}},
    "mesh/apply_truenas.py": {"apply_truenas": {"checkin_timeout"}},
    "lagg/apply_truenas.py": {"apply_lagg_truenas": {"checkin_timeout"}},
    "lagg/measure.py": {"verify_on": {"seconds", "omit"}, "measure_lagg": {"seconds", "omit"}},
    "backends/truenas/staged_change.py": {"apply_staged": {"checkin_timeout"}},
    "backends/truenas/backend.py": {"commit": {"checkin_timeout"}},
}


def _input_fields() -> set[str]:
    """Every field name of every API input model (tengig.api.models.*)."""
    import importlib
    import pkgutil

    names: set[str] = set()
    for info in pkgutil.iter_modules(api_models.__path__):
        module = importlib.import_module(f"{api_models.__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, ApiInput) and issubclass(value, BaseModel):
                names.update(value.model_fields)
    return names


def _is_literal(node: ast.AST) -> bool:
    """A value written out: a number, string, bool, or a list/dict/tuple/set display (None is no default)."""
    if isinstance(node, ast.Constant):
        return node.value is not None
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return True
    return isinstance(node, (ast.List, ast.Dict, ast.Tuple, ast.Set))


def literal_option_reads(source: str, fields: set[str]) -> list[tuple[int, str]]:
    """(line, text) of each read of an option field with a literal fallback."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        key, fallback = node.args[0], node.args[1]
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop", "setdefault"):
            pass
        elif isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) == 3:
            key, fallback = node.args[1], node.args[2]
        else:
            continue
        if isinstance(key, ast.Constant) and key.value in fields and _is_literal(fallback):
            found.append((node.lineno, ast.unparse(node)))
    return found


def literal_parameter_defaults(source: str, functions: dict[str, set[str]]) -> list[tuple[int, str]]:
    """(line, 'function(param=default)') for each named parameter that has a literal default."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name not in functions:
            continue
        args = node.args
        positional = args.posonlyargs + args.args
        pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
        pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        for arg, default in pairs:
            if arg.arg in functions[node.name] and _is_literal(default):
                found.append((node.lineno, f"{node.name}({arg.arg}={ast.unparse(default)})"))
    return found


def test_services_read_options_from_their_model_not_from_a_literal_default():
    fields = _input_fields()
    assert {"checkin_timeout", "wait_for_checkin", "seconds", "streams", "include_virtual"} <= fields
    offenders = {path.relative_to(PACKAGE).as_posix(): hits for path in SERVICE_FILES
                 if (hits := literal_option_reads(path.read_text(), fields))}
    assert offenders == {}


def test_lower_layers_take_the_value_from_the_caller():
    offenders = {}
    for rel, functions in PASSED_IN.items():
        source = (PACKAGE / rel).read_text()
        defined = {n.name for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        assert set(functions) <= defined, f"{rel}: a function this test guards was renamed; update PASSED_IN"
        if hits := literal_parameter_defaults(source, functions):
            offenders[rel] = hits
    assert offenders == {}


def test_the_scans_catch_a_default_written_again():
    fields = {"checkin_timeout", "seconds"}
    assert literal_option_reads('t = options.get("checkin_timeout", 60)', fields) == \
        [(1, "options.get('checkin_timeout', 60)")]
    assert literal_option_reads('t = getattr(options, "seconds", 3)', fields) != []
    assert literal_option_reads('t = options.get("checkin_timeout")', fields) == []
    assert literal_option_reads('t = options.get("other", 60)', fields) == []
    assert literal_parameter_defaults("def f(a, *, checkin_timeout: int = 60): pass", {"f": {"checkin_timeout"}}) \
        == [(1, "f(checkin_timeout=60)")]
    assert literal_parameter_defaults("def f(a, seconds=5): pass", {"f": {"seconds"}}) != []
    assert literal_parameter_defaults("def f(a, *, seconds: int): pass", {"f": {"seconds"}}) == []


def test_one_checkin_timeout_for_every_apply():
    assert default_of(TenGigMeshApplyOptions, "checkin_timeout") == CHECKIN_TIMEOUT_S
    assert default_of(TenGigLaggApplyOptions, "checkin_timeout") == CHECKIN_TIMEOUT_S


def test_the_cli_flags_default_to_the_models():
    from tengig.cli.lagg_commands import verify_command as lagg_verify
    from tengig.cli.mesh_commands import verify_command as mesh_verify

    def flag(command, name):
        return next(p.default for p in command.params if p.name == name)

    assert flag(mesh_verify, "seconds") == default_of(TenGigMeshVerifyOptions, "seconds")
    assert flag(mesh_verify, "min_percent") == default_of(TenGigMeshVerifyOptions, "min_percent")
    assert flag(lagg_verify, "seconds") == default_of(TenGigLaggVerifyOptions, "seconds")
