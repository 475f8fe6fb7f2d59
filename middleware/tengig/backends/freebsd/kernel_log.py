"""Link up/down events of a FreeBSD interface from the kernel log: `dmesg` (the kernel message buffer,
no timestamps) or /var/log/messages (syslog: `Jul 20 21:12:13 [host] kernel: igb1: link state changed
to DOWN`). Every driver words it the same way, through if_link_state_change():

    ix0: link state changed to DOWN

Both logs are bounded: the message buffer wraps, syslog rotates. So the number of times a link went
down is only given when the text reaches back to the start of the current boot (a boot line:
`---<<BOOT>>---` or the kernel's `Copyright (c) 1992-YYYY The FreeBSD Project.`), and then only lines
after the last boot count; otherwise it is unknown (None), and the events are "what the log still has".
The count includes the DOWN a driver reports when the port is first brought up, as Linux's
carrier_down_count does.
"""
from __future__ import annotations

import re

from ...nic.models import LinkFlap

MAX_FLAP_EVENTS = 20
_EVENT = re.compile(r"(?:^|\s)(?P<ifname>[\w.]+): link state changed to (?P<state>UP|DOWN)\s*$")
_SYSLOG_TIME = re.compile(r"^(?P<at>[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d)\s")
_ISO_TIME = re.compile(r"^(?P<at>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S*)\s")
_BOOT = re.compile(r"---<<BOOT>>---|Copyright \(c\) 1992-\d{4} The FreeBSD Project\.")


def _current_boot(log: str) -> tuple[list[str], bool]:
    """The lines after the last boot line, and whether there was one."""
    lines = log.splitlines()
    starts = [i for i, line in enumerate(lines) if _BOOT.search(line)]
    return (lines[starts[-1] + 1:], True) if starts else (lines, False)


def _events(lines: list[str], ifname: str) -> list[LinkFlap]:
    out = []
    for line in lines:
        m = _EVENT.search(line)
        if m is None or m.group("ifname") != ifname:
            continue
        stamp = _SYSLOG_TIME.match(line) or _ISO_TIME.match(line)
        out.append(LinkFlap(at=stamp.group("at") if stamp else "", state=m.group("state").lower(),
                            detail=line[m.start("ifname"):].strip()))
    return out


def parse_link_events(log: str, ifname: str) -> list[LinkFlap]:
    """`ifname`'s link up/down lines (of the current boot when the log shows where it began), oldest
    first, at most the last MAX_FLAP_EVENTS."""
    lines, _ = _current_boot(log)
    return _events(lines, ifname)[-MAX_FLAP_EVENTS:]


def count_link_downs(log: str, ifname: str) -> int | None:
    """How many times `ifname` went down since boot, or None when the log does not reach back to it."""
    lines, from_boot = _current_boot(log)
    if not from_boot:
        return None
    return sum(1 for event in _events(lines, ifname) if event.state == "down")
