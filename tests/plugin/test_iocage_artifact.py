"""The TrueNAS CORE jail plugin (plugin/iocage, manifest.json, scripts/iocage_artifact.py) against what
iocage reads: its manifest keys and types, the artifact's files and modes, one port everywhere, and
settings.json's commands. No FreeBSD runs here, so post_install.sh, post_update.sh, the rc.d script and
the settings commands run under /bin/sh with stand-ins (small scripts named after pw, chown, chroot,
sysrc, service, python3.11 and the virtualenv's python, first on PATH) that record their arguments;
the stand-ins are not FreeBSD and only show what the scripts ask of it, in which order."""
from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tengig.cli.api_commands import serve

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "plugin" / "iocage"
OVERLAY = PLUGIN / "overlay"
RC_SCRIPT = OVERLAY / "usr/local/etc/rc.d/tengig"
WRAPPER = OVERLAY / "usr/local/bin/tengig"
INSTALL_WHEEL = OVERLAY / "usr/local/libexec/tengig-install-wheel"
MANIFEST = json.loads((REPO / "manifest.json").read_text())

sys.path.insert(0, str(REPO / "scripts"))
import iocage_artifact  # noqa: E402  (scripts/ is not a package)

# iocage's plugin manifest (iocage_lib/plugin_manifest.json, the JSON schema `iocage fetch` validates
# against): these keys and types, the first six required. "revision" is a number there, not a string.
IOCAGE_MANIFEST_KEYS = {
    "name": str, "release": str, "pkgs": list, "packagesite": str, "fingerprints": dict, "artifact": str,
    "devfs_ruleset": dict, "official": bool, "properties": dict, "revision": (int, float),
}
IOCAGE_REQUIRED_KEYS = {"name", "release", "pkgs", "packagesite", "fingerprints", "artifact"}
# Jail properties iocage knows (a subset of `iocage get all`'s names: networking and the allow_*
# switches a plugin may ask for). The manifest's "properties" become `iocage create` properties.
IOCAGE_PROPERTIES = {
    "nat", "nat_forwards", "nat_prefix", "nat_interface", "nat_backend", "dhcp", "vnet", "bpf",
    "ip4_addr", "ip6_addr", "defaultrouter", "defaultrouter6", "interfaces", "vnet_default_interface",
    "ip_hostname", "assign_localhost", "allow_raw_sockets", "allow_sysvipc", "allow_mlock", "allow_tun",
    "allow_mount", "allow_mount_nullfs", "allow_mount_tmpfs", "allow_mount_zfs", "allow_socket_af",
    "mount_procfs", "mount_fdescfs", "jail_zfs", "jail_zfs_dataset", "jail_zfs_mountpoint", "boot", "notes",
    "devfs_ruleset",
}
# FreeBSD's package for each of tengig's Python dependencies (their ports: devel/py-pydantic2,
# www/py-aiohttp, devel/py-click, devel/py-Jinja2), for Python 3.11 (the py311 flavour).
FREEBSD_PACKAGE_OF = {"pydantic": "py311-pydantic2", "aiohttp": "py311-aiohttp", "click": "py311-click",
                      "jinja2": "py311-Jinja2"}
# Python itself, its sqlite3 module (a separate package on FreeBSD) and pip; the tools tengig runs.
FREEBSD_BASE_PACKAGES = {"python311", "py311-sqlite3", "py311-pip"}
FREEBSD_TOOL_PACKAGES = {"iperf3", "fio"}
# The files iocage itself reads (post_install.sh is run as /root/post_install.sh, so it must be
# executable; post_update.sh is run with sh) and the ones the plugin's own scripts call.
EXECUTABLES = [
    "post_install.sh", "post_update.sh", "overlay/usr/local/etc/rc.d/tengig", "overlay/usr/local/bin/tengig",
    "overlay/usr/local/libexec/tengig-install-wheel", "overlay/usr/local/sbin/tengig-plugin-get",
    "overlay/usr/local/sbin/tengig-plugin-set",
]
STANDIN_KEY = "7-standinkeystandinkeystandinkeystandinkey"


def serve_default(option: str):
    return next(p.default for p in serve.params if p.name == option)


def rc_default(path: Path, var: str) -> str:
    """The default a `: "${var:=default}"` line gives in a shell script."""
    found = re.findall(rf'^: "\$\{{{var}:=([^}}]*)\}}"$', path.read_text(), flags=re.M)
    assert len(found) == 1, f"{path.name} sets {var}'s default {len(found)} times"
    return found[0]


# ----- the artifact's files --------------------------------------------------------------------------

def test_every_file_iocage_and_the_scripts_need_is_there_and_executable_in_git():
    for name in ("post_install.sh", "post_update.sh", "ui.json", "settings.json", "README.md"):
        assert (PLUGIN / name).is_file(), name
    # The mode a fresh clone gets is git's: 100755 for each script iocage or the plugin runs.
    staged = subprocess.run(["git", "-C", str(REPO), "ls-files", "-s", "--", "plugin/iocage"], capture_output=True,
                            text=True, check=True, timeout=60).stdout
    modes = {line.split("\t")[1].removeprefix("plugin/iocage/"): line.split()[0] for line in staged.splitlines()}
    for name in EXECUTABLES:
        assert os.access(PLUGIN / name, os.X_OK), f"{name} is not executable"
        if name in modes:  # committed: git must carry the x bit (new files are checked once added)
            assert modes[name] == "100755", f"{name} is {modes[name]} in git"
    for path in OVERLAY.rglob("*"):
        if path.is_file() and path.parent.name in ("bin", "sbin", "libexec", "rc.d"):
            assert str(path.relative_to(PLUGIN)) in EXECUTABLES, f"{path} is not in the list above"


def test_the_jails_scripts_are_posix_sh_because_freebsd_has_no_bash():
    for name in EXECUTABLES:
        first = (PLUGIN / name).read_text().splitlines()[0]
        assert first == "#!/bin/sh", f"{name}: {first}"


# ----- manifest.json ---------------------------------------------------------------------------------

def test_manifest_keys_are_iocages_with_the_required_ones_and_their_types():
    assert set(MANIFEST) <= set(IOCAGE_MANIFEST_KEYS), set(MANIFEST) - set(IOCAGE_MANIFEST_KEYS)
    assert IOCAGE_REQUIRED_KEYS <= set(MANIFEST), IOCAGE_REQUIRED_KEYS - set(MANIFEST)
    for key, value in MANIFEST.items():
        assert isinstance(value, IOCAGE_MANIFEST_KEYS[key]) and not (key == "revision" and isinstance(value, bool)), key
    assert MANIFEST["name"] == "tengig"
    assert MANIFEST["release"] == "13.3-RELEASE"
    assert all(isinstance(p, str) and p for p in MANIFEST["pkgs"])
    assert re.fullmatch(r"https?://pkg\.FreeBSD\.org/\$\{ABI\}/(latest|quarterly)", MANIFEST["packagesite"])
    assert MANIFEST["fingerprints"], "iocage writes one pkg repository per fingerprints entry: none means no packages"
    for repo, keys in MANIFEST["fingerprints"].items():
        assert re.fullmatch(r"[A-Za-z0-9_-]+", repo) and keys
        for key in keys:
            assert set(key) == {"function", "fingerprint"} and key["function"] == "sha256"
            assert re.fullmatch(r"[0-9a-f]{64}", key["fingerprint"])
    assert isinstance(MANIFEST["official"], bool)


def test_manifest_properties_are_iocage_properties():
    props = MANIFEST["properties"]
    assert set(props) <= IOCAGE_PROPERTIES, set(props) - IOCAGE_PROPERTIES


def test_the_jail_shares_the_nas_network_stack_and_gets_a_dataset_of_its_own():
    """plugin/iocage/README.md says why: desktops reach iperf3 and the panel on the jail's own address with
    nothing (NAT, epair, bridge) between them and the NAS's port, and the jail's ifconfig shows that port;
    the pool is measured on scratch datasets made under the dataset iocage delegates (jail_zfs)."""
    props = MANIFEST["properties"]
    assert props["vnet"] == 0 and not {"nat", "nat_forwards", "dhcp", "bpf"} & set(props)
    assert props["jail_zfs"] == 1 and props["jail_zfs_mountpoint"].startswith("/mnt/")
    assert props["allow_raw_sockets"] == 1  # ping, which proves a TrueNAS LAGG or mesh change answers
    readme = (PLUGIN / "README.md").read_text()
    assert 'ip4_addr="ix0|' in readme and "jail_zfs" in readme and "iperf3" in readme


def test_pkgs_are_freebsd_package_names_covering_every_python_dependency():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["requires-python"].startswith(">=3.11"), "the py311 packages follow requires-python"
    deps = {re.split(r"[=<>!~\[ ]", d, maxsplit=1)[0].lower() for d in project["dependencies"]}
    assert deps <= set(FREEBSD_PACKAGE_OF), f"no FreeBSD package known for {deps - set(FREEBSD_PACKAGE_OF)}"
    wanted = FREEBSD_BASE_PACKAGES | {FREEBSD_PACKAGE_OF[d] for d in deps} | FREEBSD_TOOL_PACKAGES
    assert set(MANIFEST["pkgs"]) == wanted
    # tengig-install-wheel names the same packages when one is missing.
    listed = re.search(r"pkg install ([^\"]+)\"", INSTALL_WHEEL.read_text())[1].split()
    assert set(listed) == FREEBSD_BASE_PACKAGES | {FREEBSD_PACKAGE_OF[d] for d in deps}


def test_artifact_is_the_file_url_make_iocage_artifact_writes_by_default():
    # iocage clones any artifact that is not file:// with git: a path in the repository would not work.
    assert MANIFEST["artifact"] == f"file://{iocage_artifact.DEFAULT_NAS_DIR}/artifact"
    makefile = (REPO / "Makefile").read_text()
    assert f"IOCAGE_DIR ?= {iocage_artifact.DEFAULT_NAS_DIR}\n" in makefile
    assert "scripts/iocage_artifact.py" in makefile


# ----- one port everywhere ---------------------------------------------------------------------------

def test_the_port_is_tengig_serves_everywhere():
    port = serve_default("port")
    assert port == 8610
    assert "nat_forwards" not in MANIFEST["properties"]  # the jail's own address: no forward to keep in step
    assert json.loads((PLUGIN / "ui.json").read_text()) == {"adminportal": f"http://%%IP%%:{port}/"}
    assert rc_default(RC_SCRIPT, "tengig_port") == str(port)
    assert rc_default(WRAPPER, "tengig_port") == str(port)
    assert re.search(r"^port=(\d+) ", (PLUGIN / "post_install.sh").read_text(), flags=re.M)[1] == str(port)
    settings = json.loads((PLUGIN / "settings.json").read_text())
    assert settings["options"]["port"]["default"] == str(port)


# ----- the rc.d script -------------------------------------------------------------------------------

def test_rc_script_follows_rc_subr_conventions():
    text = RC_SCRIPT.read_text()
    header = text.split("\n\n")[0]
    assert re.search(r"^# PROVIDE: tengig$", header, flags=re.M)
    assert re.search(r"^# REQUIRE: .*\bLOGIN\b", header, flags=re.M)
    assert re.search(r"^# KEYWORD: shutdown$", header, flags=re.M)
    assert re.search(r"^name=tengig$", text, flags=re.M) and RC_SCRIPT.name == "tengig"
    assert re.search(r"^rcvar=tengig_enable$", text, flags=re.M)
    assert rc_default(RC_SCRIPT, "tengig_enable") == "NO"
    assert re.search(r'^load_rc_config "\$name"$', text, flags=re.M)
    assert text.rstrip().endswith('run_rc_command "$1"')
    # The wrapper reads the same settings with the same defaults.
    for var in ("tengig_user", "tengig_group", "tengig_port", "tengig_dbdir", "tengig_venv", "tengig_truenas_url",
                "tengig_truenas_api_key_file"):
        assert rc_default(WRAPPER, var) == rc_default(RC_SCRIPT, var), var
    # post_install.sh makes the user, directories and virtualenv the service then uses.
    post_install = (PLUGIN / "post_install.sh").read_text()
    for var, rc_var in (("user", "tengig_user"), ("dbdir", "tengig_dbdir"), ("venv", "tengig_venv")):
        assert re.search(rf"^{var}=(\S+)", post_install, flags=re.M)[1] == rc_default(RC_SCRIPT, rc_var), var
    assert "venv=\"${share}/venv\"" in INSTALL_WHEEL.read_text()
    assert rc_default(RC_SCRIPT, "tengig_venv") == "/usr/local/share/tengig/venv"


RC_SUBR_STANDIN = """\
# stand-in for /etc/rc.subr (test double, not FreeBSD's): load_rc_config sets the test's rc.conf values;
# run_rc_command does what rc.subr's start does: start_precmd, then the command line run as ${name}_user
# through `su -m USER -c 'sh -c "..."'`, with ${name}_program in place of command (su and daemon are
# stand-ins on PATH).
load_rc_config() {
%s
}
err() { shift; echo "err: $*" >&2; exit 1; }
run_rc_command() {
  printf 'name=%%s\\n' "$name"
  printf 'rcvar=%%s\\n' "$rcvar"
  printf 'pidfile=%%s\\n' "$pidfile"
  printf 'procname=%%s\\n' "$procname"
  printf 'command=%%s\\n' "$command"
  eval _override_command=\\$${name}_program
  command=${_override_command:-$command}
  eval rc_flags=\\$${name}_flags _user=\\$${name}_user
  eval "$start_precmd" || exit 1
  printf 'TENGIG_DB=%%s\\n' "${TENGIG_DB-}"
  printf 'TENGIG_TRUENAS_URL=%%s\\n' "${TENGIG_TRUENAS_URL-}"
  printf 'TENGIG_TRUENAS_API_KEY_FILE=%%s\\n' "${TENGIG_TRUENAS_API_KEY_FILE-}"
  _doit="$command $rc_flags $command_args"
  if [ -n "$_user" ]; then
    _doit="su -m $_user -c 'sh -c \\"$_doit\\"'"
  fi
  eval "$_doit"
}
"""


def run_rc_script(tmp_path: Path, rc_conf: dict[str, str]) -> subprocess.CompletedProcess:
    """The rc.d script under /bin/sh, `start`, with the stand-in above for /etc/rc.subr and stand-ins
    for install(8), su(1) and daemon(8) (rc.conf's tengig_program points rc.subr at the latter)."""
    bin_dir = tmp_path / "rc-bin"
    bin_dir.mkdir(exist_ok=True)
    standin_bin(bin_dir, "install", "")
    # su -m USER -c CMD: CMD run by a shell (as USER on FreeBSD; here only recorded).
    standin_bin(bin_dir, "su", '[ "$1" = -m ] && [ "$3" = -c ] || exit 64\nexec /bin/sh -c "$4"')
    daemon = standin_bin(bin_dir, "daemon", 'for a in "$@"; do printf \'arg=%s\\n\' "$a"; done')
    conf = {"tengig_program": str(daemon), **rc_conf}
    standin = tmp_path / "rc.subr-standin"
    standin.write_text(RC_SUBR_STANDIN % "\n".join(f"  {k}='{v}'" for k, v in conf.items()))
    text = RC_SCRIPT.read_text()
    assert text.count("\n. /etc/rc.subr\n") == 1
    script = tmp_path / "tengig-rc"
    script.write_text(text.replace("\n. /etc/rc.subr\n", f"\n. {standin}\n"))
    return subprocess.run(["/bin/sh", str(script), "start"], capture_output=True, text=True, timeout=60,
                          env={"PATH": f"{bin_dir}:/usr/bin:/bin", "STANDIN_LOG": str(tmp_path / "rc.log")})


def rc_values(out: subprocess.CompletedProcess) -> tuple[dict[str, str], list[str]]:
    assert out.returncode == 0, out.stderr
    values: dict[str, str] = {}
    argv: list[str] = []
    for line in out.stdout.splitlines():
        key, _, value = line.partition("=")
        if key == "arg":
            argv.append(value)
        else:
            values[key] = value
    return values, argv


def fake_venv(tmp_path: Path) -> Path:
    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\n")
    python.chmod(0o755)
    return python


def test_rc_script_runs_tengig_serve_under_daemon_with_a_pidfile(tmp_path):
    venv_python = fake_venv(tmp_path)
    v, argv = rc_values(run_rc_script(tmp_path, {"tengig_venv": str(tmp_path / "venv")}))
    assert v["name"] == "tengig" and v["rcvar"] == "tengig_enable"
    assert v["command"] == "/usr/sbin/daemon"
    # rc.subr ran it as the service user, through su -m and sh -c, and the arguments came through whole.
    assert read_log(tmp_path / "rc.log")[-2][:4] == ["su", "-m", "tengig", "-c"]
    # daemon(8): -p writes the server's own pid, which stop and status check against procname.
    assert argv[:4] == ["-p", v["pidfile"], "-o", "/var/log/tengig.log"]
    assert v["pidfile"] == "/var/run/tengig/tengig.pid"
    assert argv[4] == v["procname"] == str(venv_python)
    assert argv[5:8] == ["-m", "tengig.cli.main", "serve"]
    # What follows is a command line tengig serve accepts, with the rc.conf defaults.
    ctx = serve.make_context("serve", argv[8:])
    assert ctx.params["host"] == "0.0.0.0" and ctx.params["port"] == serve_default("port")
    assert ctx.params["unix_socket"] == ""
    assert v["TENGIG_DB"] == "/var/db/tengig/results.sqlite3"
    assert v["TENGIG_TRUENAS_URL"] == "" and v["TENGIG_TRUENAS_API_KEY_FILE"] == ""
    calls = read_log(tmp_path / "rc.log")
    assert ["install", "-d", "-o", "tengig", "-g", "tengig", "-m", "750", "/var/db/tengig"] in calls
    assert ["install", "-d", "-o", "tengig", "-g", "tengig", "-m", "755", "/var/run/tengig"] in calls


def test_rc_script_takes_rc_conf_settings(tmp_path):
    fake_venv(tmp_path)
    v, argv = rc_values(run_rc_script(tmp_path, {
        "tengig_venv": str(tmp_path / "venv"), "tengig_port": "9000", "tengig_host": "192.168.1.50",
        "tengig_dbdir": "/data/tg", "tengig_truenas_url": "ws://192.168.1.10", "tengig_args": "--ui-dir /srv/panel"}))
    ctx = serve.make_context("serve", argv[8:])
    assert (ctx.params["host"], ctx.params["port"], str(ctx.params["ui_dir"])) == ("192.168.1.50", 9000, "/srv/panel")
    assert v["TENGIG_DB"] == "/data/tg/results.sqlite3"
    assert v["TENGIG_TRUENAS_URL"] == "ws://192.168.1.10"
    assert v["TENGIG_TRUENAS_API_KEY_FILE"] == "/usr/local/etc/tengig/truenas.key"


def test_rc_script_refuses_to_start_without_tengig_installed(tmp_path):
    out = run_rc_script(tmp_path, {"tengig_venv": str(tmp_path / "no-venv")})
    assert out.returncode == 1
    assert "tengig-install-wheel" in out.stderr and "arg=" not in out.stdout


# ----- stand-ins ------------------------------------------------------------------------------------

RECORD = ('{ printf \'%s\' "$(basename "$0")"; for a in "$@"; do printf \'\\t%s\' "$a"; done; printf \'\\n\'; } '
          '>> "$STANDIN_LOG"\n')


def standin_bin(bin_dir: Path, name: str, body: str) -> Path:
    """A stand-in for the command `name`: records its argv in $STANDIN_LOG, then runs `body`."""
    path = bin_dir / name
    path.write_text("#!/bin/sh\n# stand-in (test double), not the real " + name + "\n" + RECORD + body + "\n")
    path.chmod(0o755)
    return path


def read_log(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines()] if path.exists() else []


VENV_PYTHON_STANDIN = (
    "#!/bin/sh\n# stand-in for the virtualenv's python, not Python\n" + RECORD.replace('"$(basename "$0")"', "venv-python")
    + 'case "$*" in *"pip install"*) exit "${STANDIN_PIP_RC:-0}" ;; esac\n'
)


@pytest.fixture(scope="module")
def assembled(tmp_path_factory) -> Path:
    """`make iocage-artifact`'s output (scripts/iocage_artifact.py, a real wheel), with the folder on the
    NAS said to be where it is, so the manifest's file:// artifact can be followed."""
    out = tmp_path_factory.mktemp("iocage")
    assert iocage_artifact.main(["--out", str(out), "--nas-dir", str(out)]) == 0
    return out


@pytest.fixture
def jail(tmp_path, assembled):
    """A scratch jail root with the artifact's overlay copied on, as iocage does before post_install.sh,
    and PATH stand-ins for the FreeBSD commands the plugin's scripts run."""
    root = tmp_path / "jail"
    shutil.copytree(assembled / "artifact" / "overlay", root)
    for d in ("root", "var/db", "usr/local/etc"):
        (root / d).mkdir(parents=True, exist_ok=True)
    bin_dir = tmp_path / "standins"
    bin_dir.mkdir()
    standin_bin(bin_dir, "pw", 'if [ "$1" = usershow ]; then [ -n "${STANDIN_USER_EXISTS-}" ] && exit 0; '
                               'echo "pw: no such user" >&2; exit 67; fi')
    standin_bin(bin_dir, "chown", "")
    standin_bin(bin_dir, "sysrc", "")
    standin_bin(bin_dir, "service", "")
    standin_bin(bin_dir, "chroot", f'printf "chroot-env\\tTENGIG_DB=%s\\n" "${{TENGIG_DB-}}" >> "$STANDIN_LOG"\n'
                                   f'case "$*" in *"apikey create"*) echo {STANDIN_KEY} ;; esac')
    (bin_dir / "venv-python").write_text(VENV_PYTHON_STANDIN)
    # python3.11 -m venv ... DIR: a virtualenv whose python is the stand-in above.
    standin_bin(bin_dir, "python3.11", 'if [ "$1" = -m ] && [ "$2" = venv ]; then for d in "$@"; do :; done; '
                                       f'mkdir -p "$d/bin" && cp {bin_dir / "venv-python"} "$d/bin/python" && '
                                       'chmod 755 "$d/bin/python"; fi')
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "TENGIG_JAIL_ROOT": str(root), "STANDIN_LOG": str(tmp_path / "calls.log"),
           "HOME": "/"}
    return root, env, tmp_path / "calls.log"


def run(script: Path, env: dict[str, str], **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(script)], capture_output=True, text=True, timeout=120, env={**env, **extra})


# ----- the assembled artifact ------------------------------------------------------------------------

def test_assembled_manifest_names_an_artifact_folder_iocage_can_copy(assembled):
    manifest = json.loads((assembled / "tengig.json").read_text())
    assert {k: v for k, v in manifest.items() if k != "artifact"} == {k: v for k, v in MANIFEST.items() if k != "artifact"}
    url = manifest["artifact"]
    assert url.startswith("file:///")
    artifact = Path(url.removeprefix("file://"))
    assert artifact == assembled / "artifact" and artifact.is_dir()
    for name in ("ui.json", "settings.json", *EXECUTABLES):
        assert (artifact / name).is_file(), name
        assert stat.S_IMODE((artifact / name).stat().st_mode) == stat.S_IMODE((PLUGIN / name).stat().st_mode), name


def test_freebsd_sysctl_is_pinned_once_by_version_and_hash():
    pinned = iocage_artifact.pinned_freebsd_sysctl()
    lines = [line for line in iocage_artifact.FREEBSD_REQUIREMENTS.read_text().splitlines()
             if line and not line.startswith("#")]
    assert len(lines) == 1 and re.fullmatch(rf"freebsd-sysctl=={re.escape(pinned)} --hash=sha256:[0-9a-f]{{64}}", lines[0])
    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["freebsd"]
    assert extra == [f"freebsd-sysctl=={pinned}; platform_system == 'FreeBSD'"]


def test_assembled_artifact_bundles_the_tengig_wheel_it_names(assembled):
    share = assembled / "artifact" / iocage_artifact.WHEEL_DIR
    name = (share / "current-wheel").read_text().strip()
    assert re.fullmatch(r"tengig-[0-9][^-]*-py3-none-any\.whl", name)
    sysctl = (share / iocage_artifact.SYSCTL_POINTER).read_text().strip()
    assert sysctl == f"freebsd_sysctl-{iocage_artifact.pinned_freebsd_sysctl()}-py3-none-any.whl"
    assert sorted(p.name for p in share.glob("*.whl")) == sorted([name, sysctl])
    with zipfile.ZipFile(share / sysctl) as whl:
        assert "freebsd_sysctl/__init__.py" in whl.namelist()
    with zipfile.ZipFile(share / name) as whl:
        names = whl.namelist()
        assert "tengig/cli/main.py" in names and "tengig/server/app.py" in names
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        assert "tengig = tengig.cli.main:main" in whl.read(entry_points).decode()


def test_artifact_refuses_a_relative_folder_on_the_nas(tmp_path):
    with pytest.raises(SystemExit, match="absolute"):
        iocage_artifact.main(["--out", str(tmp_path), "--nas-dir", "tengig-iocage", "--wheel", "unused.whl"])


# ----- post_install.sh, post_update.sh ---------------------------------------------------------------

def test_post_install_creates_the_user_installs_the_bundled_wheel_makes_a_key_and_starts(jail, assembled):
    root, env, log = jail
    out = run(PLUGIN / "post_install.sh", env)
    assert out.returncode == 0, out.stderr
    calls = read_log(log)
    names = [c[0] for c in calls]
    venv = f"{root}/usr/local/share/tengig/venv"
    wheel = (root / "usr/local/share/tengig/current-wheel").read_text().strip()
    assert (root / "usr/local/share/tengig" / wheel).is_file()
    assert calls[0] == ["pw", "usershow", "-n", "tengig"]
    assert calls[1] == ["pw", "useradd", "-n", "tengig", "-c", "tengig service", "-d", "/nonexistent",
                        "-s", "/usr/sbin/nologin", "-w", "no"]
    assert calls[2] == ["chown", "tengig:tengig", f"{root}/var/db/tengig", f"{root}/usr/local/etc/tengig"]
    assert calls[3] == ["python3.11", "-m", "venv", "--system-site-packages", "--without-pip", venv]
    pip = calls[4]
    assert pip[:4] == ["venv-python", "-m", "pip", "install"]
    assert {"--no-index", "--no-deps"} <= set(pip), "pip must install only the bundled wheels, offline"
    sysctl = (root / "usr/local/share/tengig/current-freebsd-sysctl").read_text().strip()
    assert pip[-2:] == [f"{root}/usr/local/share/tengig/{wheel}", f"{root}/usr/local/share/tengig/{sysctl}"]
    assert calls[5] == ["venv-python", "-c", "import sqlite3, aiohttp, click, jinja2, pydantic"]
    # freebsd-sysctl imports, at the version the artifact pinned
    assert calls[6][:2] == ["venv-python", "-c"] and "import sys, freebsd_sysctl;" in calls[6][2]
    assert calls[6][3:] == [iocage_artifact.pinned_freebsd_sysctl()]
    assert calls[7] == ["venv-python", "-m", "tengig.cli.main", "--help"]
    assert calls[8] == ["chroot", "-u", "tengig", "-g", "tengig", "/", "/usr/local/share/tengig/venv/bin/python",
                        "-m", "tengig.cli.main", "apikey", "create", "admin"]
    assert calls[9] == ["chroot-env", "TENGIG_DB=/var/db/tengig/results.sqlite3"]
    assert calls[10:] == [["sysrc", "tengig_enable=YES"], ["service", "tengig", "start"]]
    assert names.count("service") == 1
    # The key: in a root-only file, and how to read it is said (printed and in PLUGIN_INFO).
    key_file = root / "root/tengig-api-key"
    assert key_file.read_text() == STANDIN_KEY + "\n"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    info = (root / "root/PLUGIN_INFO").read_text()
    assert "cat /root/tengig-api-key" in info and "port 8610" in info and "truenas_url=" in info
    assert "cat /root/tengig-api-key" in out.stdout and STANDIN_KEY not in out.stdout
    assert stat.S_IMODE((root / "var/db/tengig").stat().st_mode) == 0o750


def test_post_install_again_keeps_the_user_the_virtualenv_and_the_key(jail):
    root, env, log = jail
    assert run(PLUGIN / "post_install.sh", env).returncode == 0
    log.unlink()
    out = run(PLUGIN / "post_install.sh", env, STANDIN_USER_EXISTS="1")
    assert out.returncode == 0, out.stderr
    names = [c[0] for c in read_log(log)]
    assert names == ["pw", "chown", "venv-python", "venv-python", "venv-python", "venv-python", "sysrc", "service"]
    assert (root / "root/tengig-api-key").read_text() == STANDIN_KEY + "\n"


def test_post_install_stops_at_a_failed_pip_and_starts_nothing(jail):
    root, env, log = jail
    out = run(PLUGIN / "post_install.sh", env, STANDIN_PIP_RC="1")
    assert out.returncode != 0
    names = [c[0] for c in read_log(log)]
    assert "sysrc" not in names and "service" not in names and "chroot" not in names
    assert not (root / "root/tengig-api-key").exists()


def test_post_install_refuses_an_artifact_without_its_wheel(jail):
    root, env, log = jail
    (root / "usr/local/share/tengig/current-wheel").unlink()
    out = run(PLUGIN / "post_install.sh", env)
    assert out.returncode != 0
    assert "current-wheel is missing" in out.stderr and "make iocage-artifact" in out.stderr
    assert not any(c[0] == "service" for c in read_log(log))


def test_post_update_reinstalls_the_new_wheels_and_nothing_else(jail):
    root, env, log = jail
    share = root / "usr/local/share/tengig"
    earlier = [share / "tengig-0.0.9-py3-none-any.whl", share / "freebsd_sysctl-0.0.6-py3-none-any.whl"]
    for old in earlier:  # left by an earlier artifact
        old.write_bytes(b"an older wheel")
    out = run(PLUGIN / "post_update.sh", env)
    assert out.returncode == 0, out.stderr
    calls = read_log(log)
    wheel = (share / "current-wheel").read_text().strip()
    sysctl = (share / "current-freebsd-sysctl").read_text().strip()
    assert [c[0] for c in calls] == ["python3.11", "venv-python", "venv-python", "venv-python", "venv-python"]
    assert calls[1][-2:] == [f"{share}/{wheel}", f"{share}/{sysctl}"] and "--force-reinstall" in calls[1]
    assert not any(old.exists() for old in earlier) and (share / wheel).is_file() and (share / sysctl).is_file()


def test_post_install_refuses_an_artifact_without_freebsd_sysctl(jail):
    root, env, log = jail
    (root / "usr/local/share/tengig/current-freebsd-sysctl").unlink()
    out = run(PLUGIN / "post_install.sh", env)
    assert out.returncode != 0
    assert "current-freebsd-sysctl is missing" in out.stderr and "make iocage-artifact" in out.stderr
    assert not any(c[0] in ("service", "venv-python") for c in read_log(log))


# ----- settings.json ---------------------------------------------------------------------------------

SETTINGS = json.loads((PLUGIN / "settings.json").read_text())


def test_settings_commands_exist_in_the_overlay():
    assert SETTINGS["servicerestart"].split() == ["service", RC_SCRIPT.name, "restart"]
    for key in ("serviceget", "serviceset"):
        path = OVERLAY / SETTINGS[key].lstrip("/")
        assert path.is_file() and os.access(path, os.X_OK), SETTINGS[key]
        assert "," not in SETTINGS[key], "iocage splits these commands on commas"
    for name, option in SETTINGS["options"].items():
        # iocage reads requirerestart first, and readonly only when requirerestart is there.
        assert isinstance(option.get("requirerestart"), bool), name
        assert {"type", "name", "description"} <= set(option), name


@pytest.fixture
def settings_env(tmp_path):
    bin_dir = tmp_path / "standins"
    bin_dir.mkdir()
    conf = tmp_path / "rc.conf"
    conf.write_text(f"tengig_truenas_api_key_file={tmp_path}/etc/truenas.key\n")
    # sysrc stand-in: -in NAME reads the test's rc.conf lines; anything else is only recorded.
    standin_bin(bin_dir, "sysrc", f'if [ "$1" = -in ]; then sed -n "s/^$2=//p" {conf}; fi')
    standin_bin(bin_dir, "chown", "")
    return {"PATH": f"{bin_dir}:/usr/bin:/bin", "STANDIN_LOG": str(tmp_path / "calls.log")}, tmp_path


def settings_cmd(which: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(OVERLAY / SETTINGS[which].lstrip("/")), *args], capture_output=True, text=True,
                          timeout=60, env=env)


def test_serviceget_answers_every_option_and_never_shows_the_key(settings_env):
    env, tmp = settings_env
    for name in SETTINGS["options"]:
        assert settings_cmd("serviceget", env, name).returncode == 0, name
    assert settings_cmd("serviceget", env, "port").stdout == "8610\n"
    assert settings_cmd("serviceget", env, "truenas_api_key").stdout == "not set\n"
    assert settings_cmd("serviceget", env, "nonsense").returncode == 1


def test_serviceset_writes_the_url_to_rc_conf_and_the_key_to_a_private_file(settings_env):
    env, tmp = settings_env
    assert settings_cmd("serviceset", env, "truenas_url", "ws://192.168.1.10").returncode == 0
    refused = settings_cmd("serviceset", env, "truenas_url", "http://192.168.1.10")
    assert refused.returncode == 1 and "ws://" in refused.stderr
    assert settings_cmd("serviceset", env, "truenas_api_key", "1-SeCrEt").returncode == 0
    key_file = tmp / "etc/truenas.key"
    assert key_file.read_text() == "1-SeCrEt\n" and stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert settings_cmd("serviceget", env, "truenas_api_key").stdout == "set\n"
    assert settings_cmd("serviceset", env, "port", "9000").returncode == 1
    calls = [c for c in read_log(tmp / "calls.log") if c[1:2] != ["-in"]]
    assert calls == [["sysrc", "tengig_truenas_url=ws://192.168.1.10"], ["chown", "tengig", str(key_file)]]
