"""Which TrueNAS ``system: truenas`` means, decided here for wherever tengig runs (``Seams.truenas``):

- inside TrueNAS's middlewared (the plugin): middlewared itself. The plugin hands its middleware
  object over (``seams.inside_middlewared``) and every call goes through ``call_sync``
  (MiddlewareCaller): nothing to configure, no key, no connection.
- anywhere else (``tengig serve``, the app, the CLI, a script): the TrueNAS named by
  TENGIG_TRUENAS_URL with its API key file (backends/truenas/connection.py); with none named, on a
  TrueNAS itself, its middlewared's unix socket, where root is logged in by its credentials (as
  midclt is).

An opener is called once per use, with the job it serves when there is one (``session``), and gives a
TrueNASBackend for as long as its ``with`` lasts. Inside middlewared the job carries the caller's
connection (``app``): TrueNAS's interface.websocket_interface then names the interface that person
arrives on, which an apply never takes away unconfirmed.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

from ..backends.truenas import THIS_TRUENAS, MiddlewareCaller, TrueNASBackend
from ..backends.truenas.connection import KEY_FILE_ENV, URL_ENV, configured_truenas
from .local import truenas_here

TrueNASOpener = Callable[..., AbstractContextManager[TrueNASBackend]]   # (session=None)

INSIDE_MIDDLEWARED = "tengig runs inside this TrueNAS's middlewared (the tengig plugin)"


@contextlib.contextmanager
def this_truenas_socket() -> Iterator[TrueNASBackend]:
    from ..client.client import Client

    with Client(THIS_TRUENAS) as client:
        yield TrueNASBackend(client)


def outside_truenas(session: Any = None) -> AbstractContextManager[TrueNASBackend]:
    """The TrueNAS seen from a process of its own: the configured one, else this machine's middlewared
    when this machine is a TrueNAS (else the error saying what to configure)."""
    named = os.environ.get(URL_ENV) or os.environ.get(KEY_FILE_ENV)
    if not named and truenas_here() is not None:
        return this_truenas_socket()
    return configured_truenas()


def through_middlewared(middleware: Any) -> TrueNASOpener:
    """The opener inside middlewared: its own methods, called from the service's worker thread."""
    @contextlib.contextmanager
    def opener(session: Any = None) -> Iterator[TrueNASBackend]:
        yield TrueNASBackend(MiddlewareCaller(middleware, app=getattr(session, "app", None)))
    return opener
