"""tengig's Python client for scripts (see client.py)."""
from .client import DEFAULT_URI, Client
from .errors import ClientError

__all__ = ["DEFAULT_URI", "Client", "ClientError"]
