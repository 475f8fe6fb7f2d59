"""The settings a fix may change, per platform (pure): where each lives, which of its values cost throughput, the
value that does not, and the change as a person would make it there. TrueNAS's own API on a TrueNAS (its
configuration database writes smb.conf; a hand-edited one is overwritten); Samba's smb.conf, zfs and ip
elsewhere.

Samba's values are testparm's normal forms ('mandatory' reads 'required', 'auto' reads 'if_required'); TrueNAS's
are smb.config's and pool.dataset.query's."""
from __future__ import annotations

import json
from dataclasses import dataclass

from ..errors import ValidationError
from ..units import parse_size
from ..verdict.dataset_costs import DatasetCost, shown
from .models import Platform, Setting

SMB_CONF = "smb.conf [global]"
TRUENAS_SMB = "smb.config"


@dataclass(frozen=True)
class Knob:
    """One setting on one platform: ``costly`` values slow SMB, ``better`` does not; ``what`` names it in words."""

    setting: Setting
    costly: frozenset[str]
    better: str
    what: str

    def call(self, value: str) -> str:
        """The change to ``value`` as a person makes it on that platform."""
        s = self.setting
        if s.platform == "truenas":
            if s.kind == "smb":
                field_value = value == "true" if value in ("true", "false") else value
                return f"midclt call smb.update '{json.dumps({s.key: field_value})}'"
            if s.kind == "dataset":
                return f"midclt call pool.dataset.update {s.object} '{json.dumps({s.key: value.upper()})}'"
            return (f"midclt call interface.update {s.object} '{json.dumps({s.key: int(value)})}', then "
                    "interface.commit with rollback and interface.checkin once the desktop still answers")
        if s.kind == "smb":
            return f"{s.key} = {value} in smb.conf's [global], then smbcontrol smbd reload-config"
        if s.kind == "dataset":
            return f"zfs inherit {s.key} {s.object}" if value == "inherit" else f"zfs set {s.key}={value} {s.object}"
        return f"ip link set dev {s.object} mtu {value}"


def _smb(platform: Platform, samba_key: str, truenas_key: str) -> Setting:
    if platform == "truenas":
        return Setting(platform="truenas", kind="smb", object=TRUENAS_SMB, key=truenas_key)
    return Setting(platform="system", kind="smb", object=SMB_CONF, key=samba_key)


def encryption(platform: Platform) -> Knob:
    # 'desired' encrypts every session whose client can (smbclient and Windows can): it costs as 'required' does
    if platform == "truenas":
        return Knob(_smb(platform, "", "encryption"), frozenset({"REQUIRED", "DESIRED"}), "NEGOTIATE",
                    "SMB encryption")
    return Knob(_smb(platform, "server smb encrypt", ""), frozenset({"required", "desired"}), "if_required",
                "SMB encryption")


def signing(platform: Platform) -> Knob | None:
    """Samba's server signing; TrueNAS has no signing setting of its own (None)."""
    if platform == "truenas":
        return None
    return Knob(_smb(platform, "server signing", ""), frozenset({"required", "desired"}), "default", "SMB signing")


def multichannel(platform: Platform) -> Knob:
    if platform == "truenas":
        return Knob(_smb(platform, "", "multichannel"), frozenset({"false"}), "true", "SMB multichannel")
    return Knob(_smb(platform, "server multichannel support", ""), frozenset({"no"}), "yes", "SMB multichannel")


def dataset(platform: Platform, name: str, cost: DatasetCost) -> Knob:
    """The share dataset's property ``cost`` names (verdict/dataset_costs.py), its better value the pool
    measurement's: TrueNAS's words in upper case (recordsize as '128K' on both)."""
    setting = Setting(platform=platform, kind="dataset", object=name, key=cost.prop)
    what = f"{cost.prop}={shown(cost.prop, cost.share_value)} ({cost.what})"
    if platform == "truenas":
        return Knob(setting, frozenset({normal(setting, cost.share_value)}), normal(setting, cost.better), what)
    return Knob(setting, frozenset({normal(setting, cost.share_value)}), cost.better, what)


def mtu(platform: Platform, ifname: str) -> Setting:
    return Setting(platform=platform, kind="interface", object=ifname, key="mtu")


def normal(setting: Setting, value: str) -> str:
    """A value as the catalogue compares it: testparm's Yes/No and TrueNAS's booleans in lower case."""
    text = value.strip()
    if setting.kind == "dataset" and setting.key == "recordsize":
        try:
            return str(int(text)) if text.isdigit() else str(parse_size(text))
        except ValidationError:
            return text
    if setting.kind == "smb" and text.lower() in ("yes", "no", "true", "false"):
        return text.lower()
    if setting.platform == "truenas" and setting.kind == "dataset":
        return text.upper()
    return text
