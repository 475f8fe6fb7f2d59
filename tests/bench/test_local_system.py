"""System `local` (tengig runs on the NAS itself), decided by the one resolver (tengig.systems):
- with no pool here and no system named, one clear message naming --system (never the lab silently);
- on a machine with a ZFS pool (this one, while the lab's zfs-fuse pool is imported), the pool is
  measured here: every program ran on this machine (no namespace hop), on a scratch dataset of that
  pool, with the ARC out of the reads."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tengig.bench.run.record import run_and_record
from tengig.bench.run.suite import BenchRunRequest
from tengig.errors import ValidationError
from tengig.lab import Lab, build_spec
from tengig.results.store import ResultStore
from tengig.systems import bench_system, describe_systems

pytestmark = pytest.mark.lab
TENGIG = str(Path(sys.executable).with_name("tengig"))


def test_no_pool_and_no_lab_is_one_message_naming_system(clean_machine, tmp_path):
    done = subprocess.run([TENGIG, "bench", "all", "--db", str(tmp_path / "r.sqlite3")], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: --system: no system was named") and "no ZFS pool" in line
    assert "`--system lab` after `tengig lab up`" in line and "`--pool NAME`" in line
    states = {s["name"]: s for s in json.loads(subprocess.run([TENGIG, "bench", "systems", "--json"],
                                                              capture_output=True, text=True, timeout=120).stdout)}
    assert not states["local"]["usable"] and not states["lab"]["usable"] and "not up" in states["lab"]["reason"]
    assert not (tmp_path / "r.sqlite3").exists()  # bad input: no run recorded


@pytest.fixture(scope="module")
def pool_here():
    """A machine with a ZFS pool: the lab's zfs-fuse pool, imported on this machine."""
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=1g"]))
    yield lab
    lab.down()


def test_the_lab_is_never_chosen_silently(pool_here):
    system = bench_system(None)  # this machine has a pool now: local, not the lab that is also up
    assert system.name == "local" and system.pool == "tgtank"
    states = {s["name"]: s for s in describe_systems()}
    assert states["local"]["usable"] and "tgtank" in states["local"]["reason"] and states["lab"]["usable"]


def test_local_measures_this_machines_pool_here(pool_here, tmp_path):
    system = bench_system("local", "tgtank")
    run_id, report = run_and_record(system, BenchRunRequest(kind="pool", repeats=1, working_set=64 * 2**20),
                                    ResultStore(tmp_path / "r.sqlite3"))
    assert report.system == "local" and report.pool.pool == "tgtank"
    read = report.pool.phase("seq1m-q8t1", "read")
    assert read.bytes_per_s.median > 0 and read.arc_hit_ratio < 0.1 and report.pool.dataset.startswith("tgtank/")
    argvs = [raw.argv for raw in ResultStore(tmp_path / "r.sqlite3").get(run_id).raw]
    assert argvs and any(a[0] == "fio" for a in argvs)
    assert not [a for a in argvs if a[0] in ("ip", "nsenter")], "a NAS-side call left this machine"


def test_local_asks_for_a_client_for_the_network(pool_here, tmp_path):
    system = bench_system("local")
    with pytest.raises(ValidationError) as err:
        run_and_record(system, BenchRunRequest(kind="net"), ResultStore(tmp_path / "r.sqlite3"))
    [(field, message)] = err.value.errors
    assert field == "join" and message.startswith("net: local has no desktop to measure") and "tengig client join" in message


def test_with_the_lab_up_and_no_system_named_the_cli_offers_system_lab(pool_here, tmp_path):
    """After `tengig lab up`, `tengig bench all` resolves to this machine (the lab's pool is imported here) and
    has no desktop: it says so in the command's flags, and offers the lab."""
    done = subprocess.run([TENGIG, "bench", "all", "--db", str(tmp_path / "r.sqlite3")], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    join, system = done.stderr.strip().splitlines()
    assert join.startswith("error: --join: all: local has no desktop to measure the network and SMB from; ") and \
        "`--join N` for how many" in join, join
    assert system == ("error: --system: none was named, and the lab is up: `--system lab` measures the lab and its "
                      "desktops instead")
    assert " join to " not in done.stderr and "`join:" not in done.stderr and "`system:" not in done.stderr


def test_with_the_lab_up_and_no_system_named_the_api_offers_system_lab(pool_here, tmp_path, monkeypatch):
    from tests.inprocess import InProcessApi

    monkeypatch.setenv("TENGIG_DB", str(tmp_path / "r.sqlite3"))
    job = InProcessApi().run_job("tengig.bench.run", {"kind": "net"})
    fields = {field: message for field, message, *_ in job.exc_info["extra"]}
    assert set(fields) == {"request.join", "request.system"}, fields
    assert "`join: N` for how many" in fields["request.join"]
    assert fields["request.system"] == ('none was named, and the lab is up: `system: "lab"` measures the lab and its '
                                        "desktops instead")
    named = InProcessApi().run_job("tengig.bench.run", {"kind": "net", "system": "local"})
    assert [f for f, *_ in named.exc_info["extra"]] == ["request.join"]  # a system named: nothing offered


def test_a_pool_that_is_not_here_names_the_pools(pool_here):
    with pytest.raises(ValidationError) as err:
        bench_system("local", "tank")
    assert err.value.errors == [("pool", "'tank' is not a pool of this machine; its pools: tgtank")]
