"""`tengig client join URL --token T`: this desktop takes part in a benchmark run on the NAS.
`tengig client kit --os windows ...`: the script that makes a Windows desktop do the same."""
from __future__ import annotations

from pathlib import Path

import click

from ..client.tls import tls_setting
from ..desk.join import Joiner
from ..desk.kit import DEFAULT_OUT, how_to_run, make_kit
from ..desk.nas_pace import NAS_SILENCE_S, NEXT_WAIT_S, SILENCE_RANGE_S
from ..desk.stop_signals import Stopped, stopped_by_signals
from ..errors import ValidationError

KIT_FLAGS = {"os": "--os", "nas": "--nas", "token": "--token", "share": "--share"}


@click.group("client")
def client_group() -> None:
    """This desktop in a benchmark run on the NAS (no port is opened here)."""


@client_group.command("join")
@click.argument("url")
@click.option("--token", envvar="TENGIG_JOIN_TOKEN", required=True,
              help="The run's join token, as the NAS shows it (or $TENGIG_JOIN_TOKEN).")
@click.option("--smb-auth-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="smbclient credentials file (username = ..., password = ...) for the SMB copies; without "
                   "it (or --mount) this desktop measures the network only.")
@click.option("--smb-conf", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="An smb.conf for smbclient (default: Samba's own).")
@click.option("--mount", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Copy through the NAS's share mounted at this directory (macOS: mount_smbfs or Finder, under "
                   "/Volumes; Linux: a CIFS or FUSE mount) instead of smbclient; unbuffered where the OS allows, "
                   "else with the desktop's cache dropped around each copy.")
@click.option("--disk", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Also measure this desktop's own disk, in this directory (on the disk to compare the NAS with): "
                   "a file of the SMB copies' size written then read with the cache kept out (fio when present); "
                   "the verdict then compares the NAS over SMB with it.")
@click.option("--name", help="What this desktop is called in the run (default: its host name).")
@click.option("--workdir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the file to copy is written (default: the temp directory); a fast local disk.")
@click.option("--ca-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="wss://: trust this certificate (PEM), e.g. the NAS's self-signed one as TrueNAS exports it.")
@click.option("--insecure", is_flag=True,
              help="wss://: do not check the NAS's certificate (anyone on the path could read the run's token).")
@click.option("--nas-address", "nas_address", multiple=True, metavar="IP",
              help="Another address of the NAS this desktop may run its tools against (repeat for several), e.g. "
                   "its address on a mesh link when URL reaches it over another; by default only the addresses "
                   "URL's host resolves to and the one the connection reached.")
@click.option("--nas-silence", "silence", type=click.FloatRange(*SILENCE_RANGE_S),
              default=NAS_SILENCE_S, show_default=True,
              envvar="TENGIG_NAS_SILENCE_S", metavar="SECONDS",
              help="End this desktop's part when the NAS has answered nothing for this long (it answers within "
                   f"{NEXT_WAIT_S:g} s when it has nothing to ask); or $TENGIG_NAS_SILENCE_S.")
def join_command(url: str, token: str, smb_auth_file: Path | None, smb_conf: Path | None, mount: Path | None,
                 disk: Path | None, name: str | None, workdir: Path | None, ca_file: Path | None, insecure: bool,
                 nas_address: tuple[str, ...], silence: float) -> None:
    """Join the run at URL (ws://NAS:PORT, wss://NAS or the NAS's name) and measure until it ends. Ctrl-C,
    SIGTERM and SIGHUP stop its tools and remove its work files before it exits."""
    def say(line: str) -> None:
        click.echo(f"[client] {line}", err=True)

    with stopped_by_signals():
        try:
            Joiner(url, token, smb_auth_file=smb_auth_file, smb_conf=smb_conf, workdir=workdir, name=name, say=say,
                   tls=tls_setting(ca_file, insecure), nas_address=nas_address, mount=mount, disk=disk,
                   silence=silence).run()
        except Stopped as exc:
            say(exc.message)
            raise click.exceptions.Exit(128 + exc.signum) from None


@client_group.command("kit")
@click.option("--os", "os_name", required=True, help="The desktop's OS: windows (Linux and macOS use `tengig client "
              "join`).")
@click.option("--nas", required=True, help="The NAS's API as the desktop reaches it: ws://HOST[:PORT] or wss://... "
              "(wss: the kit trusts the certificate the NAS presents there now, read from here).")
@click.option("--token", envvar="TENGIG_JOIN_TOKEN", required=True,
              help="The run's join token, as the NAS shows it (or $TENGIG_JOIN_TOKEN).")
@click.option("--share", required=True, help="The SMB share the run copies to (the run's share).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path(DEFAULT_OUT), show_default=True,
              help="Where to write the script.")
def kit_command(os_name: str, nas: str, token: str, share: str, out: Path) -> None:
    """Write the script a desktop runs to join one run (the NAS, token and share baked in, and for wss://
    the fingerprint of the NAS's certificate)."""
    try:
        text = make_kit(os_name=os_name, nas=nas, token=token, share=share)
    except ValidationError as exc:
        raise ValidationError([(KIT_FLAGS.get(field, field), message) for field, message in exc.errors]) from exc
    # CRLF and ASCII (render_kit's): Windows PowerShell 5.1 reads a .ps1 without a BOM in the ANSI code page.
    try:
        out.write_bytes(text.replace("\n", "\r\n").encode("ascii"))
    except OSError as exc:
        raise click.ClickException(f"cannot write {out}: {exc.strerror}") from exc
    click.echo(f"wrote {out}")
    click.echo(how_to_run(str(out), nas, share))
