"""Build hook: the wheel carries the built panel and the middlewared plugin file.

pyproject.toml holds the metadata; this only adds one step to build_py. `tengig serve` and the
middlewared plugin serve the panel from tengig/panel/ in an installed wheel (tengig.panel_files), so a
wheel build copies the repository's ui/dist there, and refuses to build without it: a wheel without
its panel would install fine and then answer 404 at /. ui/dist is a build output (`npm run build`),
never committed. An editable install (scripts/setup.sh) skips the copy: it serves ui/dist in place.
The plugin file (middleware/middlewared_plugin/tengig_plugin.py, not a tengig module: middlewared
imports it) goes to tengig/middlewared_plugin/, where `tengig plugin install` finds it.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.errors import SetupError

HERE = Path(__file__).resolve().parent
UI_DIST = HERE / "ui" / "dist"
PANEL_IN_PACKAGE = ("tengig", "panel")  # tengig.panel_files.PACKAGED_PANEL
PLUGIN_FILE = HERE / "middleware" / "middlewared_plugin" / "tengig_plugin.py"
PLUGIN_IN_PACKAGE = ("tengig", "middlewared_plugin", "tengig_plugin.py")  # tengig.plugin_install.plugin_source


class BuildPyWithPanel(build_py):
    """build_py, then ui/dist copied to <build>/tengig/panel/."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        if not (UI_DIST / "index.html").is_file():
            raise SetupError(
                f"the panel is not built ({UI_DIST}/index.html is missing), and the wheel must carry it: "
                "run `make setup` (or `npm ci && npm run build` in ui/) first"
            )
        target = Path(self.build_lib, *PANEL_IN_PACKAGE)
        shutil.rmtree(target, ignore_errors=True)  # no assets of an earlier build
        shutil.copytree(UI_DIST, target)
        plugin = Path(self.build_lib, *PLUGIN_IN_PACKAGE)
        plugin.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PLUGIN_FILE, plugin)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if not self.editable_mode and UI_DIST.is_dir():
            target = Path(self.build_lib, *PANEL_IN_PACKAGE)
            outputs += [str(target / p.relative_to(UI_DIST)) for p in sorted(UI_DIST.rglob("*")) if p.is_file()]
            outputs.append(str(Path(self.build_lib, *PLUGIN_IN_PACKAGE)))
        return outputs


setup(cmdclass={"build_py": BuildPyWithPanel})
