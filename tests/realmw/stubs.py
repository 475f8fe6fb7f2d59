"""Stand-ins for the native modules middlewared imports that have no PyPI package (tests only)."""
import importlib.abc, importlib.machinery, itertools, sys, types

_numbers = itertools.count(1)

ROOTS = {"libzfs", "truenas_pylibzfs", "zettarepl", "wbclient", "cryptit", "samba", "tdb", "systemd", "ldap", "gssapi"}


class _AnyMeta(type):
    """A class whose every attribute is another such class: annotations (X | None), base classes,
    constants and calls all work at import time; nothing here is ever run for real."""

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _AnyMeta(name, (), {})

    def __iter__(cls):
        return iter(())


def _anything(name):
    return _AnyMeta(name, (), {"__init__": lambda self, *a, **k: None,
                              "__getattr__": lambda self, n: _anything(n)})


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        # CONSTANT_NAMES become distinct ints (enum members are built from them); the rest classes.
        value = next(_numbers) if name.isupper() else _anything(name)
        setattr(self, name, value)
        return value


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in ROOTS:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _Finder())
