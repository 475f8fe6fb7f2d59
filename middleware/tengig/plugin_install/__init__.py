"""`tengig plugin install|status|uninstall`: the middlewared plugin on a TrueNAS SCALE, installed so
that middlewared is never left down (installer.py), on the TrueNAS found here (target.py)."""
from .installer import PluginInstaller, Status, plugin_source
from .target import InstallError, Target, detect_target

__all__ = ["InstallError", "PluginInstaller", "Status", "Target", "detect_target", "plugin_source"]
