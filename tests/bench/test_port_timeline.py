"""The NAS's own clock on a copy: its port's counter sampled while a desktop copies (bench/join/port_timeline.py)
and the least time the copy took, against what the desktop says (bench/join/nas_witness.py)."""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tengig.backends.linux.proc_net_dev import counter_reader, parse_proc_net_dev
from tengig.bench.phases.nas_port import NasPort
from tengig.bench.join.nas_witness import check_copy_on_port_timeline
from tengig.bench.join.port_timeline import PortTimeline, Sample, busy_seconds
from tengig.errors import ToolOutputError

pytestmark = pytest.mark.abuse  # pure: no lab

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "proc-net-dev" / "debian12-lab-root.txt"
MiB = 1024 * 1024
PORT = NasPort(ifname="nas-desk", address="10.0.0.1", mtu=1500, speed_bps=10_000_000_000, shaper_bps=None)


def _copy(seconds: float, size: int, *, start: float = 1.0, every: float = 0.005, chatter: int = 4096):
    """Samples of a port that carried ``size`` bytes evenly over ``seconds`` from ``start``, plus a little
    chatter (the instruction before, the answer after)."""
    samples, t = [], 0.0
    while t <= start + seconds + 1.0:
        done = min(max(t - start, 0.0) / seconds, 1.0) * size
        extra = chatter if t > start + seconds + 0.5 else 0
        samples.append(Sample(at=100 + t, rx=0, tx=int(done) + extra))
        t += every
    return samples


def test_the_recorded_proc_net_dev_gives_each_ports_bytes():
    ports = parse_proc_net_dev(FIXTURE.read_text())
    assert "lo" in ports and all(rx >= 0 and tx >= 0 for rx, tx in ports.values())
    lo_line = next(line for line in FIXTURE.read_text().splitlines() if line.strip().startswith("lo:"))
    numbers = lo_line.split(":", 1)[1].split()
    assert ports["lo"] == (int(numbers[0]), int(numbers[8]))


def test_a_reader_exists_only_for_a_port_this_machine_has(tmp_path):
    assert counter_reader("lo") is not None and counter_reader("no-such-port0") is None
    assert counter_reader("lo", tmp_path / "missing") is None  # FreeBSD: no /proc/net/dev


def test_the_copy_took_at_least_the_time_its_middle_was_seen_on_the_port():
    busy = busy_seconds(_copy(2.0, 256 * MiB), "read")
    assert 0.98 * 2.0 - 0.011 <= busy <= 0.98 * 2.0  # the middle 98%, less at most two samples' worth


def test_coarse_or_late_samples_only_shorten_the_least_time():
    fine = busy_seconds(_copy(2.0, 256 * MiB), "read")
    coarse = busy_seconds(_copy(2.0, 256 * MiB, every=0.25), "read")
    assert coarse <= fine


def test_too_few_samples_or_no_bytes_tell_nothing():
    assert busy_seconds(_copy(2.0, 256 * MiB)[:2], "read") is None
    assert busy_seconds(_copy(2.0, 256 * MiB), "write") is None  # nothing received
    assert busy_seconds(_copy(0.001, 256 * MiB, every=0.5), "read") is None  # the middle fell between two


def test_an_honest_copy_passes_and_a_five_percent_faster_claim_is_refused():
    size = 256 * MiB
    busy = busy_seconds(_copy(2.0, size), "read")
    check_copy_on_port_timeline("desk", "read", size, size / 2.0, busy, PORT)  # smbclient's own figure
    check_copy_on_port_timeline("desk", "read", size, size / 2.04, busy, PORT)  # and its start-up around it
    with pytest.raises(ToolOutputError, match=r"desk reports an SMB read of 256 MiB at 140.9 MB/s \(1.90 s\), "
                       r"but the NAS's port nas-desk was still carrying it 1.9\d s after it had begun"):
        check_copy_on_port_timeline("desk", "read", size, size / 2.0 * 1.05, busy, PORT)


def test_without_a_timeline_the_windows_checks_stand_alone():
    check_copy_on_port_timeline("desk", "write", 64 * MiB, 1e12, None, PORT)


def test_the_sampler_runs_in_its_thread_until_stopped_and_ends_on_the_last_count():
    counter = itertools.count(0, 1000)
    timeline = PortTimeline(lambda: (next(counter), 0), interval=0.001)
    while len(timeline._samples) < 20:
        pass
    samples = timeline.stop()
    assert len(samples) >= 21 and [s.rx for s in samples] == sorted(s.rx for s in samples)
    assert all(b.at >= a.at for a, b in zip(samples, samples[1:]))
    assert timeline.error is None


def test_a_port_that_vanishes_mid_copy_stops_the_sampler_with_why():
    reads = iter([(0, 0), (1, 1)])

    def read():
        try:
            return next(reads)
        except StopIteration:
            raise LookupError("nas-desk") from None
    timeline = PortTimeline(read, interval=0.001)
    timeline._thread.join(timeout=10)
    samples = timeline.stop()
    assert len(samples) == 2 and "LookupError" in timeline.error
