"""tengig.fix through tengig's own API (in-process, the store real, the NAS a test's own: its smb.conf a file
the real testparm reads, its other tools answered here): the API models publish every field of the fix's own,
plan reads each setting's value now, apply refuses without confirmation naming request.confirm, and refuses a
run measured elsewhere."""
from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from tengig.api.models.fix import (
    TenGigFixEntry, TenGigFixGain, TenGigFixOutcome, TenGigFixPlanEntry, TenGigFixPrediction, TenGigFixCheck,
    TenGigFixSetting, TenGigFixWords,
)
from tengig.fix.models import DirectionGain, Fix, FixOutcome, FixPlan, Prediction, PredictionCheck, Setting, Words
from tengig.systems.seams import DEFAULT_SEAMS

from .recorded import FIXTURE, altered
from .test_settings import NasHosts

pytestmark = pytest.mark.skipif(shutil.which("testparm") is None, reason="Samba's testparm is not installed")


class ThisNas:
    """The bench system a fix acts on: this NAS (system local), its programs answered by NasHosts."""

    name, nas, truenas = "local", "nas", None

    def __init__(self, hosts):
        self.hosts = hosts


@pytest.mark.parametrize("api, source", [(TenGigFixSetting, Setting), (TenGigFixPrediction, Prediction),
                                         (TenGigFixEntry, Fix), (TenGigFixWords, Words), (TenGigFixPlanEntry, FixPlan),
                                         (TenGigFixGain, DirectionGain), (TenGigFixOutcome, FixOutcome),
                                         (TenGigFixCheck, PredictionCheck)])
def test_the_api_models_publish_every_field_of_the_fix_s_own(api, source):
    assert set(api.model_fields) == set(source.model_fields)


@pytest.fixture
def nas(tmp_path, monkeypatch, api_with):
    db = tmp_path / "results.sqlite3"
    shutil.copy(FIXTURE, db)
    monkeypatch.setenv("TENGIG_DB", str(db))
    conf = tmp_path / "smb.conf"
    conf.write_text("[global]\n    server smb encrypt = required\n[share]\n    path = /tmp\n")
    hosts = NasHosts(conf)
    api = api_with(replace(DEFAULT_SEAMS, bench_system=lambda system, pool: ThisNas(hosts)))
    from tengig.results import ResultStore

    store = ResultStore(db)
    run = altered(store.get(2), encryption=True, smb_scale=0.4)
    run_id = store.start_run(run.kind, run.inputs, run.environment)
    store.finish_run(run_id, "success", results=run.results)
    return api, run_id, hosts, conf


def test_plan_reads_each_setting_now_and_changes_nothing(nas):
    api, run_id, hosts, conf = nas
    before = conf.read_text()
    plan = api.call("tengig.fix.plan", run_id)
    [fix] = plan["fixes"]
    assert (fix["name"], fix["from_value"], fix["to_value"]) == ("smb-encryption", "required", "if_required")
    assert fix["predictions"][0]["predicted_bytes_per_s"] > fix["predictions"][0]["measured_bytes_per_s"]
    assert conf.read_text() == before and not any(a[0] == "smbcontrol" for a in hosts.argvs)


def test_apply_without_confirm_fails_at_request_confirm_showing_the_change(nas):
    api, run_id, hosts, conf = nas
    before = conf.read_text()
    job = api.run_job("tengig.fix.apply", {"run_id": run_id})
    [(field, message, _)] = job.exc_info["extra"]
    assert field == "request.confirm"
    assert "from required to if_required" in message and "Predicted: SMB read" in message
    assert conf.read_text() == before


def test_a_run_measured_on_another_system_is_refused_naming_it(nas, tmp_path):
    api, run_id, hosts, conf = nas
    from tengig.results import ResultStore

    store = ResultStore(tmp_path / "results.sqlite3")
    run = store.get(run_id)
    lab_id = store.start_run(run.kind, run.inputs, run.environment)
    store.finish_run(lab_id, "success", results={**run.results, "system": "lab"})
    job = api.run_job("tengig.fix.apply", {"run_id": lab_id, "confirm": True})
    [(field, message, _)] = job.exc_info["extra"]
    assert field == "request.run_id" and "measured system 'lab'" in message
    plan = api.call("tengig.fix.plan", lab_id)  # read-only: the plan still shows, without the values now
    assert plan["fixes"][0]["from_value"] is None


def test_query_links_each_fix_to_its_run_and_its_re_measure_with_its_judgement(nas, tmp_path):
    api, run_id, hosts, conf = nas
    from tengig.results import ResultStore

    store = ResultStore(tmp_path / "results.sqlite3")
    [fix] = api.call("tengig.fix.plan", run_id)["fixes"]
    fix_id = store.start_fix(run_id, fix["name"], {"fix": fix, "previous": "required"})
    applying = api.call("tengig.fix.query", run_id)
    assert [(f["id"], f["state"], f["after_run_id"], f["why"], f["gains"]) for f in applying] == [
        (fix_id, "applying", None, None, [])]
    run = store.get(run_id)
    after_id = store.start_run("smb", run.inputs, run.environment)
    store.finish_run(after_id, "success", results=run.results)
    gain = {"direction": "read", "before": [1e8, 1.1e8], "after": [2e8, 2.1e8], "before_median": 1.05e8,
            "after_median": 2.05e8, "gain_percent": 95.2, "verdict": "gain", "chance_percent": 16.7, "text": "t"}
    outcome = {"fix_id": fix_id, "run_id": run_id, "after_run_id": after_id, "fix": fix, "previous": "required",
               "state": "kept", "gains": [gain], "why": "a real gain: t"}
    store.finish_fix(fix_id, "kept", outcome, after_run_id=after_id)
    # the same record from the run it was made from and from the run that measured it again, and in all
    [made] = api.call("tengig.fix.query", run_id)
    assert api.call("tengig.fix.query", after_id) == [made] and made in api.call("tengig.fix.query")
    assert (made["run_id"], made["after_run_id"], made["state"], made["previous"]) == (run_id, after_id, "kept",
                                                                                       "required")
    assert made["fix"]["name"] == "smb-encryption" and made["gains"] == [gain] and made["why"] == "a real gain: t"
    assert made["undone"] is None and made["finished"] >= made["applied"]
    assert conf.read_text().count("server smb encrypt = required") == 1  # read-only: nothing changed


def test_query_of_a_run_that_is_not_there_says_so(nas):
    api, *_ = nas
    with pytest.raises(Exception) as err:
        api.call("tengig.fix.query", 999999)
    assert "999999" in str(err.value)
