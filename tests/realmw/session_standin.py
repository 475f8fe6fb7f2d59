"""A stand-in for the NAS's side of a run inside real middlewared (tests only; copied into a test's
middlewared as the plugin ``tengig_test_sessions``, never imported by tengig): a run's session made and
driven without a pool to measure, so a desktop's messages can be replayed against the plugin's real
tengig.bench.session methods. Private methods, called by root over the unix socket (midclt); the
session is the plugin's own (tengig.bench.join.session.SESSIONS of middlewared's process)."""
import threading

from middlewared.service import Service, private


class TengigTestSessionService(Service):  # stand-in
    class Config:
        namespace = "tengig_test.session"
        private = True

    @private
    def create(self, join_timeout):
        from tengig.bench.join.session import SESSIONS

        session, token = SESSIONS.create(1, join_timeout=join_timeout)
        return {"id": session.id, "token": token}

    @private
    def joined(self, session_id):
        session = self._session(session_id)
        session.wait_joined(threading.Event())
        return session.clients[0].info.model_dump()

    @private
    def post(self, session_id, kind, params):
        session = self._session(session_id)
        return session.post(session.clients[0], kind, params)

    @private
    def result(self, session_id, instruction, timeout):
        session = self._session(session_id)
        return session.wait_result(session.clients[0], instruction, timeout=timeout,
                                   cancel=threading.Event()).model_dump()

    @private
    def end(self, session_id, reason):
        self._session(session_id).end(reason)

    def _session(self, session_id):
        from tengig.bench.join.session import SESSIONS

        return SESSIONS.by_id(session_id)
