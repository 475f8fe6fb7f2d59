"""Pure pieces: query filters over job dicts, and positional params -> validated values with field paths."""
from __future__ import annotations

import pytest

from tengig.api.exceptions import CallError, ValidationErrors
from tengig.api.filters import filter_list
from tengig.api.models.results import TenGigResultsExportArgs, TenGigResultsQueryArgs
from tengig.api.params import accept_params

JOBS = [{"id": 1, "state": "SUCCESS", "method": "a.b", "progress": {"percent": 100}},
        {"id": 2, "state": "RUNNING", "method": "a.c", "progress": {"percent": 40}},
        {"id": 3, "state": "RUNNING", "method": "b.c", "progress": {"percent": None}}]


def test_filters_operators_dotted_fields_and_options():
    ids = lambda found: [j["id"] for j in found]  # noqa: E731
    assert ids(filter_list(JOBS, [["state", "=", "RUNNING"]], {})) == [2, 3]
    assert ids(filter_list(JOBS, [["progress.percent", ">=", 40]], {})) == [1, 2]  # None never compares
    assert ids(filter_list(JOBS, [["id", "in", [1, 3]], ["method", "^", "b."]], {})) == [3]
    assert ids(filter_list(JOBS, [], {"order_by": ["-id"], "limit": 2})) == [3, 2]
    assert filter_list(JOBS, [["id", "nin", [1]]], {"count": True}) == 2
    assert filter_list(JOBS, [["id", "=", 2]], {"get": True, "select": ["state"]}) == {"state": "RUNNING"}
    with pytest.raises(CallError):
        filter_list(JOBS, [["id", "=", 9]], {"get": True})


def test_bad_filters_name_their_position():
    with pytest.raises(ValidationErrors) as bad:
        filter_list(JOBS, [["id", "like", 1], ["id"], [3, "=", 1], ["id", "in", 5]], {})
    assert [e[0] for e in bad.value] == ["filters.0.1", "filters.1", "filters.2.0", "filters.3.2"]


def test_params_are_positional_with_defaults_and_paths():
    assert accept_params(TenGigResultsExportArgs, []) == ["json", None]
    assert accept_params(TenGigResultsExportArgs, ["csv", [3, 1]]) == ["csv", [3, 1]]
    assert accept_params(TenGigResultsQueryArgs, [{"kind": "smb"}])[0]["limit"] == 50
    with pytest.raises(ValidationErrors) as bad:
        accept_params(TenGigResultsExportArgs, ["xml", [0, "2"]])
    assert sorted(e[0] for e in bad.value) == ["format", "ids.0", "ids.1"]
    with pytest.raises(ValidationErrors) as surplus:
        accept_params(TenGigResultsExportArgs, ["csv", None, 1])
    assert [e[0] for e in surplus.value] == ["params.2"]
