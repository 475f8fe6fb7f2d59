"""The SMB share a joined client copies to, on the NAS's own Samba: the share the user names, found in
the configuration of the smbd that is running in the NAS's own network (its ``-s``/``--configfile``, else
Samba's default), with its path from testparm. The run's scratch directory lives inside it and is removed by the NAS itself,
whatever the clients did."""
from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from pydantic import BaseModel, Field

from ...errors import ToolOutputError, ValidationError
from ...names import SHARE_RE
from ..context import BenchContext
from ..parse.smbstatus_parse import parse_multichannel_setting
from .smb_probes import main_smbd_on

T = 30
DEFAULT_CONF = "/etc/samba/smb.conf"
TRUENAS_SMB_CONFIG = "TrueNAS smb.config"


class NasShare(BaseModel):
    name: str
    path: str = Field(description="The share's directory on the NAS.")
    conf: str | None = Field(description="The smb.conf of the running smbd (None: Samba's own, as on TrueNAS).")
    multichannel: bool | None = Field(None, description="Whether the NAS's Samba offers SMB multichannel (None: "
                                      "unknown).")
    multichannel_from: str | None = Field(None, description="Where that was read: TrueNAS's smb.config, or "
                                          "testparm on the running smbd's smb.conf.")

    def smbstatus_argv(self) -> list[str]:
        return ["smbstatus", "--json", *(["-s", self.conf] if self.conf else [])]


def smbd_conf_from_cmdline(args: list[str]) -> str | None:
    """smbd's argv -> its -s/--configfile value, or None (Samba's default then)."""
    for i, arg in enumerate(args):
        if arg in ("-s", "--configfile") and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--configfile="):
            return arg.split("=", 1)[1]
    return None


def running_smbd_conf(ctx: BenchContext, nas: str) -> str:
    found = main_smbd_on(ctx, nas)
    if found is None:
        raise ToolOutputError(f"no smbd runs on {nas}: start Samba (or TrueNAS's SMB service) to measure SMB")
    done = ctx.run(nas, ["cat", f"/proc/{found.pid}/cmdline"], timeout=T, check=False, record=False)
    return smbd_conf_from_cmdline(done.stdout.split("\0")) or DEFAULT_CONF


def check_share_name(name: str) -> None:
    if not SHARE_RE.fullmatch(name):
        raise ValidationError.one("request.share", f"{name!r} is not a share name (allowed: {SHARE_RE.pattern})")


def share_on_truenas(backend: Any, name: str) -> NasShare:
    """The share as TrueNAS's middlewared knows it (sharing.smb.query): its Samba's shares live in TrueNAS's
    configuration, not in an smb.conf testparm reads."""
    check_share_name(name)
    found = backend.smb_shares(name)
    if not found or not str(found[0].get("path", "")).startswith("/"):
        raise ValidationError.one("request.share", f"this TrueNAS has no SMB share {name!r}; name one of its shares "
                                  "(Shares > Windows (SMB) Shares)")
    if found[0].get("enabled") is False:
        raise ValidationError.one("request.share", f"the SMB share {name!r} is disabled on this TrueNAS; enable it")
    multichannel = backend.smb_config().get("multichannel")
    return NasShare(name=name, path=str(PurePosixPath(found[0]["path"])), conf=None,
                    multichannel=multichannel if isinstance(multichannel, bool) else None,
                    multichannel_from=TRUENAS_SMB_CONFIG)


def find_share(ctx: BenchContext, nas: str, name: str) -> NasShare:
    check_share_name(name)
    conf = running_smbd_conf(ctx, nas)
    done = ctx.run(nas, ["testparm", "-s", "-l", f"--section-name={name}", "--parameter-name=path", conf],
                   timeout=T, check=False, tool="testparm")
    path = done.stdout.strip().splitlines()[-1].strip() if done.returncode == 0 and done.stdout.strip() else ""
    if not path.startswith("/"):
        raise ValidationError.one("request.share", f"the running smbd ({conf}) has no share {name!r} with a path; "
                                  "name one of its shares")
    return NasShare(name=name, path=str(PurePosixPath(path)), conf=conf, multichannel=multichannel_in(ctx, nas, conf),
                    multichannel_from=f"testparm {conf}")


def multichannel_in(ctx: BenchContext, nas: str, conf: str) -> bool | None:
    """Whether ``conf`` has smbd offer multichannel ('server multichannel support', Samba's default where
    unset); None where testparm cannot say. testparm exits 1 over a configuration problem elsewhere (a missing
    state directory) and still prints the value: its output decides, not its exit code."""
    done = ctx.run(nas, ["testparm", "-s", "--parameter-name=server multichannel support", conf], timeout=T,
                   check=False, tool="testparm")
    try:
        return parse_multichannel_setting(done.stdout)
    except ToolOutputError:
        return None
