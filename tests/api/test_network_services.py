"""tengig.lagg, tengig.mesh (plan/render) and tengig.nic through the host core: they delegate, errors
come out with argument-rooted field paths, and on this machine a Linux bond is refused plainly with
nothing changed (the kernel has no bonding driver)."""
from __future__ import annotations

import errno
import json

import pytest

from tengig.api import ValidationErrors
from tengig.api.jobs import JobState
from tengig.backends.linux.bond import bonding_support
from tengig.backends.linux.ip import LinuxNetwork

from ..mesh.layouts import THREE_HOSTS_10G


def _port(name, card, **kw):
    return {"name": name, "kind": "physical", "mac": None, "link": "up", "speed_bps": 10**10, "duplex": "full",
            "mtu": 1500, "driver": "ixgbe", "pci_slot": card + ".0", "card": card, "addresses": [],
            "in_use_by": None, "carries_session": False, "link_flaps": 0, **kw}


NICS = [_port("enp3s0f0", "0000:03:00"), _port("enp3s0f1", "0000:03:00"),
        _port("enp4s0f0", "0000:04:00"), _port("enp4s0f1", "0000:04:00")]


@pytest.fixture
def host(api):
    return api.call, api.run_job


def test_lagg_plan_spreads_members_across_cards(host):
    call, _ = host
    plan = call("tengig.lagg.plan", {"nics": NICS, "platform": "truenas-scale", "topology": "lacp-switch",
                                     "goal": "aggregate-many-clients", "client_count": 5})
    assert plan["protocol"] == "LACP" and len({m["card"] for m in plan["members"]}) == 2


def test_lagg_validate_uses_truenas_words_and_field_paths(host):
    call, _ = host
    with pytest.raises(ValidationErrors) as err:
        call("tengig.lagg.validate", {"nics": NICS, "platform": "truenas-scale", "topology": "unmanaged-switch",
                                      "goal": "aggregate-many-clients", "options": {"protocol": "ROUNDROBIN"}})
    assert any(field == "request.options.protocol" and "TrueNAS SCALE does not support LAG protocol ROUNDROBIN" in msg
               for field, msg, _ in err.value)


def test_lagg_apply_on_this_kernel_says_no_bonding_and_changes_nothing(host):
    assert not bonding_support().supported  # this machine: no bonding driver (docs/lab.md §1)
    _, run_job = host
    before = [i.name for i in LinuxNetwork().interfaces()]
    job = run_job("tengig.lagg.apply", {"nics": NICS, "platform": "linux", "topology": "lacp-switch",
                                        "goal": "aggregate-many-clients"})
    assert job.state == JobState.FAILED
    assert "no bonding driver" in job.error and "nothing was changed" in job.error
    assert job.exc_info["errno"] == errno.EOPNOTSUPP
    assert [i.name for i in LinuxNetwork().interfaces()] == before


def test_mesh_plan_and_render_through_the_api(host):
    call, _ = host
    request = json.loads(json.dumps(THREE_HOSTS_10G))
    plan = call("tengig.mesh.plan", request)
    assert len(plan["cables"]) == 3 and plan["diagram"]["edges"]
    rendered = call("tengig.mesh.render", request, "nas")
    assert [c["method"] for c in rendered["api_calls"]] == ["interface.update", "interface.update",
                                                           "network.configuration.update"]
    with pytest.raises(ValidationErrors) as err:
        call("tengig.mesh.render", request, "printer")
    assert [e[0] for e in err.value] == ["host"]
    bad = json.loads(json.dumps(request))
    bad["hosts"][1]["ports"].pop()
    with pytest.raises(ValidationErrors) as err:
        call("tengig.mesh.plan", bad)
    assert [e[0] for e in err.value] == ["request.hosts.1.ports"]


def test_nic_query_on_this_machine(host):
    call, _ = host
    nics = call("tengig.nic.query", {"system": "local"})
    eth = next(n for n in nics if n["addresses"])
    assert eth["mtu"] > 0 and eth["driver"] and eth["link"] == "up"
    with pytest.raises(ValidationErrors) as err:
        call("tengig.nic.query", {"system": "local", "host": "nas"})
    assert [e[0] for e in err.value] == ["options.host"]
