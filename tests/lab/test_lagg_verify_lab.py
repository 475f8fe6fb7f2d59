"""`tengig.lagg.verify` and `tengig lagg verify` measure for real on a lab whose NAS has two 1 Gb/s
cable ends. This kernel has no bonding driver, so the plan's members are the NAS's own ports (the
lab's inventory reports each cable end as the port it emulates) and the tests run to the NAS's
address on desk's cable: one member must carry every byte and the other be named idle."""
from __future__ import annotations

import json

import pytest

from tengig.api import ValidationErrors
from tengig.api.jobs import JobState
from tengig.lab import Lab, build_spec
from tengig.lab.nics import lab_nics
from .lagg_status import status_by_figures
from .running import in_lab_hosts

pytestmark = pytest.mark.lab

GOODPUT_1G = 941e6  # TCP goodput of a 1 Gb/s link at MTU 1500 (docs/physics.md §1)


@pytest.fixture(scope="module")
def even_lab():
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=1g", "lab-nas=1g", "desk-lab=1g"]))
    yield lab
    lab.down()


@pytest.fixture
def host(api):
    return api.call, lambda name, *params: api.run_job(name, *params, timeout=120), api.events


def _request(nics, **options):
    return {"nics": nics, "platform": "linux", "topology": "lacp-switch", "goal": "aggregate-many-clients",
            "client_count": 4, "options": {"clear_member_config": True, **options}}


def test_lab_inventory_reports_cable_ends_as_ports_at_their_line_rate(even_lab):
    ports = {n.name: n for n in lab_nics(even_lab, "nas")}
    assert set(ports) >= {"eth-desk", "eth-lab"}
    for name in ("eth-desk", "eth-lab"):
        assert ports[name].kind == "physical" and ports[name].speed_bps == 10**9
        assert ports[name].driver == "veth" and ports[name].card is None  # nothing pretends to be hardware


def test_verify_job_measures_both_ways_and_names_the_idle_member(even_lab, host):
    call, run_job, events = host
    nics = call("tengig.nic.query", {"system": "lab", "host": "nas"})
    job = run_job("tengig.lagg.verify", _request(nics), {"client": "desk", "seconds": 2, "omit": 1})
    assert job.state == JobState.SUCCESS, job.error
    result = job.result
    assert (result["client"], result["nas"]) == ("desk", "nas")
    assert result["lagg_address"] == even_lab.plan().address_of("nas", "desk")
    tests = result["measurements"]["results"]
    assert [(t["direction"], t["flows"]) for t in tests] == [("read", 1), ("write", 1), ("read", 4), ("write", 4)]
    for t in tests:
        assert 0 < t["bps"] <= 1.03 * GOODPUT_1G  # the 1 Gb/s cable bounds it; a busy machine only lowers it
    for t, window in zip(tests, result["measurements"]["counters"]):
        desk = next(m for m in window["members"] if m["name"] == "eth-desk")
        moved = desk["tx_bytes"] if window["direction"] == "read" else desk["rx_bytes"]
        # at least what iperf3 measured in that window crossed eth-desk (a ratio to the same test's figure)
        assert window["direction"] == t["direction"] and moved > 0.9 * t["bps"] / 8 * 2
    assert all(b["idle"] == ["eth-lab"] for b in result["verdict"]["balance"])
    # The plan expects 4 clients' flows spread over both members; one address on one port gives the low end,
    # and the verdict says why from the counters.
    # Each test's status is its own figures' (a busy machine can hold one flow short of the plan).
    many = result["verdict"]["comparisons"][2]
    assert all(c["status"] == status_by_figures(c) for c in result["verdict"]["comparisons"]), result["verdict"]
    assert many["status"] in ("low-end", "below")
    assert "eth-desk carried 100% of the bytes" in many["reason"]
    assert "eth-lab idle" in result["verdict"]["summary"]
    progress = [e for e in events if "lagg" in json.dumps(e, default=str) and "iperf3" in json.dumps(e, default=str)]
    assert len(progress) >= 4  # one event per test at least, seen while the job ran


def test_verify_refuses_what_it_cannot_measure_and_runs_nothing(even_lab, host):
    call, run_job, _ = host
    nics = call("tengig.nic.query", {"system": "lab", "host": "nas"})
    job = run_job("tengig.lagg.verify", _request(nics), {"client": "printer"})
    assert job.state == JobState.FAILED
    assert "options.client" in job.error and "desk" in job.error
    foreign = [dict(n, name=n["name"].replace("eth-", "enp-")) for n in nics if n["name"].startswith("eth-")]
    job = run_job("tengig.lagg.verify", _request(foreign), {"seconds": 2})
    assert job.state == JobState.FAILED
    assert "enp-desk" in job.error and "not a port of nas" in job.error and "eth-desk" in job.error
    with pytest.raises(ValidationErrors) as err:
        call("tengig.lagg.verify", _request(nics), {"seconds": 0})
    assert any(field == "options.seconds" for field, _, _ in err.value)
    assert in_lab_hosts(even_lab, "iperf3") == [], "an iperf3 was left running in the lab's hosts"


def test_cli_verify_on_the_lab(even_lab, capsys):
    from tengig.cli.main import main

    capsys.readouterr()
    assert main(["lagg", "verify", "--seconds", "1", "--clients", "4", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [m["name"] for b in doc["verdict"]["balance"] for m in b["shares"]][:2] == ["eth-desk", "eth-lab"]
    assert len(doc["measurements"]["results"]) == 4
    assert main(["lagg", "verify", "--seconds", "1", "--clients", "4"]) == 0
    out = capsys.readouterr().out
    assert "measured from desk to nas" in out and out.count("eth-lab idle") == 4
