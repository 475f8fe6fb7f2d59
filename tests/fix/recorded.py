"""Runs for the fix tests: run 2 of the recorded results database (tests/fixtures/results/lab-runs.sqlite3:
desk and lab each on a 1 Gb/s cable of the lab), read through the store, and that run with one desktop's
report changed as a NAS with a costly setting would have measured it, then judged again by the verdict's own
judge (bench/run/suite.judge_client), so the verdict and the facts agree as in a real run."""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tengig.bench.run.suite import BenchReport, judge_client
from tengig.fix.run_view import path_mtus
from tengig.results import ResultStore
from tengig.results.models import RunRecord
from tengig.verdict.targets import find_target

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "lab-runs.sqlite3"


def recorded_store(tmp_path: Path) -> ResultStore:
    copy = tmp_path / "runs.sqlite3"
    shutil.copy(FIXTURE, copy)
    return ResultStore(copy)


def recorded_run(tmp_path: Path, run_id: int = 2) -> RunRecord:
    return recorded_store(tmp_path).get(run_id)


def altered(run: RunRecord, client: str = "desk", *, smb_scale: float | None = None, encryption: bool = False,
            signing: bool = False, multichannel: bool | None = None, smbd_cpu: float | None = None,
            nas_mtu: int | None = None, desk_mtu: int | None = None, smb_properties: dict[str, str] | None = None,
            pool_properties: dict[str, str] | None = None) -> RunRecord:
    """``run`` with ``client``'s figures and facts changed (``smb_scale``: each SMB copy times it), judged again."""
    report = BenchReport.model_validate(run.results)
    r = next(c for c in report.clients if c.client == client)
    smb = r.smb
    if smb_scale is not None:
        for d in (smb.read, smb.write):
            d.bytes_per_s.values = [v * smb_scale for v in d.bytes_per_s.values]
            d.bytes_per_s.median *= smb_scale
    if encryption or signing:
        smb.session = smb.session.model_copy(update={
            **({"encryption_degree": "full", "encryption_cipher": "AES-128-GCM"} if encryption else {}),
            **({"signing_degree": "full"} if signing else {})})
    if multichannel is not None:
        from tengig.bench.phases.smb_results import SmbMultichannel

        smb.multichannel = SmbMultichannel(enabled=multichannel, read_from="testparm /etc/samba/smb.conf")
    if smbd_cpu is not None:
        smb.read.smbd_cpu_percent = smb.write.smbd_cpu_percent = smbd_cpu
    if nas_mtu is not None:
        r.nas_port.mtu = nas_mtu
    if desk_mtu is not None:
        r.joined = {**r.joined, "mtu": desk_mtu}
    if smb_properties is not None:
        smb.dataset = "tgtank/smb/tengig-scratch-1795603179-1-desk"
        smb.dataset_properties = smb_properties
    if pool_properties is not None:
        report.pool.dataset_properties = pool_properties
    judge_client(find_target(report.target), report.pool, r, path_mtus(r.link.server, r))
    results: dict[str, Any] = report.model_dump(mode="json")
    return run.model_copy(update={"results": results})
