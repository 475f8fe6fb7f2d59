"""`tengig serve`, `tengig apikey ...` and `tengig call`: the API host and its two ways in."""
from __future__ import annotations

import asyncio
import json
import logging
import os

from pathlib import Path
from typing import Any

import click

from ..errors import ValidationError
from .progress import ProgressBar

URI_ENV_VAR = "TENGIG_URI"
KEY_ENV_VAR = "TENGIG_API_KEY"


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="TCP address to listen on ('0.0.0.0': every interface; '': no TCP).")
@click.option("--port", default=8610, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port (0: any free port, printed at start).")
@click.option("--unix-socket", default="/run/tengig/tengig.sock", show_default=True,
              help="Unix socket path, where root is trusted without a key ('': none).")
@click.option("--ui-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The built panel to serve at / (default: the one installed with tengig, else the checkout's ui/dist).")
def serve(host: str, port: int, unix_socket: str, ui_dir: Path | None) -> None:
    """Serve the tengig API (JSON-RPC 2.0 over websocket at /api/current) and the panel, until SIGTERM."""
    from ..panel_files import panel_dir
    from ..server.app import TengigServer

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    server = TengigServer(host=host or None, port=port, unix_socket=Path(unix_socket) if unix_socket else None,
                          ui_dir=ui_dir or panel_dir())

    def announce(started: TengigServer) -> None:
        where = [started.url] if started.host else []
        if started.unix_socket:
            where.append(f"ws+unix://{started.unix_socket}")
        click.echo(f"tengig serving on {' and '.join(where)}", err=True)

    asyncio.run(server.serve_until_signalled(announce))
    click.echo("tengig stopped", err=True)


@click.group("apikey")
def apikey_group() -> None:
    """API keys for `tengig serve` (stored hashed; the plain key is shown once)."""


@apikey_group.command("create")
@click.argument("name")
@click.option("--username", default="root", show_default=True, help="The user a login with this key becomes.")
def apikey_create(name: str, username: str) -> None:
    """Create a key NAME and print it (the only time it is shown)."""
    from ..server.apikeys import ApiKeyStore

    store = ApiKeyStore()
    record, key = store.create(name, username)
    click.echo(key)
    click.echo(f"created API key {record.name!r} (id {record.id}) for {record.username} in {store.path}; "
               "keep it now: it cannot be shown again", err=True)


@apikey_group.command("list")
def apikey_list() -> None:
    """Every key: id, name, user, creation time (never the key itself)."""
    from ..server.apikeys import ApiKeyStore

    for key in ApiKeyStore().list():
        click.echo(f"{key.id}\t{key.name}\t{key.username}\t{key.created:.0f}")


@apikey_group.command("delete")
@click.argument("name")
def apikey_delete(name: str) -> None:
    """Delete the key NAME: logins with it fail from now on, and a running `tengig serve` has ended the
    sessions logged in with it when this returns."""
    from ..server.apikeys import ApiKeyStore

    ended = ApiKeyStore().delete(name).sessions_ended
    click.echo(f"deleted API key {name!r}; ended {ended} open session{'' if ended == 1 else 's'} logged in with it",
               err=True)


@click.command("call", context_settings={"ignore_unknown_options": True})
@click.option("-u", "--uri", default=None, help=f"Server URI (default: ${URI_ENV_VAR}, else the unix socket "
              "ws+unix:///run/tengig/tengig.sock).")
@click.option("-K", "--api-key", default=None, help="API key on the command line (as midclt takes it; other "
              f"users can read argv: prefer --api-key-file or ${KEY_ENV_VAR}).")
@click.option("--api-key-file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help=f"Read the API key from this file (default: ${KEY_ENV_VAR}; none needed as root on the unix "
              "socket).")
@click.option("-U", "--username", default=None, help="Log in with auth.login_ex as this user (default: "
              "auth.login_with_api_key).")
@click.option("-j", "--job", is_flag=True, help="The method is a job: wait for it, progress bar on stderr.")
@click.option("-t", "--timeout", type=float, default=None, help="Give up after this many seconds.")
@click.argument("method")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def call(uri: str | None, api_key: str | None, api_key_file: Path | None, username: str | None, job: bool,
         timeout: float | None, method: str, args: tuple[str, ...]) -> None:
    """Call METHOD with ARGS, like `midclt call`: each ARG is parsed as JSON, else taken as a string.
    A string or integer result prints as is, anything else as JSON."""
    from ..client import DEFAULT_URI, Client, ClientError

    params = [parse_arg(arg) for arg in args]
    uri = uri or os.environ.get(URI_ENV_VAR) or DEFAULT_URI
    api_key = api_key or (read_key_file(api_key_file) if api_key_file else None) or os.environ.get(KEY_ENV_VAR)
    try:
        with Client(uri, api_key=api_key, username=username) as client:
            if job:
                bar = ProgressBar(method)
                result = client.call(method, *params, job=True, timeout=timeout,
                                     callback=lambda j: bar(j["progress"]["percent"] or 0,
                                                            j["progress"]["description"] or ""))
                bar.done()
            else:
                result = client.call(method, *params, timeout=timeout)
    except ClientError as exc:
        if exc.field_errors:
            raise ValidationError(exc.field_errors) from exc
        raise
    click.echo(format_result(result))


def read_key_file(path: Path) -> str:
    """The key in ``path`` (surrounding blanks and the final newline dropped)."""
    key = path.read_text().strip()
    if not key:
        raise ValidationError.one("api_key_file", f"{path} is empty; put the key from `tengig apikey create` in it")
    return key


def parse_arg(text: str) -> Any:
    """midclt's rule: JSON if it parses, else the text itself ('tank' -> 'tank', '3' -> 3)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def format_result(result: Any) -> str:
    if isinstance(result, (int, str)) and not isinstance(result, bool):
        return str(result)
    return json.dumps(result)


API_COMMANDS = (serve, apikey_group, call)


