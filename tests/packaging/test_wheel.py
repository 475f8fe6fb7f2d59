"""The wheel is complete: built from a clean copy of the checkout (tracked files and the built panel,
nothing else), installed into a fresh virtualenv outside the checkout, it renders a FreeBSD LAGG and a
mesh from its own templates and serves its own panel. Nothing here imports the checkout's tengig in
the venv (no PYTHONPATH, cwd /tmp, python -I): make setup's editable install would hide a missing file.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tengig import __version__
from tengig.lagg import plan_lagg, render
from tengig.mesh import plan_mesh, render_host

from ..lagg.layouts import seed001
from ..mesh.layouts import seed000_core, seed000_scale

REPO = Path(__file__).resolve().parents[2]
UI_DIST = REPO / "ui" / "dist"
LOCK = REPO / "requirements.lock"
STEP_TIMEOUT = 900  # seconds: a hung pip or build fails the test instead of hanging the suite


def _clean_env() -> dict[str, str]:
    """The caller's environment without what would put another tengig on sys.path or turn pip's cache off."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PIP_NO_CACHE_DIR")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(argv: list[str | Path], *, cwd: Path | str = "/tmp", env: dict[str, str] | None = None,
         check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(a) for a in argv], cwd=cwd, env=env or _clean_env(), capture_output=True, text=True,
                          timeout=STEP_TIMEOUT)
    if check and proc.returncode != 0:
        pytest.fail(f"{' '.join(map(str, argv))} exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def _clean_copy(dest: Path) -> Path:
    """The checkout's tracked files (as they are on disk) plus ui/dist: no build/, egg-info or stray files."""
    listed = _run(["git", "-C", REPO, "ls-files", "-z"], cwd=REPO).stdout.split("\0")
    for rel in filter(None, listed):
        src = REPO / rel
        if src.is_file() or src.is_symlink():  # a tracked file deleted locally is not copied
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel, follow_symlinks=False)
    shutil.copytree(UI_DIST, dest / "ui" / "dist")
    return dest


@pytest.fixture(scope="module")
def src(tmp_path_factory) -> Path:
    """The clean copy the wheel is built from; the tests compare with it, not with the checkout, which
    may be rebuilt meanwhile (make test rebuilds ui/dist)."""
    if not (UI_DIST / "index.html").is_file():
        pytest.fail(f"{UI_DIST} is not built; `make setup` builds it (the wheel must carry the panel)")
    return _clean_copy(tmp_path_factory.mktemp("checkout"))


@pytest.fixture(scope="module")
def wheel(src, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", out, src], cwd=src)
    built = sorted(out.glob("*.whl"))
    assert [w.name for w in built] == [f"tengig-{__version__}-py3-none-any.whl"]
    return built[0]


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh virtualenv with the wheel, its dependencies at requirements.lock's versions (pip, with its cache).
    The venv gets no pip of its own (ensurepip would cost 5 CPU-s): this pip installs into it (``--python``)."""
    root = tmp_path_factory.mktemp("venv") / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", root])
    pip = [sys.executable, "-m", "pip", "--python", root / "bin" / "python"]
    _run([*pip, "install", "--quiet", "--constraint", LOCK, wheel])
    _run([*pip, "check"])
    return root


def test_the_wheel_holds_every_template_and_the_built_panel(src, wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        templates = [p.relative_to(src / "middleware").as_posix() for p in (src / "middleware").rglob("templates/*")]
        assert {"tengig/lagg/templates/freebsd-rc.conf.j2", "tengig/mesh/templates/netplan.yaml.j2",
                "tengig/desk/templates/join-windows.ps1.j2"} <= set(templates)
        assert [t for t in templates if t not in names] == []
        dist = src / "ui" / "dist"
        panel = {f"tengig/panel/{p.relative_to(dist).as_posix()}": p for p in dist.rglob("*") if p.is_file()}
        assert any(name.endswith(".js") for name in panel)
        assert {name for name in names if name.startswith("tengig/panel/")} == set(panel)
        assert [name for name, p in panel.items() if zf.read(name) != p.read_bytes()] == []
        plugin = src / "middleware" / "middlewared_plugin" / "tengig_plugin.py"
        assert zf.read("tengig/middlewared_plugin/tengig_plugin.py") == plugin.read_bytes()
    outside = [n for n in names if not n.startswith(("tengig/", f"tengig-{__version__}.dist-info/"))]
    assert outside == []


def test_the_venv_imports_its_own_tengig_not_the_checkout(venv):
    probe = "import json, sys, tengig, tengig.panel_files as p; " \
            "print(json.dumps([tengig.__file__, str(p.panel_dir()), sys.path]))"
    tengig_file, panel, path = json.loads(_run([venv / "bin" / "python", "-I", "-c", probe]).stdout)
    plugin = _run([venv / "bin" / "python", "-I", "-c",
                   "from tengig.plugin_install import plugin_source; print(plugin_source())"]).stdout.strip()
    assert Path(plugin) == Path(tengig_file).parent / "middlewared_plugin" / "tengig_plugin.py"
    assert Path(tengig_file).is_relative_to(venv)
    assert Path(panel) == Path(tengig_file).parent / "panel"
    assert [p for p in path if p and Path(p).resolve().is_relative_to(REPO)] == []


def _tengig(venv: Path, *args: str | Path) -> str:
    return _run([venv / "bin" / "tengig", *args]).stdout


def _request_file(tmp_path: Path, name: str, doc: dict) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc))
    return path


def test_renders_a_freebsd_lagg_rc_conf(venv, tmp_path):
    request = seed001("freebsd")
    out = _tengig(venv, "lagg", "validate", "--request", _request_file(tmp_path, "lagg", request))
    [rc_conf] = [f for f in render(plan_lagg(request)).files if f.path == "/etc/rc.conf"]
    assert f"# --- /etc/rc.conf ---\n{rc_conf.content}" in out
    assert 'ifconfig_lagg0="laggproto roundrobin laggport ix0 laggport ix2 mtu 9000 inet 10.20.0.5/24 up"' in out
    assert out.endswith("valid\n")


@pytest.mark.parametrize("layout, host, flavour", [
    (seed000_core, "lab", "freebsd-rc"), (seed000_core, "desk", "powershell"),
    (seed000_scale, "lab", "netplan"), (seed000_scale, "lab", "networkd"), (seed000_scale, "lab", "ifupdown"),
])
def test_renders_a_mesh_host_from_every_template(venv, tmp_path, layout, host, flavour):
    request = layout()
    out = _tengig(venv, "mesh", "render", "--request", _request_file(tmp_path, "mesh", request), host,
                  "--flavour", flavour)
    expected = render_host(plan_mesh(request), host, flavour).files
    assert expected
    assert out == "".join(f"# --- {f.path} ---\n{f.content}" for f in expected)


def test_renders_the_windows_join_kit(venv, tmp_path):
    token = "tgb-" + "0123456789abcdef" * 3
    out = tmp_path / "tengig-join.ps1"
    said = _tengig(venv, "client", "kit", "--os", "windows", "--nas", "ws://nas:8610", "--token", token,
                   "--share", "media", "--out", out)
    assert "powershell -ExecutionPolicy Bypass -File tengig-join.ps1" in said
    kit = out.read_text()
    # its configuration and the functions the wheel ships in tengig/desk/winkit/
    assert f"'Token' = '{token}'" in kit and "function Invoke-KitMain($Kit) {" in kit


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read()


def test_serves_the_packaged_panel(src, venv, tmp_path):
    env = _clean_env() | {"TENGIG_DB": str(tmp_path / "results.sqlite3")}
    server = subprocess.Popen([venv / "bin" / "tengig", "serve", "--host", "127.0.0.1", "--port", "0",
                               "--unix-socket", ""], cwd="/tmp", env=env, stderr=subprocess.PIPE, text=True)
    try:
        said = []
        for line in server.stderr:  # ends (and the test fails below) if the server exits before it listens
            said.append(line)
            if "tengig serving on " in line:
                break
        match = re.search(r"tengig serving on ws://127\.0\.0\.1:(\d+)/", "".join(said))
        assert match, f"tengig serve did not start:\n{''.join(said)}"
        url = f"http://127.0.0.1:{match.group(1)}/"
        status, index = _get(url)
        assert status == 200
        assert index == (src / "ui" / "dist" / "index.html").read_bytes()
        scripts = re.findall(r'src="\./(assets/[^"]+\.js)"', index.decode())
        assert scripts, "index.html names no JS asset"
        status, script = _get(url + scripts[0])
        assert status == 200
        assert script == (src / "ui" / "dist" / scripts[0]).read_bytes()
    finally:
        server.send_signal(signal.SIGTERM)
        _, rest = server.communicate(timeout=60)
    assert server.returncode == 0, rest
    assert "tengig stopped" in rest
