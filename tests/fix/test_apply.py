"""A fix applied through the settings seam and judged by a re-measure (tests' own seam and re-measure, the
store real): refusals change nothing; a real gain is kept, no gain is put back, and undo restores the value
before the kept fix; both runs are stored and linked."""
from __future__ import annotations

import pytest

from tengig.bench.run.suite import BenchReport
from tengig.errors import TengigError, ValidationError
from tengig.fix.apply import apply_fix, undo_fixes
from tengig.fix.catalog import SMB_CONF
from tengig.fix.models import Setting
from tengig.fix.settings import INHERIT

from .recorded import altered, recorded_store

ENCRYPT = Setting(platform="system", kind="smb", object=SMB_CONF, key="server smb encrypt")
SYNC = Setting(platform="system", kind="dataset", object="tgtank/smb", key="sync")


class FakeSettings:
    """The NAS's settings as a dict; every write recorded."""

    def __init__(self, values: dict[Setting, str], local: bool = True, busy: list[str] | None = None):
        self.values, self.writes, self.local, self.doing, self.pools = dict(values), [], local, busy or [], []

    def busy(self, pool):
        self.pools.append(pool)
        return self.doing

    def read(self, setting):
        return self.values[setting]

    def previous(self, setting):
        return self.values[setting] if setting.kind != "dataset" or self.local else INHERIT

    def write(self, setting, value):
        self.writes.append((setting.key, value))
        self.values[setting] = "always" if value == INHERIT else value


def _stored(store, run):
    run_id = store.start_run(run.kind, run.inputs, run.environment)
    store.finish_run(run_id, "success", results=run.results, verdict=run.verdict)
    return store.get(run_id)


def _remeasure(store, before, scale: float, *, client="desk", seen=None):
    """A re-measure that copies at ``scale`` x the run's figures (``client`` only), stored as a run of its own."""
    def remeasure(req, on_joined=None):
        if seen is not None:
            seen.append(req)
        if on_joined is not None:
            on_joined([client])  # the desktops joined: the fix changes its setting now
        report = BenchReport.model_validate(before.results)
        report.clients = [c for c in report.clients if c.client == client]
        for d in (report.clients[0].smb.read, report.clients[0].smb.write):
            d.bytes_per_s.values = [v * scale for v in d.bytes_per_s.values]
            d.bytes_per_s.median *= scale
        run_id = store.start_run("smb", req, before.environment)
        store.finish_run(run_id, "success", results=report.model_dump(mode="json"))
        return run_id, report
    return remeasure


@pytest.fixture
def encrypted(tmp_path):
    store = recorded_store(tmp_path)
    return store, _stored(store, altered(store.get(2), encryption=True, smb_scale=0.4))


def test_without_confirmation_nothing_changes_and_the_change_and_prediction_are_shown(encrypted):
    store, run = encrypted
    settings = FakeSettings({ENCRYPT: "required"})
    with pytest.raises(ValidationError) as caught:
        apply_fix(store, settings, _remeasure(store, run, 2.5), run.id, None, confirm=False)
    [(field, message)] = caught.value.errors
    assert field == "confirm"
    assert "set server smb encrypt of smb.conf [global] from required to if_required" in message
    assert "SMB read 43.96 MB/s now" in message and "confirm: true" in message
    assert "The re-measure needs lab, desk to join again within 300 s" in message  # said before anything changes
    assert settings.writes == [] and store.fixes() == []


def test_a_real_gain_is_kept_stored_linked_and_undone(encrypted):
    store, run = encrypted
    settings, seen = FakeSettings({ENCRYPT: "required"}), []
    out = apply_fix(store, settings, _remeasure(store, run, 2.5, seen=seen), run.id, "smb-encryption", confirm=True)
    assert out.state == "kept" and out.previous == "required" and settings.values[ENCRYPT] == "if_required"
    assert [g.verdict for g in out.gains] == ["gain", "gain"] and out.why.startswith("a real gain: SMB read")
    [req] = seen
    desk = next(c for c in run.results["clients"] if c["client"] == "desk")
    assert (req.kind, req.join, req.share, req.repeats, req.smb_file, req.preset, req.target) == (
        "smb", 2, "share", 2, desk["smb"]["file_size"], "quick", "hdd-15k-best")
    [row] = store.fixes(run.id)
    assert (row["run_id"], row["after_run_id"], row["state"], row["name"]) == (run.id, out.after_run_id, "kept",
                                                                               "smb-encryption")
    assert store.fixes(out.after_run_id)[0]["id"] == row["id"]  # linked both ways
    assert store.get(out.after_run_id).kind == "smb"
    said = undo_fixes(store, settings, run.id)
    assert said == [f"fix {row['id']} (smb-encryption): server smb encrypt of smb.conf [global] if_required -> required"]
    assert settings.values[ENCRYPT] == "required" and store.fixes(run.id)[0]["state"] == "undone"
    with pytest.raises(TengigError, match=f"run {run.id} has no kept fix to undo"):
        undo_fixes(store, settings, run.id)


def test_no_gain_beyond_the_spread_puts_the_previous_value_back_and_says_why(encrypted):
    store, run = encrypted
    settings = FakeSettings({ENCRYPT: "required"})
    out = apply_fix(store, settings, _remeasure(store, run, 1.0), run.id, None, confirm=True)
    assert out.state == "rolled-back" and settings.values[ENCRYPT] == "required"
    assert settings.writes == [("server smb encrypt", "if_required"), ("server smb encrypt", "required")]
    assert out.why.startswith("no gain beyond the run's own spread: SMB read")
    assert out.why.endswith("put back server smb encrypt of smb.conf [global] to required")
    assert store.fixes(run.id)[0]["state"] == "rolled-back"


def test_a_desktop_that_does_not_copy_again_is_no_gain(encrypted):
    store, run = encrypted
    settings = FakeSettings({ENCRYPT: "required"})
    out = apply_fix(store, settings, _remeasure(store, run, 2.5, client="lab"), run.id, None, confirm=True)
    assert out.state == "rolled-back" and settings.values[ENCRYPT] == "required"
    assert out.why.startswith(f"desk did not copy again in run {out.after_run_id}")


def test_a_failed_re_measure_puts_the_value_back_and_is_recorded(encrypted):
    store, run = encrypted
    settings = FakeSettings({ENCRYPT: "required"})

    def broken(req, on_joined=None):
        on_joined(["desk"])  # joined, the setting changed, then the copies failed
        raise TengigError("desk's SMB copy failed: NT_STATUS_IO_TIMEOUT")

    with pytest.raises(TengigError, match="copy failed"):
        apply_fix(store, settings, broken, run.id, None, confirm=True)
    assert settings.values[ENCRYPT] == "required" and len(settings.writes) == 2  # changed, then put back
    [row] = store.fixes(run.id)
    assert row["state"] == "failed" and row["data"]["why"].startswith("desk's SMB copy failed: NT_STATUS_IO_TIMEOUT; "
                                                                      "put back")


def test_a_run_that_is_not_the_newest_on_its_nas_is_refused(encrypted):
    store, run = encrypted
    _stored(store, store.get(2))  # the NAS measured again since
    settings = FakeSettings({ENCRYPT: "required"})
    with pytest.raises(ValidationError, match=f"run {run.id} is not the newest on this NAS: run {run.id + 1}"):
        apply_fix(store, settings, _remeasure(store, run, 2.5), run.id, None, confirm=True)
    assert settings.writes == []


@pytest.mark.abuse
def test_a_setting_someone_changed_since_the_run_is_refused_naming_its_value(encrypted):
    store, run = encrypted
    settings = FakeSettings({ENCRYPT: "if_required"})
    with pytest.raises(ValidationError, match="holds server smb encrypt = if_required now") as caught:
        apply_fix(store, settings, _remeasure(store, run, 2.5), run.id, "smb-encryption", confirm=True)
    assert "changed since run" in caught.value.errors[0][1]
    assert settings.writes == [] and store.fixes() == []


def test_a_fix_name_the_run_does_not_have_is_refused_naming_its_fixes(encrypted):
    store, run = encrypted
    with pytest.raises(ValidationError, match=r"has no fix named 'mtu' \(its fixes: smb-encryption\)"):
        apply_fix(store, FakeSettings({ENCRYPT: "required"}), _remeasure(store, run, 2.5), run.id, "mtu",
                  confirm=True)


def test_undo_refuses_a_setting_changed_since_the_fix(encrypted):
    store, run = encrypted
    settings = FakeSettings({ENCRYPT: "required"})
    apply_fix(store, settings, _remeasure(store, run, 2.5), run.id, None, confirm=True)
    settings.values[ENCRYPT] = "off"
    with pytest.raises(TengigError, match="is off now, not the if_required fix 1 set"):
        undo_fixes(store, settings, run.id)
    assert settings.values[ENCRYPT] == "off"


def test_a_dataset_property_inherited_before_the_fix_is_inherited_again_on_undo(tmp_path):
    store = recorded_store(tmp_path)
    props = {"sync": "always", "dedup": "off"}
    run = _stored(store, altered(store.get(2), smb_scale=0.4, smb_properties=props,
                                 pool_properties={"sync": "standard", "dedup": "off"}))
    settings = FakeSettings({SYNC: "always"}, local=False)
    out = apply_fix(store, settings, _remeasure(store, run, 2.5), run.id, "dataset-sync", confirm=True)
    assert out.state == "kept" and out.previous == INHERIT and settings.values[SYNC] == "standard"
    undo_fixes(store, settings, run.id)
    assert settings.writes[-1] == ("sync", INHERIT)


@pytest.mark.abuse
def test_a_nas_busy_with_another_session_or_a_scrub_is_refused_unless_forced_by_name(encrypted):
    store, run = encrypted
    doing = ["an SMB session of alice from 10.0.0.9 (SMB3_11)", "a scrub on tgtank (scrub in progress since Fri)"]
    settings = FakeSettings({ENCRYPT: "required"}, busy=doing)
    with pytest.raises(ValidationError) as caught:
        apply_fix(store, settings, _remeasure(store, run, 2.5), run.id, None, confirm=True)
    [(field, message)] = caught.value.errors
    assert field == "force_busy" and settings.pools == ["tgtank"]
    assert message.startswith("the NAS is busy with an SMB session of alice from 10.0.0.9 (SMB3_11); a scrub on "
                              "tgtank") and "Nothing changed" in message and "--force-busy" in message
    assert settings.writes == [] and store.fixes() == []
    out = apply_fix(store, settings, _remeasure(store, run, 2.5), run.id, None, confirm=True, force_busy=True)
    assert out.state == "kept"


def test_an_applied_fix_records_predicted_against_measured(encrypted):
    store, run = encrypted
    out = apply_fix(store, FakeSettings({ENCRYPT: "required"}), _remeasure(store, run, 2.5), run.id, None,
                    confirm=True)
    assert [c.direction for c in out.predictions] == [p.direction for p in out.fix.predictions]
    for c, g in zip(out.predictions, out.gains):
        assert c.measured_after_bytes_per_s == g.after_median
    [row] = store.fixes(run.id)
    assert row["data"]["predictions"] == [c.model_dump(mode="json") for c in out.predictions]
    assert "Predicted against measured: read predicted" in out.why


def test_results_compare_shows_the_linked_pair_with_predicted_against_measured(encrypted):
    from tengig.cli.results_views import compare_text

    store, run = encrypted
    out = apply_fix(store, FakeSettings({ENCRYPT: "required"}), _remeasure(store, run, 2.5), run.id, None,
                    confirm=True)
    comparison = store.compare(run.id, out.after_run_id)
    link = comparison["fix"]
    assert (link["fix_id"], link["name"], link["state"], link["before_run_id"], link["after_run_id"]) == (
        out.fix_id, "smb-encryption", "kept", run.id, out.after_run_id)
    assert (link["setting"], link["from_value"], link["to_value"]) == (
        "server smb encrypt of smb.conf [global]", "required", "if_required")
    assert [p["measured_after_bytes_per_s"] for p in link["predictions"]] == [
        c.measured_after_bytes_per_s for c in out.predictions]
    text = compare_text(comparison)
    assert (f"Run {out.after_run_id} measured SMB again after fix {out.fix_id} (smb-encryption) of run {run.id}: "
            "server smb encrypt of smb.conf [global] required -> if_required, kept") in text
    assert "predicted" in text and "off the prediction" in text
    assert store.compare(run.id, 2)["fix"] is None  # two runs no fix links


def test_multichannel_without_gain_for_a_one_channel_client_is_put_back_saying_why(tmp_path):
    store = recorded_store(tmp_path)
    run = _stored(store, altered(store.get(2), multichannel=False, smbd_cpu=99.0, smb_scale=0.4))
    multichannel = Setting(platform="system", kind="smb", object=SMB_CONF, key="server multichannel support")
    settings = FakeSettings({multichannel: "No"})
    out = apply_fix(store, settings, _remeasure(store, run, 1.0), run.id, "smb-multichannel", confirm=True)
    assert out.state == "rolled-back" and settings.writes == [("server multichannel support", "yes"),
                                                              ("server multichannel support", "No")]
    assert out.why.startswith("desk copies with smbclient (linux), which uses one channel whatever the NAS offers: "
                              "multichannel gives it nothing")
    assert "no gain beyond the run's own spread" in out.why


def test_a_gain_a_one_channel_client_measured_after_multichannel_is_not_the_changes(tmp_path):
    """Copies faster after the change (the machine's load moved them) on a client that still used one channel:
    not multichannel's gain, so the change is put back, saying both."""
    store = recorded_store(tmp_path)
    run = _stored(store, altered(store.get(2), multichannel=False, smbd_cpu=99.0, smb_scale=0.4))
    multichannel = Setting(platform="system", kind="smb", object=SMB_CONF, key="server multichannel support")
    settings = FakeSettings({multichannel: "No"})
    out = apply_fix(store, settings, _remeasure(store, run, 1.5), run.id, "smb-multichannel", confirm=True)
    assert out.state == "rolled-back" and settings.values[multichannel] == "No"
    assert out.why.startswith("desk copies with smbclient (linux), which uses one channel whatever the NAS offers: "
                              "multichannel gives it nothing")
    assert "opens several): what the copies gained is not the change's (a real gain: SMB read" in out.why
    assert [g.verdict for g in out.gains] == ["gain", "gain"]


def test_desktops_that_never_join_the_re_measure_leave_the_nas_as_it_was(encrypted):
    """The setting changes only once the re-measure's desktops joined: a desktop that is gone (the join times
    out) refuses the fix naming why, and nothing was changed or needs putting back."""
    store, run = encrypted
    settings = FakeSettings({ENCRYPT: "required"})

    def gone(req, on_joined=None):
        raise TengigError(f"desk did not join within {req.join_timeout} s")

    with pytest.raises(TengigError) as refused:
        apply_fix(store, settings, gone, run.id, "smb-encryption", confirm=True)
    assert "nothing changed" in refused.value.message and "desk did not join" in refused.value.message
    assert settings.values[ENCRYPT] == "required" and settings.writes == []
    (row,) = store.fixes(run.id)
    assert row["state"] == "failed" and "nothing was changed" in row["data"]["why"]
