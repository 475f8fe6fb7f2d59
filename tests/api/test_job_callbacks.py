"""job_callbacks: the cancel Event an abort sets and the progress callback, as the mesh and LAGG
services hand them to their capabilities."""
from __future__ import annotations

from tengig.api.decorators import JobOptions
from tengig.api.job_callbacks import cancel_event, progress_callback
from tengig.api.jobs import Job


def _job() -> Job:
    return Job(1, "t.job", [], JobOptions(abortable=True), lock_name=None)


def test_the_cancel_event_is_set_by_an_abort_asked_for_later_or_already():
    job = _job()
    cancel = cancel_event(job)
    assert not cancel.is_set()
    job.request_abort()
    assert cancel.is_set()
    assert cancel_event(job).is_set()  # the job was aborted before the Event was made


def test_the_progress_callback_sets_percent_and_description_only():
    job = _job()
    job.set_progress(extra={"checkin": None})
    progress_callback(job)(42.7, "measuring")
    assert job.progress == {"percent": 42, "description": "measuring", "extra": {"checkin": None}}


def test_the_progress_callback_only_goes_forward():
    """A step that reports a lower percent (a fix changing its setting inside its re-measure's span) keeps the
    highest so far, with its own words."""
    job = _job()
    progress = progress_callback(job)
    progress(5, "waiting for desk")
    progress(2, "server smb encrypt: required -> if_required")
    assert job.progress["percent"] == 5 and job.progress["description"] == "server smb encrypt: required -> if_required"
    progress(9, "measuring")
    assert job.progress["percent"] == 9
