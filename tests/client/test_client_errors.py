"""A job of another tengig run as one's own work (system lab's nas, `tengig bench` through its own host):
its failure becomes tengig's own error, in the server's words, with the right kind."""
from __future__ import annotations

import errno

from tengig.client.errors import CALL_ERROR, INVALID_PARAMS, ClientError
from tengig.errors import Aborted, TengigError, ValidationError


def test_a_failed_job_keeps_its_reason_and_errno_without_the_wire_tags():
    exc = ClientError("tengig.bench.run: [EIO] no smbd runs on nas: start Samba", code=CALL_ERROR, errno=errno.EIO,
                      method="tengig.bench.run")
    assert exc.reason == "no smbd runs on nas: start Samba"
    local = exc.as_local("request.")
    assert type(local) is TengigError and local.message == exc.reason and local.errno == errno.EIO


def test_field_errors_come_back_as_a_validation_error_under_the_callers_names():
    exc = ClientError("bad", code=INVALID_PARAMS, errno=errno.EINVAL,
                      extra=[["request.system", "no pool here", 22], ["request.pool", "not a pool", 22]])
    local = exc.as_local("request.")
    assert isinstance(local, ValidationError) and local.errors == [("system", "no pool here"), ("pool", "not a pool")]


def test_an_aborted_job_is_aborted():
    exc = ClientError("job 3 (tengig.bench.run) was aborted", errno=errno.ECANCELED, errname="ECANCELED")
    assert isinstance(exc.as_local(), Aborted)
