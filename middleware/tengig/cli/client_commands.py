"""`tengig client join URL --token T`: this desktop takes part in a benchmark run on the NAS."""
from __future__ import annotations

from pathlib import Path

import click

from ..desk.join import Joiner


@click.group("client")
def client_group() -> None:
    """This desktop in a benchmark run on the NAS (no port is opened here)."""


@client_group.command("join")
@click.argument("url")
@click.option("--token", envvar="TENGIG_JOIN_TOKEN", required=True,
              help="The run's join token, as the NAS shows it (or $TENGIG_JOIN_TOKEN).")
@click.option("--smb-auth-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="smbclient credentials file (username = ..., password = ...) for the SMB copies; without "
                   "it this desktop measures the network only.")
@click.option("--smb-conf", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="An smb.conf for smbclient (default: Samba's own).")
@click.option("--name", help="What this desktop is called in the run (default: its host name).")
@click.option("--workdir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the file to copy is written (default: the temp directory); a fast local disk.")
def join_command(url: str, token: str, smb_auth_file: Path | None, smb_conf: Path | None,
                 name: str | None, workdir: Path | None) -> None:
    """Join the run at URL (ws://NAS:PORT or the NAS's name) and measure until it ends."""
    Joiner(url, token, smb_auth_file=smb_auth_file, smb_conf=smb_conf, workdir=workdir, name=name,
           say=lambda line: click.echo(f"[client] {line}", err=True)).run()
