"""Install, check and remove the middlewared plugin without ever leaving middlewared down.

Install, in order, stopping with nothing changed at the first refusal:
1. preflight: root; a middlewared that can host the plugin (``middlewared.api``); its plugins
   directory writable (SCALE developer mode); middlewared answering now; what is installed already
   (the same version: nothing to do unless ``force``).
2. stage tengig (a copy of this package) and the plugin file under ``lib_dir/staging``.
3. import-test the staged plugin with middlewared's own interpreter and its own plugin loader
   (``load_modules``): it must load with no error and define tengig's services.
4. back up what is live (plugin file, ``tengig.pth``, tengig's copy, the record), put the staged
   files in place, restart middlewared.
5. wait until middlewared serves every ``tengig.*`` method; if it does not within the timeout,
   put the backup back, restart, wait until middlewared answers again, and say so.

Uninstall removes the three files and restarts; status reads the record, the files and what
middlewared serves. Every step reports through ``say`` (the CLI prints it).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import tengig

from ..errors import CommandError
from ..panel_files import panel_dir
from ..runner import Runner
from .target import DEVELOPER_MODE_HINT, InstallError, Target, read_only

DEFAULT_TIMEOUT = 300.0  # a SCALE middlewared with every plugin takes one to three minutes to start
POLL_SECONDS = 1.0
PLUGIN_NAME = "tengig_plugin.py"

# Run by middlewared's interpreter: load the staged plugin through middlewared's own loader.
_IMPORT_TEST = """
import json, os, sys
lib, plugins = sys.argv[1], sys.argv[2]
# As middlewared loads an overlay directory: its parent on sys.path, so the module is plugins.tengig_plugin
sys.path[:] = [lib, os.path.dirname(plugins)] + [p for p in sys.path if p]
try:
    from middlewared.utils.plugins import load_modules   # SCALE 25.x
except ImportError:
    from middlewared.utils import load_modules           # CORE 13.x
out = {}
try:
    (module,) = list(load_modules(plugins))
    import tengig
    out = {"error": getattr(module, "TENGIG_LOAD_ERROR", "not a tengig plugin"),
           "services": [cls.__name__ for cls in getattr(module, "TENGIG_SERVICES", [])],
           "tengig": tengig.__file__}
except BaseException as exc:
    out = {"error": f"{type(exc).__name__}: {exc}", "services": []}
print(json.dumps(out))
"""


def plugin_source() -> Path:
    """The plugin file shipped with this tengig: inside the package (a wheel), else the checkout's."""
    here = Path(tengig.__file__).resolve().parent
    for candidate in (here / "middlewared_plugin" / PLUGIN_NAME, here.parents[0] / "middlewared_plugin" / PLUGIN_NAME):
        if candidate.is_file():
            return candidate
    raise InstallError(f"this tengig has no {PLUGIN_NAME} (looked beside {here}); reinstall tengig from its wheel")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class Status:
    installed_version: str | None     # from the record
    plugin_file: str                  # "absent" | "as installed" | "changed since install" | "present, not recorded"
    middlewared: str                  # "serving" | "not answering: ..."
    methods: list[str]                # tengig.* methods middlewared serves now

    def lines(self) -> list[str]:
        version = self.installed_version or "not installed"
        served = f"{len(self.methods)} tengig.* methods" if self.methods else "no tengig.* methods"
        return [f"tengig plugin: {version}", f"plugin file: {self.plugin_file}",
                f"middlewared: {self.middlewared}; it serves {served}"]


class PluginInstaller:
    def __init__(self, target: Target, *, runner: Runner | None = None, say: Callable[[str], None] = lambda _: None,
                 timeout: float = DEFAULT_TIMEOUT, source: Path | None = None, package_dir: Path | None = None,
                 expected_methods: list[str] | None = None, version: str | None = None):
        self.target = target
        self.runner = runner or Runner()
        self.say = say
        self.timeout = timeout
        self.source = source or plugin_source()
        self.package_dir = package_dir or Path(tengig.__file__).resolve().parent
        self.version = version or _own_version()
        self._expected = expected_methods

    # ------------------------------------------------------------------ what middlewared serves
    def expected_methods(self) -> list[str]:
        if self._expected is None:
            from ..plugin_spec import build_plan, method_names

            self._expected = method_names(build_plan())
        return self._expected

    def _midclt(self, *args: str, timeout: float = 60):
        return self.runner.run([*self.target.midclt, *args], timeout=timeout, check=False)

    def answering(self) -> str | None:
        """None when middlewared answers core.ping, else why not."""
        try:
            done = self._midclt("call", "core.ping", timeout=30)
        except CommandError as exc:
            return str(exc)
        if done.returncode == 0 and done.stdout.strip() == "pong":
            return None
        return (done.stderr.strip() or done.stdout.strip() or f"exit {done.returncode}").splitlines()[-1]

    def served_methods(self) -> list[str]:
        try:
            done = self._midclt("call", "core.get_methods", timeout=120)
            methods = json.loads(done.stdout) if done.returncode == 0 else {}
        except (CommandError, ValueError):
            return []
        return sorted(name for name in methods if name.startswith("tengig."))

    def _wait(self, want_tengig: bool) -> bool:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.answering() is None:
                if not want_tengig:
                    return True
                if set(self.expected_methods()) <= set(self.served_methods()):
                    return True
            time.sleep(POLL_SECONDS)
        return False

    # ------------------------------------------------------------------ status
    def record(self) -> dict | None:
        try:
            return json.loads(self.target.record_file.read_text())
        except (OSError, ValueError):
            return None

    def status(self) -> Status:
        record = self.record()
        plugin = self.target.plugin_file
        if not plugin.exists():
            state = "absent"
        elif record is None:
            state = "present, not recorded (installed by hand?)"
        else:
            state = "as installed" if _sha256(plugin) == record.get("plugin_sha256") else "changed since install"
        why = self.answering()
        return Status(installed_version=record.get("version") if record else None, plugin_file=state,
                      middlewared="serving" if why is None else f"not answering: {why}",
                      methods=self.served_methods() if why is None else [])

    # ------------------------------------------------------------------ install
    def preflight(self, force: bool) -> str | None:
        """Why nothing needs doing (the same version serves already), or None; raises InstallError
        when the install must not start."""
        if os.geteuid() != 0:
            raise InstallError("run as root (e.g. `sudo tengig plugin install`): the install writes middlewared's "
                               "plugins directory and restarts middlewared; nothing was changed")
        if not self.target.has_api:
            raise InstallError("this middlewared cannot host tengig's methods (no middlewared.api: TrueNAS CORE 13.x "
                               "or SCALE before 25.04); nothing was changed. Run tengig beside it instead: the CORE "
                               "jail plugin, or `tengig serve` with TENGIG_TRUENAS_URL")
        if read_only(self.target.plugins_dir):
            raise InstallError(f"{self.target.plugins_dir} is read-only (developer mode is off); "
                               f"{DEVELOPER_MODE_HINT}; nothing was changed")
        why = self.answering()
        if why is not None:
            raise InstallError(f"middlewared is not answering ({why}); start it (systemctl start middlewared) and "
                               "run the install again; nothing was changed")
        record = self.record()
        if record and record.get("version") == self.version and not force and self.target.plugin_file.exists() \
                and _sha256(self.target.plugin_file) == _sha256(self.source) \
                and set(self.expected_methods()) <= set(self.served_methods()):
            return f"tengig {self.version} is already installed and middlewared serves it; nothing to do"
        return None

    def install(self, force: bool = False) -> str:
        done = self.preflight(force)
        if done is not None:
            self.say(done)
            return done
        previous = (self.record() or {}).get("version")
        self.target.lib_dir.mkdir(parents=True, exist_ok=True)
        staging = self.target.lib_dir / "staging"
        shutil.rmtree(staging, ignore_errors=True)
        try:
            self._stage(staging)
            self._import_test(staging)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        backup = self._swap_in(staging)
        self.say("restarting middlewared")
        self.runner.run(list(self.target.restart), timeout=120)
        self.say(f"waiting up to {self.timeout:.0f} s for middlewared to serve tengig.*")
        if self._wait(want_tengig=True):
            shutil.rmtree(backup, ignore_errors=True)
            what = f"tengig {self.version} installed" + (f" (replacing {previous})" if previous else "")
            message = f"{what}; middlewared serves {len(self.expected_methods())} tengig.* methods"
            self.say(message)
            return message
        self.say("middlewared did not serve tengig.* in time: restoring the previous state")
        self._restore(backup)
        self.runner.run(list(self.target.restart), timeout=120)
        back = self._wait(want_tengig=bool(previous))
        state = ("the previous state was restored and middlewared serves again" if back else
                 "the previous state was restored, but middlewared is still not answering: check "
                 "`journalctl -u middlewared`")
        raise InstallError(f"middlewared did not serve tengig.* within {self.timeout:.0f} s after installing tengig "
                           f"{self.version}; {state}")

    def _stage(self, staging: Path) -> None:
        self.say(f"staging tengig {self.version} in {staging}")
        shutil.copytree(self.package_dir, staging / "lib" / "tengig",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        packaged_panel = staging / "lib" / "tengig" / "panel"
        if not (packaged_panel / "index.html").is_file():  # a checkout: the built ui/dist goes with it
            built = panel_dir()
            if built is None:
                self.say("the panel is not built (run `make setup`): /_plugins/tengig/ will say so")
            else:
                shutil.copytree(built, packaged_panel, dirs_exist_ok=True)
        (staging / "plugins").mkdir(parents=True)
        shutil.copy2(self.source, staging / "plugins" / PLUGIN_NAME)

    def _import_test(self, staging: Path) -> None:
        self.say("import test with middlewared's interpreter and plugin loader")
        lib, plugins = staging / "lib", staging / "plugins"
        try:
            done = self.runner.run([str(self.target.python), "-c", _IMPORT_TEST, str(lib), str(plugins)], timeout=180)
            result = json.loads(done.stdout.strip().splitlines()[-1])
        except (CommandError, ValueError, IndexError) as exc:
            raise InstallError(f"the import test could not run ({exc}); nothing was changed") from exc
        if result.get("error") or not result.get("services"):
            raise InstallError(f"the plugin does not load in this middlewared: {result.get('error') or 'no services'}; "
                               "nothing was changed")
        if not str(result.get("tengig", "")).startswith(str(lib)):
            raise InstallError(f"middlewared's interpreter imports another tengig ({result.get('tengig')}) before "
                               "the one being installed; remove it first; nothing was changed")

    def _live_paths(self) -> dict[str, Path]:
        t = self.target
        return {"plugin": t.plugin_file, "pth": t.pth_file, "lib": t.lib_dir / "lib", "record": t.record_file}

    def _swap_in(self, staging: Path) -> Path:
        backup = self.target.lib_dir / f"backup-{_dt.datetime.now().strftime('%Y%m%dT%H%M%S')}"
        backup.mkdir(parents=True)
        for name, live in self._live_paths().items():
            if live.exists():
                shutil.move(str(live), str(backup / name))
        os.replace(staging / "lib", self.target.lib_dir / "lib")
        tmp = self.target.plugins_dir / ".tengig_plugin.installing"  # not *.py: never imported half-written
        shutil.copy2(staging / "plugins" / PLUGIN_NAME, tmp)
        os.replace(tmp, self.target.plugin_file)
        self.target.pth_file.write_text(f"{self.target.lib_dir / 'lib'}\n")
        self.target.record_file.write_text(json.dumps({
            "version": self.version, "plugin_sha256": _sha256(self.target.plugin_file),
            "installed_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        }))
        shutil.rmtree(staging, ignore_errors=True)
        return backup

    def _restore(self, backup: Path) -> None:
        for name, live in self._live_paths().items():
            if live.is_dir():
                shutil.rmtree(live)
            else:
                live.unlink(missing_ok=True)
            saved = backup / name
            if saved.exists():
                shutil.move(str(saved), str(live))
        shutil.rmtree(backup, ignore_errors=True)

    # ------------------------------------------------------------------ uninstall
    def uninstall(self) -> str:
        if os.geteuid() != 0:
            raise InstallError("run as root (e.g. `sudo tengig plugin uninstall`); nothing was changed")
        paths = self._live_paths()
        if not any(path.exists() for path in paths.values()):
            message = "the tengig plugin is not installed; nothing to do"
            self.say(message)
            return message
        if read_only(self.target.plugins_dir):
            raise InstallError(f"{self.target.plugins_dir} is read-only (developer mode is off); "
                               f"{DEVELOPER_MODE_HINT}; nothing was changed")
        for path in paths.values():
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
        self.say("restarting middlewared")
        self.runner.run(list(self.target.restart), timeout=120)
        if not self._wait(want_tengig=False):
            raise InstallError(f"the plugin was removed, but middlewared did not answer within {self.timeout:.0f} s: "
                               "check `journalctl -u middlewared`")
        message = "tengig plugin removed; middlewared serves again"
        self.say(message)
        return message


def _own_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tengig")
    except PackageNotFoundError:
        return "0+unknown"
