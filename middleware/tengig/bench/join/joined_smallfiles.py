"""Small files with a desktop that joined the run (the `smallfiles` phase), from the NAS's side.

Per size, the desktop makes its N files, then writes them to the share, lists them, reads them back and
deletes them, one batch per instruction, each timed line by line on the desktop
(desk/smallfiles.py); the NAS reads the times itself (bench/parse/smallfiles_parse.py) and checks what it
can: after the write its own file system holds exactly the N files and their bytes, their bytes crossed its
port, and after the delete none is left. Each batch's time is held to the NAS's own window for it and the
bytes its port carried (nas_witness.small_batch_bounds, the big copies' bounds): an impossible time is replaced
by the NAS's bound, saying so. smbd's CPU is read over each batch, as for the big copies. With
--disk the desktop also runs the same batches on its own disk. The round trip of the link is the NAS's
own ping to the desktop."""
from __future__ import annotations

import time
from pathlib import PurePosixPath

from ...backends.scratch import ScratchStorage
from ...errors import ToolOutputError
from ...ping import parse_ping
from ...units import format_size
from ..context import BenchContext
from ..parse.copy_parse import tool_of
from ...join_protocol.lines import OWN_TIMER, SMALL_BATCH_OPS, SmallOp
from ..parse.smallfiles_parse import parse_smallfiles
from ..phases.nas_port import NasPort, counters
from ..phases.nas_share import NasShare
from ..phases.share_scratch import close_share_scratch, open_share_scratch
from ..phases.smallfiles_results import SmallFilesResult, SmallOpResult, SmallSizeResult, op_result
from ..phases.smb_probes import smbd_ticks_on
from .asking import ask, asked
from .joined import SMB_MIN_WIRE_RATIO
from .nas_witness import small_batch_bounds, small_batch_on_nas_clock
from ...join_protocol.messages import Submission
from .session import BenchSession, JoinedClient
from .session_probe import SessionProbe

PING_COUNT = 5


def small_tool(argv: list[str]) -> str:
    """The tool that timed the batch: smbclient behind stdbuf, or tengig's own timer."""
    if tool_of(argv) == "stdbuf":
        rest = [a for a in argv[1:] if not a.startswith("-")]
        return tool_of(rest)
    return tool_of(argv)


def round_trip_ms(ctx: BenchContext, nas: str, address: str) -> float | None:
    """The NAS's own ping to ``address``: the average of its replies, ms (None: none, or no ping)."""
    done = ctx.run(nas, ["ping", "-n", "-q", "-c", str(PING_COUNT), "-i", "0.2", "-W", "1", address],
                   timeout=30, check=False, tool="ping")
    found = parse_ping(done.stdout)
    return found.rtt_avg_ms if found and found.received else None


def nas_files(ctx: BenchContext, nas: str, directory: PurePosixPath) -> tuple[int, int]:
    """(files, bytes) in ``directory`` on the NAS (0, 0: it is gone)."""
    done = ctx.run(nas, ["find", str(directory), "-maxdepth", "1", "-type", "f", "-printf", "%s\\n"], timeout=60,
                   check=False, tool="find")
    if done.returncode != 0:
        return 0, 0
    sizes = [int(x) for x in done.stdout.split() if x.isdigit()]
    return len(sizes), sum(sizes)


def nas_is_dir(ctx: BenchContext, nas: str, directory: PurePosixPath) -> bool:
    return ctx.run(nas, ["test", "-d", str(directory)], timeout=30, check=False, tool="test").returncode == 0


def measure_joined_smallfiles(ctx: BenchContext, session: BenchSession, client: JoinedClient, nas: str,
                              port: NasPort, share: NasShare, storage: ScratchStorage,
                              sizes: list[tuple[int, int]]) -> tuple[SmallFilesResult, object]:
    """Every (size, count) through the share, and on the desktop's own disk when it measures it; returns the
    result and the SMB session seen during the first write (None: not seen)."""
    scratch = open_share_scratch(ctx, storage, nas, share, f"{int(time.time())}-{session.id}-{client.name}-s")
    clk = int(ctx.run(nas, ["getconf", "CLK_TCK"], timeout=10, record=False).stdout.strip() or 100)
    out, session_facts, note, refused = [], None, None, None
    written = 0
    try:
        rtt = round_trip_ms(ctx, nas, client.peer_address)
        remote = scratch.remote_dir(client.name)
        base = {"server": client.local_address, "share": share.name, "remote": remote}
        for n, (size, count) in enumerate(sizes):
            part = ctx.part(100 * n / len(sizes), 100 * (n + 1) / len(sizes))
            params = {**base, "size": size, "count": count}
            where = PurePosixPath(share.path, *remote.split("\\"), f"small-{size}")
            timeout = 120 + count + 4 * size * count / 2**20
            part.report(0, f"small files: {client.name} makes {count} x {format_size(size)}")
            made = ask(ctx, session, client, "smallfiles", {**params, "op": "prepare"}, timeout=timeout,
                        tool="small files prepare")
            if made.exit_code == 2 and made.stderr.startswith("refused:"):  # a desktop or kit of an earlier tengig
                refused = f"{client.name} ran no small files: it {made.stderr.strip()[:300]}"
                break
            if not nas_is_dir(ctx, nas, where):
                output = (made.stderr + made.stdout).strip()
                raise ToolOutputError(f"{client.name} could not make its small files' directory in the share "
                                      f"(exit {made.exit_code}): {output[-300:]}")
            ops: list[SmallOpResult] = []
            found, write_back = (0, 0), None
            for i, op in enumerate(SMALL_BATCH_OPS):
                part.report(10 + 20 * i, f"small files {op}: {count} x {format_size(size)} {client.name}")
                probe = (SessionProbe(ctx, nas, share, client.peer_address, channels=False)
                         if op == "write" and not n else None)
                before, t0 = counters(ctx, nas, port), smbd_ticks_on(ctx, nas)
                try:
                    instruction, sub = asked(ctx, session, client, "smallfiles", {**params, "op": op},
                                             timeout=timeout, tool=f"small files {op}")
                finally:
                    if probe:
                        session_facts, _ = probe.stop()  # (the session, its channels: the big copies report those)
                t1, after = smbd_ticks_on(ctx, nas), counters(ctx, nas, port)
                _check_wire(client, op, size * count, before, after, port)
                bounds = small_batch_bounds(op, count, size, _seen(op, before, after), session.nas_seconds(
                    client, instruction), port)
                timing, nas_note = small_batch_on_nas_clock(client.name, _parsed(sub, client, op, count), bounds)
                cpu = 100 * (t1 - t0) / clk / timing.seconds if t0 is not None and t1 is not None else None
                if op == "write":
                    found = nas_files(ctx, nas, where)
                    if found != (count, count * size):
                        raise ToolOutputError(
                            f"{client.name} says it wrote {count} files of {format_size(size)}, but the NAS finds "
                            f"{found[0]} file(s), {format_size(found[1])} in {where}: not what was asked (the run "
                            "is not trusted)")
                    written += count * size
                    part.report(25, f"small files: waiting for {nas}'s pool to write them out")
                    write_back = (storage.settle_writes(scratch.dataset.split("/")[0]) if scratch.dataset
                                  else "not waited: the share's directory is not a ZFS dataset tengig found")
                if op == "read" and timing.bytes_read is not None and timing.bytes_read != count * size:
                    raise ToolOutputError(f"{client.name} read {timing.bytes_read} bytes of small files, the NAS "
                                          f"holds {count * size}")
                ops.append(op_result(timing, size, cpu, nas_note))
            left = nas_files(ctx, nas, where)[0]
            if left:
                raise ToolOutputError(f"{client.name} says it deleted its {count} small files, but the NAS still "
                                      f"finds {left} in {where}")
            own = None
            if client.info.disk:
                own, note = _own_disk(ctx, session, client, params, count, size, timeout)
            out.append(SmallSizeResult(size=size, count=count, engine=_engine(sub.argv), ops=ops,
                                       nas_files=found[0], nas_bytes=found[1], nas_files_left=left, write_back=write_back,
                                       own_disk=own))
    finally:
        close_share_scratch(ctx, storage, scratch)
    ctx.report(100, f"small files {client.name} done")
    return SmallFilesResult(client=client.name, server=nas, sizes=out, round_trip_ms=rtt, own_disk_note=note,
                            note=refused, bytes_written=written), session_facts


def _engine(argv: list[str]) -> str:
    """What copied the files: smbclient, or tengig's own timer on a mounted share or (the Windows kit) on the
    share's UNC path, the timer's last argument."""
    if small_tool(argv) == "smbclient":
        return "smbclient"
    if argv and argv[-1].startswith("\\\\"):
        return f"{OWN_TIMER} on the share's UNC path (Windows' SMB client)"
    return f"{OWN_TIMER} on the mounted share"


def _parsed(sub: Submission, client: JoinedClient, op: SmallOp, count: int):
    if sub.exit_code != 0:
        output = (sub.stderr + sub.stdout).strip()
        raise ToolOutputError(f"the small-file {op} on {client.name} failed (exit {sub.exit_code}): {output[-300:]}")
    try:
        return parse_smallfiles(small_tool(sub.argv), sub.stdout, op, expected=count)
    except ToolOutputError as exc:
        raise ToolOutputError(f"{client.name}: {exc.message}") from exc


def _seen(op: str, before, after) -> int:
    """The bytes the NAS's port carried the way a batch's files go: sent for a read, received otherwise."""
    return (after.tx_bytes - before.tx_bytes) if op == "read" else (after.rx_bytes - before.rx_bytes)


def _check_wire(client: JoinedClient, op: str, moved: int, before, after, port: NasPort) -> None:
    if op not in ("write", "read"):
        return
    seen = _seen(op, before, after)
    if seen < SMB_MIN_WIRE_RATIO * moved:
        raise ToolOutputError(
            f"{client.name} reports a small-file {op} of {format_size(moved)}, but only {format_size(max(0, seen))} "
            f"crossed the NAS's port {port.ifname}: not measured over the link (the run is not trusted)")


def _own_disk(ctx: BenchContext, session: BenchSession, client: JoinedClient, params: dict, count: int, size: int,
              timeout: float) -> tuple[list[SmallOpResult] | None, str | None]:
    """The same files on the desktop's own disk: (results, None) or (None, why not)."""
    sub = ask(ctx, session, client, "smallfiles", {**params, "op": "disk"}, timeout=timeout,
               tool="small files own disk")
    if sub.exit_code != 0:
        return None, f"{client.name} could not time small files on its own disk (exit {sub.exit_code}): " \
                     f"{sub.stderr.strip()[-300:]}"
    try:
        return [op_result(parse_smallfiles(OWN_TIMER if small_tool(sub.argv) == OWN_TIMER else "", sub.stdout, op,
                                           expected=count), size) for op in SMALL_BATCH_OPS], None
    except ToolOutputError as exc:
        return None, f"{client.name}'s own disk: {exc.message}"
