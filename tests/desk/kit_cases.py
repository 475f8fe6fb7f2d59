"""Instructions and their verdicts by tengig client join's own checks (desk/instructions.py, desk/peer_rule.py),
written as JSON for the Windows kit's Pester tests (tests/desk/kit/*.Tests.ps1): the kit must refuse what the
Python desktop refuses, naming the same field, and take what it takes (the same iperf3 arguments).
Each case: name, kind, params (as the NAS sends them), and the Python verdict: ``field`` (the refusal's
field, None when taken), ``argv`` (iperf3's arguments after the program, when taken)."""
from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Any

from tengig.desk.instructions import iperf3_argv, smallfiles_op, smb_op
from tengig.desk.peer_rule import _on_own_cable, connect_argv
from tengig.errors import ValidationError

from .replay_cases import PEER_CASES

NAS = frozenset({"127.0.0.1"})  # the addresses the kit joined (the Pester tests' $Kit.NasAddresses)
SHARE = "media"  # the kit's share (the Pester tests render it for this one)
IPERF3 = {"server": "127.0.0.1", "port": 5201, "streams": 1, "seconds": 1, "omit": 0, "reverse": False}
SMB = {"op": "put", "server": "127.0.0.1", "share": SHARE, "remote": "tengig-bench-1-1-desk\\f0.dat", "size": 1048576}
SMALL = {"op": "write", "server": "127.0.0.1", "share": SHARE, "remote": "tengig-scratch-1-s\\desk", "size": 4096,
         "count": 10}
PEER = {"op": "connect", "server": "10.250.3.2", "port": 5201, "streams": 1, "seconds": 1, "omit": 0, "reverse": False}
PEER_ATTACHED = ["10.250.3.1/30", "192.168.1.20/24"]
MISSING = object()

# (field changed, its values): each one changed alone from the kind's base
IPERF3_CHANGES = [("server", ["10.0.0.9", "nas.example.lan", "127.0.0.1 ", "::ffff:127.0.0.1", "fe80::1%eth0", 7, None,
                              "127.000.0.1", "127.0.0.1;calc"]),
                  ("port", [0, 65536, "5201", 5201.0, True, None, MISSING, 65535]),
                  ("seconds", [0, 601, 600, -1, "1"]), ("omit", [-1, 61, 60]), ("streams", [0, 65, 64, 2.5]),
                  ("reverse", [True, "yes", 1, None])]
SMB_CHANGES = [("op", ["prepare", "get", "rm", "PUT", None, 1]),
               ("share", ["other", "Media", "me dia", "", None, "media/../x"]),
               ("remote", ["tengig-bench-1-1-desk", "tengig-bench-1-1-desk\\f99.dat", "..\\f0.dat",
                           "tengig-bench-1-1-desk\\..\\f0.dat", "tengig-scratch-1-s\\desk\\f0.dat",
                           "tengig-scratch-1-s\\Desk", "C:\\Windows\\f0.dat", None]),
               ("server", ["10.0.0.9", "localhost"]),
               ("size", [1048575, 68719476737, 68719476736, "1048576", 1048576.5, None])]
SMALL_CHANGES = [("op", ["prepare", "stat", "read", "delete", "disk", "chmod", None]),
                 ("share", ["other", None]),
                 ("remote", ["tengig-bench-1-1-desk", "tengig-bench-1-1-desk\\f0.dat", "tengig-scratch-1-s\\..",
                             "tengig-scratch-1-s\\desk\\x", None]),
                 ("size", [511, 16777217, 16777216, 512, "4096"]), ("count", [0, 2458, 2457, 1.0]),
                 ("server", ["10.0.0.9"])]
# the product over the limit: 16 MiB files, 17 of them (each bound alone is within its limits)
SMALL_TOTALS = [{"size": 16777216, "count": 17}, {"size": 16777216, "count": 16}, {"size": 1048576, "count": 257}]
PEER_CHANGES = [("server", ["10.250.3.3", "10.250.3.0", "10.250.9.2", "192.168.1.77", "8.8.8.8", "fe80::1", "x", None]),
                ("port", [5200, 5264, 5265, 22]), ("seconds", [0, 60, 61]), ("omit", [10, 11]),
                ("streams", [16, 17, 0]), ("reverse", [True])]


def _changed(base: dict[str, Any], field: str, value: Any) -> dict[str, Any]:
    params = dict(base)
    if value is MISSING:
        del params[field]
    else:
        params[field] = value
    return params


def _verdict(check, params: dict[str, Any]) -> dict[str, Any]:
    try:
        out = check(params)
    except ValidationError as exc:
        [(field, _)] = exc.errors
        return {"field": field, "argv": None}
    return {"field": None, "argv": out[1:] if isinstance(out, list) else None}


def instruction_cases() -> list[dict[str, Any]]:
    subnets = [ipaddress.IPv4Interface(a).network for a in PEER_ATTACHED]
    kinds = [("iperf3", IPERF3, IPERF3_CHANGES, lambda p: iperf3_argv(p, NAS)),
             ("smb", SMB, SMB_CHANGES, lambda p: smb_op(p, NAS)),
             ("smallfiles", SMALL, SMALL_CHANGES, lambda p: smallfiles_op(p, NAS)),
             ("peer", PEER, PEER_CHANGES, lambda p: connect_argv(p, subnets))]
    cases = []
    for kind, base, changes, check in kinds:
        variants = [("as asked", dict(base))]
        variants += [(f"{field}={'missing' if value is MISSING else json.dumps(value)}", _changed(base, field, value))
                     for field, values in changes for value in values]
        if kind == "smallfiles":
            variants += [(f"size={t['size']},count={t['count']}", {**base, **t}) for t in SMALL_TOTALS]
        for name, params in variants:
            verdict = _verdict(check, params)
            if verdict["field"] is None and params.get("share", SHARE) != SHARE:
                # stricter than tengig client join, on purpose: a kit copies to the one share it was made for
                verdict = {"field": "instruction.share", "argv": None}
            if "::ffff:" in str(params.get("server")) and verdict["argv"]:
                # the same host, written by .NET as ::ffff:127.0.0.1 and by Python as ::ffff:7f00:1
                verdict = {**verdict, "argv": None}
            cases.append({"name": f"{kind} {name}", "kind": kind, "params": params, **verdict})
    return cases


def peer_rule_cases() -> list[dict[str, Any]]:
    """desk/peer_rule.py's rule on each shared case: the address, this desktop's addresses, the answer ("OK" or
    the refusal's words)."""
    out = []
    for address, attached in PEER_CASES:
        subnets = [ipaddress.IPv4Interface(a).network for a in attached if not a.endswith("/32")]
        try:
            _on_own_cable({"server": address}, "server", subnets)
            expected = "OK"
        except ValidationError as exc:
            [(_, expected)] = exc.errors
        out.append({"address": address, "attached": attached, "expected": expected})
    return out


def write_cases(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "instructions.json").write_text(json.dumps(instruction_cases(), indent=1))
    (folder / "peer-rule.json").write_text(json.dumps(peer_rule_cases(), indent=1))
    return folder
