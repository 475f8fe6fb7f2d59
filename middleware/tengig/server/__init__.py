"""``tengig serve``: tengig's own API host, speaking what middlewared speaks, so the panel, `tengig` commands and
joined desktops talk to it as they would to TrueNAS.

- app.py the aiohttp host (JSON-RPC 2.0 at /api/current, the legacy protocol at /websocket, the panel's files),
  in_thread.py the same host in a thread of a command's own process (`tengig bench`);
- dispatcher.py, rpc.py, legacy.py a frame's way from text to an answer in middlewared's shapes; session.py,
  outbox.py, events.py one connection's state, its outgoing frames and its subscriptions;
- host.py the host core with what a network server adds; core_service.py, auth_service.py, method_catalog.py,
  models.py the host's own methods;
- apikeys.py the API keys (a small SQLite file, hashes only), login_gate.py their checks, throttled per
  address; revocation.py ends a deleted key's sessions in every server before the delete returns (apikeys
  imports it, never the reverse); peercred.py who is on the unix socket; security_headers.py what every
  HTTP answer carries.
"""
