"""`tengig app compose`: tengig as a TrueNAS SCALE custom app (the compose YAML, or app.create's body)."""
from __future__ import annotations

import json

import click
import pydantic

from ..errors import ValidationError

FIELD_OPTIONS = {"api_key_file": "--api-key-file", "data_dir": "--data-dir", "port": "--port", "image": "--image",
                 "app_name": "--app-name", "truenas_url": "--truenas-url",
                 "pools_dir": "--pools-dir"}


@click.group("app")
def app_group() -> None:
    """tengig as a TrueNAS SCALE app (docker compose; SCALE 24.10+)."""


@app_group.command("compose")
@click.option("--api-key-file", required=True,
              help="Path ON THE NAS of a file holding a TrueNAS API key (mode 0600); mounted as a compose secret.")
@click.option("--data-dir", default=None,
              help="Path on the NAS for the results database  [default: the API key file's directory]")
@click.option("--port", default=8610, show_default=True, type=int, help="TCP port of tengig's API and panel.")
@click.option("--image", default=None, help="Image to run  [default: tengig:VERSION, from `make app-image`]")
@click.option("--app-name", default="tengig", show_default=True, help="The app's name in TrueNAS.")
@click.option("--truenas-url", default=None,
              help="middlewared as seen from the app  [default: ws+unix:///var/run/middleware/middlewared.sock, the "
              "host's socket mounted in; or the NAS's wss://ADDRESS through its nginx]")
@click.option("--pools-dir", default=None,
              help="Host path the pools are mounted under, mounted in the app at the same path  [default: /mnt]")
@click.option("--format", "output_format", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True,
              help="yaml: the compose file (Install via YAML); json: the body of app.create.")
def app_compose(api_key_file: str, data_dir: str | None, port: int, image: str | None, app_name: str,
                truenas_url: str | None, pools_dir: str | None, output_format: str) -> None:
    """Print tengig's app: the compose YAML, or the JSON body for `midclt call -j app.create`."""
    from ..app_compose import AppSettings, app_create_body, render_compose

    given = {"api_key_file": api_key_file, "data_dir": data_dir, "port": port, "image": image,
             "app_name": app_name, "truenas_url": truenas_url,
             "pools_dir": pools_dir}
    try:
        settings = AppSettings(**{k: v for k, v in given.items() if v is not None})
    except pydantic.ValidationError as exc:
        raise ValidationError([(FIELD_OPTIONS.get(str(e["loc"][0]), str(e["loc"][0])) if e["loc"] else "",
                                e["msg"]) for e in exc.errors()]) from exc
    if output_format == "json":
        click.echo(json.dumps(app_create_body(settings), indent=2))
    else:
        click.echo(render_compose(settings), nl=False)
