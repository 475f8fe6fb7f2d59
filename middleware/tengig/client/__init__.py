"""tengig's Python client for scripts (see client.py; connect.py finds the protocol a TrueNAS speaks)."""
from .client import DEFAULT_URI, Client
from .connect import candidate_uris, connect
from .errors import ClientError

__all__ = ["DEFAULT_URI", "Client", "ClientError", "candidate_uris", "connect"]
