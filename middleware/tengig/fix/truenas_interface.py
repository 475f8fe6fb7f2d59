"""A NAS port's MTU on a TrueNAS, changed as TrueNAS changes a network setting: ``interface.update`` (staged),
``interface.commit`` with rollback armed and a checkin timeout, then the desktops that reached the NAS over that
port probed from the NAS with a don't-fragment ping that fills a frame of the MTU the path then carries, and
``interface.checkin`` only when every one answers (backends/truenas/staged_change.apply_staged does the steps).
A desktop that does not answer: no checkin, TrueNAS's rollback puts the previous MTU back in its kernel and its
database, and the error says so. The value read is TrueNAS's own (interface.query: its saved configuration,
else the port's state as the kernel has it)."""
from __future__ import annotations

import errno
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from ..backends.truenas import ProbeResult, ProbeTarget, TrueNASBackend, apply_staged
from ..changes import ApiCall
from ..checkin import CHECKIN_TIMEOUT_S
from ..errors import TengigError, ValidationError
from ..ping import ping_once
from ..runner import Completed
from .models import Setting

MTU_RANGE = (68, 9216)  # what TrueNAS's interface.update accepts
BackendOpener = Callable[[], AbstractContextManager[TrueNASBackend]]
RunOnNas = Callable[[Sequence[str]], Completed]
Progress = Callable[[float, str], Any]


@dataclass(frozen=True)
class Peer:
    """A desktop that reached the NAS over a port in the run: where it answers, and its own MTU."""

    name: str
    address: str
    mtu: int


def mtu_probe(port: str, mtu: int, peers: Sequence[Peer], run_on_nas: RunOnNas) -> Callable[[], ProbeResult]:
    """One don't-fragment ping per desktop out of ``port``, filling a frame of the MTU the path carries with the
    port at ``mtu`` (the smaller of the two ends)."""
    def probe() -> ProbeResult:
        targets = []
        for peer in peers:
            path = min(mtu, peer.mtu)
            ok, detail = ping_once(run_on_nas, port, peer.address, mtu=path)
            targets.append(ProbeTarget(name=f"{port} -> {peer.name} {peer.address} (don't-fragment, {path} bytes)",
                                       ok=ok, detail=detail))
        return ProbeResult(ok=bool(targets) and all(t.ok for t in targets), targets=targets)
    return probe


class TrueNasInterfaces:
    """fix/settings.Settings for kind 'interface' on a TrueNAS. ``open_truenas`` gives a TrueNASBackend (inside
    middlewared: middlewared itself); ``peers``: port -> the desktops the probe must reach through it."""

    def __init__(self, open_truenas: BackendOpener, run_on_nas: RunOnNas, peers: dict[str, list[Peer]], *,
                 checkin_timeout: int = CHECKIN_TIMEOUT_S, progress: Progress | None = None,
                 probe_interval: float = 0.5):
        self.open_truenas, self.run_on_nas, self.peers = open_truenas, run_on_nas, peers
        self.checkin_timeout, self.progress, self.probe_interval = checkin_timeout, progress, probe_interval

    @staticmethod
    def _port(setting: Setting) -> str:
        if setting.kind != "interface" or setting.key != "mtu":
            raise TengigError(f"{setting.text()} is not an interface's MTU", errno=errno.EINVAL)
        return setting.object

    def read(self, setting: Setting) -> str:
        port = self._port(setting)
        with self.open_truenas() as backend:
            entry = backend.interface(port)
        if entry is None:
            raise TengigError(f"interface.query has no {port}", errno=errno.ENOENT)
        mtu = entry.get("mtu") or (entry.get("state") or {}).get("mtu")
        if not isinstance(mtu, int):
            raise TengigError(f"interface.query gives no MTU for {port}", errno=errno.ENOENT)
        return str(mtu)

    def previous(self, setting: Setting) -> str:
        return self.read(setting)

    def write(self, setting: Setting, value: str) -> None:
        port = self._port(setting)
        if not value.isdigit() or not MTU_RANGE[0] <= int(value) <= MTU_RANGE[1]:
            raise ValidationError.one("value", f"{value!r} is no MTU ({MTU_RANGE[0]}-{MTU_RANGE[1]} bytes)")
        peers = self.peers.get(port) or []
        if not peers:
            raise TengigError(f"no desktop of the run reached the NAS over {port}: nothing would prove the new MTU "
                              "keeps it reachable, so TrueNAS's change is not made", errno=errno.EDESTADDRREQ)
        probe = mtu_probe(port, int(value), peers, self.run_on_nas)
        with self.open_truenas() as backend:
            apply_staged(backend, [ApiCall(method="interface.update", params=[port, {"mtu": int(value)}])], probe,
                         checkin_timeout=self.checkin_timeout, progress=self.progress,
                         probe_interval=self.probe_interval)


def peers_of(clients: Sequence[Any]) -> dict[str, list[Peer]]:
    """port -> the desktops that reached the NAS through it, from a run's client reports (fix/run_view's
    ClientView.report: nas_port, joined's address and MTU)."""
    out: dict[str, list[Peer]] = {}
    for client in clients:
        report = client.report
        joined = report.joined or {}
        address, mtu = joined.get("address"), joined.get("mtu")
        if report.nas_port is None or not isinstance(address, str) or not isinstance(mtu, int) or not mtu:
            continue
        out.setdefault(report.nas_port.ifname, []).append(Peer(name=client.name, address=address, mtu=mtu))
    return out
