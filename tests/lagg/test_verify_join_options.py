"""tengig.lagg.verify with desktops that join, refused before anyone is waited for (in-process, the real
seams, no lab): where it cannot run, what it needs, and members this NAS does not have."""
from __future__ import annotations

from tengig.api.jobs import JobState
from tengig.bench.join.session import SESSIONS

from .layouts import seed001


def _failed(api, options):
    job = api.run_job("tengig.lagg.verify", seed001("linux"), options)
    assert job.state == JobState.FAILED, job.result
    return job.error


def test_system_truenas_from_outside_a_truenas_says_where_to_run_it(api):
    error = _failed(api, {"system": "truenas", "join": 1})
    assert "options.system" in error and "run tengig on it" in error


def test_system_local_without_join_asks_for_join(api):
    error = _failed(api, {"system": "local"})
    assert "options.join" in error and "say how many (1 to 16)" in error


def test_members_this_nas_does_not_have_are_refused_before_anyone_is_waited_for(api):
    error = _failed(api, {"system": "local", "join": 2, "join_timeout": 3600})
    assert "request.members" in error and "enp3s0f0, enp4s0f0 are not a port of" in error
    assert not [s for s in SESSIONS._sessions.values() if s.expected == 2 and not s.ended]  # none opened for it


def test_a_freebsd_nas_is_told_the_desktops_ports_cannot_be_found(api_with):
    """TrueNAS CORE (its jail): its member counters are read (netstat, tests/backends/test_freebsd_machine.py),
    but the port each desktop reached is found with iproute2, which it has not; said, not tried."""
    from dataclasses import replace

    from tengig.systems.host_os import host_os
    from tengig.systems.seams import DEFAULT_SEAMS

    api = api_with(replace(DEFAULT_SEAMS, host_os=lambda: host_os("FreeBSD")))
    error = _failed(api, {"system": "local", "join": 1})
    assert "options.system" in error and "runs freebsd" in error and "tengig.lagg.analyse" in error
    assert "the port each desktop reached" in error
