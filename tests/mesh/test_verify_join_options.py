"""tengig.mesh.verify with peers that join, refused before anyone is waited for (in-process, the real
seams, no lab): peers join the machine tengig runs on, named as one plan host."""
from __future__ import annotations

import pytest

from tengig.api import ValidationErrors
from tengig.api.jobs import JobState

from .layouts import lab_hosts


def test_peers_join_this_machine_only(api):
    job = api.run_job("tengig.mesh.verify", lab_hosts(), {"system": "lab", "join": 2})
    assert job.state == JobState.FAILED
    assert "options.system" in job.error and "peers join the machine tengig runs on" in job.error


def test_join_is_bounded_and_names_one_host(api):
    with pytest.raises(ValidationErrors) as err:
        api.call("tengig.mesh.verify", lab_hosts(), {"system": "local", "hosts": ["nas"], "join": 17})
    assert [field for field, _, _ in err.value] == ["options.join"]
    job = api.run_job("tengig.mesh.verify", lab_hosts(), {"system": "local", "hosts": [], "join": 1})
    assert job.state == JobState.FAILED and "options.hosts" in job.error and "the one plan host" in job.error
