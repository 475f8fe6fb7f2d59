"""Stand-ins for the native modules middlewared imports that have no PyPI package (tests only)."""
import importlib.abc
import importlib.machinery
import itertools
import os
import sys
import types

_numbers = itertools.count(1)

# What SCALE 26 imports that no package registry has (its own truenas_* packages but the API client, and the
# rest of its Debian-only modules).
NEXT_ROOTS = (
    "truenas_pynetif", "truenas_pylibvirt", "truenas_os_pyutils", "truenas_connect_utils", "truenas_os",
    "truenas_crypto_utils", "truenas_pylicensed", "truenas_pypam", "truenas_acme_utils", "truenas_pymdns",
    "truenas_pyscram", "truenas_zfstierd_common", "truenas_zfstierd_client", "truenas_authenticator",
    "truenas_pypwenc", "truenas_keyring", "truenas_api_key", "truenas_verify", "truenas_pysnmp", "truenas_pylibsed",
    "truenas_pam_session", "truenas_pam_faillog", "truenas_pyscstadmin", "truenas_spdk",
    "catalog_reader", "ixhardware", "ixdiagnose", "licenselib", "libsgio", "pyctdb", "pysss_nss_idmap",
    "pysss_murmur", "scstadmin", "spdk", "fenced", "kmip", "apps_ci", "apps_schema", "apps_validation", "docker",
    "jeepney", "boto3", "botocore", "google", "googleapiclient", "acme", "josepy", "influxdb", "pyinotify",
    "pyVim", "pyVmomi", "certbot_dns_digitalocean", "certbot_dns_cloudflare", "certbot_dns_google",
    "certbot_dns_ovh", "aws_requests_auth", "libvirt", "netsnmpagent", "asyncssh", "aiorwlock", "pystemd",
)
# SCALE 25.x's native modules; a 26 interpreter adds NEXT_ROOTS (its .pth line, harness.py), and a test adds
# CORE's (FreeBSD) ones through TENGIG_TEST_STUBS=a,b,c.
ROOTS = {"libzfs", "truenas_pylibzfs", "zettarepl", "wbclient", "cryptit", "samba", "tdb", "systemd", "ldap", "gssapi",
         *filter(None, os.environ.get("TENGIG_TEST_STUBS", "").split(","))}


class _AnyMeta(type):
    """A class whose every attribute is another such class: annotations (X | None), base classes,
    constants and calls all work at import time; nothing here is ever run for real."""

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _AnyMeta(name, (), {})

    def __iter__(cls):
        return iter(())

    # flag constants combined at import time (~A, A | B, A & B) and context managers
    def __invert__(cls):
        return cls

    def __or__(cls, other):
        return cls

    __ror__ = __and__ = __rand__ = __or__


def _anything(name):
    return _AnyMeta(name, (), {"__init__": lambda self, *a, **k: None,
                              "__getattr__": lambda self, n: _anything(n)(),
                              "__getitem__": lambda self, key: _anything("item")(),
                              "__setitem__": lambda self, key, value: None,
                              "__iter__": lambda self: iter(()),
                              "__enter__": lambda self: self,
                              "__exit__": lambda self, *exc: False,
                              "__invert__": lambda self: self,
                              "__or__": lambda self, other: self,
                              "__and__": lambda self, other: self,
                              "__call__": _call})


def _call(self, *args, **kwargs):
    """An instance called as a decorator gives the function back; otherwise another stand-in."""
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return _anything("result")()


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
