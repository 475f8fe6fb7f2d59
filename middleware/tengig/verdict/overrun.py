"""A ceiling that SMB passed more than through it (pure): no bound, and why (advice.overruns decides which).

SMB cannot pass more than a component carries, so either the ceiling was not measured as SMB used it, or SMB's
figure is not what reached the disks:
- the pool measured on a dataset unlike the one SMB copied to: its scratch dataset against the share's
  (compression, dedup, recordsize, and sync where the pool has it) — any difference is named;
- a write: SMB's copy timed before the pool had it (write-back: ZFS gathers seconds of writes in RAM and the
  copy ends when they are there; fio's write ends with an fsync, so the pool's figure includes the disks);
- a read: the NAS's RAM (its ARC) served SMB's reads;
- the link or the network: measured over fewer connections or another path than SMB used (multichannel).
Where the datasets could not be compared, both explanations stay open, and the words say what was missing."""
from __future__ import annotations

from ..backends.scratch import SPEED_PROPERTIES
from ..units import format_size
from .advice import ceiling_text, mb_s, measured_smb, overrun_ceilings
from .models import Ceiling, Direction, Facts

ARC_SERVED = 0.10  # the ARC served this share of SMB's reads or more: RAM explains a read above the pool


def _verb(direction: Direction) -> str:
    return "read" if direction == "read" else "wrote"


def _shown(name: str, value: str) -> str:
    return format_size(int(value)) if name == "recordsize" and value.isdigit() else value


def _compared(facts: Facts) -> tuple[list[str], list[str]] | None:
    """(alike, differing) in words, over the properties both datasets have; None when they cannot be compared."""
    pool, smb = facts.pool_dataset_properties, facts.smb_dataset_properties
    names = [n for n in SPEED_PROPERTIES if n in pool and n in smb]
    if not facts.smb_dataset or not names:
        return None
    alike = [f"{n} {_shown(n, pool[n])}" for n in names if pool[n] == smb[n]]
    differ = [f"{n} {_shown(n, pool[n])} for the pool, {_shown(n, smb[n])} for SMB" for n in names if pool[n] != smb[n]]
    return alike, differ


def _missing(facts: Facts) -> str:
    if not facts.smb_dataset:
        return "the dataset SMB copied to is not known"
    if not facts.smb_dataset_properties:
        return f"{facts.smb_dataset}'s properties were not read"
    if not facts.pool_dataset_properties:
        return "the pool's scratch dataset's properties were not read"
    return "no property was read of both"


def _arc(facts: Facts) -> str:
    ratio = facts.smb_read_arc_hit_ratio
    if ratio is None:
        return "the ARC's share of SMB's reads is unknown: the NAS's RAM may have served them"
    if ratio >= ARC_SERVED:
        return f"the NAS's RAM (its ARC) served {ratio:.0%} of SMB's reads"
    return f"the NAS's RAM (its ARC) served {ratio:.0%} of SMB's reads: nothing the run measured explains it"


def _pool_why(direction: Direction, facts: Facts) -> str:
    where = "the one SMB read from" if direction == "read" else "the one SMB wrote to"
    compared = _compared(facts)
    if compared is None:
        other = ("the NAS's RAM (its ARC) served SMB's reads" if direction == "read"
                 else "SMB's write was timed before the pool had it on disk (write-back)")
        return f"Either the pool was measured on a dataset unlike {where} (not compared: {_missing(facts)}) or {other}"
    alike, differ = compared
    if differ:
        return (f"The pool was measured on {facts.pool_dataset}, unlike {facts.smb_dataset} that SMB "
                f"{_verb(direction)} {'from' if direction == 'read' else 'to'}: {'; '.join(differ)}")
    head = (f"The pool's scratch dataset {facts.pool_dataset} and {where}, {facts.smb_dataset}, are alike "
            f"({', '.join(alike)})")
    if direction == "read":
        return f"{head}, and {_arc(facts)}"
    waited = f"; after the copies the NAS waited for the pool: {facts.smb_write_back}" if facts.smb_write_back else ""
    return (f"{head}, so SMB's write was timed before the pool had it on disk (write-back: ZFS holds seconds of "
            "writes in RAM and a copy ends before they reach the disks, while fio's write ends with an fsync)"
            f"{waited}")


def overrun_text(ceiling: Ceiling, smb: Ceiling, direction: Direction, facts: Facts) -> str:
    """'the pool's 195.9 MB/s is no bound: SMB wrote 255.8 MB/s through it, 131% of it. <why>'."""
    head = (f"the {ceiling.component}'s {ceiling_text(ceiling)} is no bound: SMB {_verb(direction)} "
            f"{mb_s(smb.bytes_per_s)} through it, {smb.bytes_per_s / ceiling.bytes_per_s:.0%} of it")
    if ceiling.component != "pool":
        return (f"{head}: it was not measured as SMB used the path (SMB multichannel over several connections or "
                "NICs, another path, or another moment)")
    why = _pool_why(direction, facts)
    if direction == "write" and why.startswith("The pool's scratch"):
        why += f". A copy larger than that RAM meets the pool's {mb_s(ceiling.bytes_per_s)}"
    return f"{head}. {why}"


def overrun_texts(ceilings: list[Ceiling], direction: Direction, facts: Facts) -> list[str]:
    """What the verdict says of every ceiling SMB overran in one direction."""
    smb = measured_smb(ceilings)
    return [overrun_text(c, smb, direction, facts) for c in overrun_ceilings(ceilings)] if smb else []


def overrun_calls(ceilings: list[Ceiling], direction: Direction) -> list[str]:
    """How sure: 'the pool's 195.9 MB/s sits below the 255.8 MB/s SMB wrote through it: ...'."""
    smb = measured_smb(ceilings)
    if smb is None:
        return []
    return [f"the {c.component}'s {mb_s(c.bytes_per_s)} sits below the {mb_s(smb.bytes_per_s)} SMB "
            f"{_verb(direction)} through it: the {c.component} was not measured as SMB used it"
            for c in overrun_ceilings(ceilings)]
