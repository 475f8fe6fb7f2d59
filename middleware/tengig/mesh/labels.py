"""Labels for every port and both ends of every cable (seed 000: "for each end of every cable there
was only one correct interface out of 5 others"). Plain ASCII, one line each: label tape and
label-printer databases (CSV import) take them as they are.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Literal

from ..units import format_rate
from .models import CableEnd, Label, MeshCable

CSV_COLUMNS = ("id", "kind", "host", "port", "card", "cable", "peer_host", "peer_port", "text")


def make_labels(cables: Sequence[MeshCable]) -> list[Label]:
    """Port labels (sorted by host, port), then cable-end labels (cable order, end A then B)."""
    ports, ends = [], []
    for cable in cables:
        for end, far, side in ((cable.a, cable.b, "A"), (cable.b, cable.a, "B")):
            ports.append(_label_at(end, far, cable, id=f"P-{end.host}-{end.port}", kind="port",
                                   text=f"{end.host} {end.port} -> {far.host} ({cable.id})"))
            ends.append(_label_at(end, far, cable, id=f"{cable.id}-{side}", kind="cable-end",
                                  text=f"{cable.id}-{side} {end.host} {end.port} | other end: {far.host} {far.port}"))
    ports.sort(key=lambda label: (label.host, label.port))
    return ports + ends


def _label_at(end: CableEnd, far: CableEnd, cable: MeshCable, *, id: str, kind: Literal["port", "cable-end"],
              text: str) -> Label:
    """A label stuck at ``end`` of ``cable`` (next to its port, or on that end of the cable), naming ``far``."""
    return Label(id=id, kind=kind, host=end.host, port=end.port, card=end.card, cable=cable.id,
                 peer_host=far.host, peer_port=far.port, text=text)


def labels_text(labels: Sequence[Label], cables: Sequence[MeshCable]) -> str:
    """A sheet to print and cut: port labels grouped by host, then cables with both ends."""
    lines = ["PORT LABELS (stick next to the port)"]
    host = None
    for label in (lb for lb in labels if lb.kind == "port"):
        if label.host != host:
            host = label.host
            lines.append(f"  [{host}]")
        card = f"  (card {label.card})" if label.card else ""
        lines.append(f"    {label.text}{card}")
    lines.append("")
    lines.append("CABLE LABELS (one at each end)")
    speed = {c.id: format_rate(c.speed_bps) for c in cables}
    for label in (lb for lb in labels if lb.kind == "cable-end"):
        lines.append(f"    {label.text}  [{speed[label.cable]}]")
    return "\n".join(lines) + "\n"


def labels_csv(labels: Sequence[Label]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for label in labels:
        writer.writerow([getattr(label, col) or "" for col in CSV_COLUMNS])
    return out.getvalue()
