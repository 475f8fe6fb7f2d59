"""The lab NAS's SMB server: a real smbd with a private configuration, its own user, started in
the nas namespace in a session of its own (smbd signals its process group when it stops: without
setsid it would kill its caller, docs/lab.md §6)."""
from __future__ import annotations

import os
import pwd
import time
from collections.abc import Sequence
from pathlib import Path

from ..errors import LabError
from ..fix.smb_conf import with_global_option
from ..runner import Runner
from .paths import LabPaths
from .plan import SHARE_NAME

T = 30
SMB_PORT = 445


def render_server_conf(samba_dir: Path, share_path: Path, user: str) -> str:
    d = samba_dir
    return f"""# tengig lab smbd: private directories, nothing shared with the machine's own Samba
[global]
    server role = standalone server
    workgroup = WORKGROUP
    netbios name = TGNAS
    disable netbios = yes
    smb ports = {SMB_PORT}
    server min protocol = SMB2_02
    map to guest = never
    passdb backend = tdbsam:{d}/private/passdb.tdb
    private dir = {d}/private
    lock directory = {d}/lock
    state directory = {d}/state
    cache directory = {d}/cache
    pid directory = {d}/pid
    ncalrpc dir = {d}/ncalrpc
    binddns dir = {d}/bind-dns
    usershare path =
    log file = {d}/log/smbd.%m
    max log size = 1000
    load printers = no
    printing = bsd
    printcap name = /dev/null
    disable spoolss = yes

[{SHARE_NAME}]
    path = {share_path}
    read only = no
    valid users = {user}
    create mask = 0644
    directory mask = 0755
"""


def render_client_conf(client_dir: Path) -> str:
    # Each client host gets its own cache: Samba caches name lookups (gencache), and a cache shared
    # between namespaces would hand one host the address another host uses for the same peer name.
    return f"""[global]
    client min protocol = SMB2_02
    client max protocol = SMB3
    name resolve order = host
    cache directory = {client_dir}/cache
    lock directory = {client_dir}/lock
    state directory = {client_dir}/state
    private dir = {client_dir}/private
"""


def client_dir(paths: LabPaths, host: str) -> Path:
    return paths.samba / f"client-{host}"


def render_auth_file(user: str, password: str) -> str:
    return f"username = {user}\npassword = {password}\ndomain = WORKGROUP\n"


def ensure_unix_user(runner: Runner, user: str) -> tuple[int, int]:
    """The share's owner exists as a system user (kept across labs, like any NAS service account)."""
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        runner.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user], timeout=T)
        entry = pwd.getpwnam(user)
    return entry.pw_uid, entry.pw_gid


def write_configs(paths: LabPaths, share_path: Path, user: str, password: str, clients: Sequence[str]) -> Path:
    d = paths.samba
    for sub in ("private", "lock", "state", "cache", "pid", "ncalrpc", "bind-dns", "log"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    os.chmod(d / "private", 0o700)
    conf = d / "smb.conf"
    conf.write_text(render_server_conf(d, share_path, user))
    for host in clients:
        cdir = client_dir(paths, host)
        for sub in ("cache", "lock", "state", "private"):
            (cdir / sub).mkdir(parents=True, exist_ok=True)
        (cdir / "smb.conf").write_text(render_client_conf(cdir))
    auth = d / "client.auth"
    fd = os.open(auth, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(render_auth_file(user, password))
    return conf


def add_smb_user(runner: Runner, conf: Path, user: str, password: str) -> None:
    runner.run(["pdbedit", "-s", str(conf), "-a", "-t", "-u", user], input=f"{password}\n{password}\n", timeout=T)


def start_smbd(runner: Runner, paths: LabPaths, conf: Path, netns: str) -> int:
    proc = runner.spawn(
        ["smbd", "--foreground", "--no-process-group", "-s", str(conf)],
        netns=netns,
        # only the network namespace, as on a NAS: smbd sees every file system mounted later (a run's scratch
        # dataset); `ip netns exec` would give it a private mount namespace frozen at its start
        netns_mode="nsenter",
        log_path=paths.logs / "smbd.log",
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log = (paths.logs / "smbd.log").read_text(errors="replace")[-800:]
            raise LabError(f"smbd exited with {proc.returncode} at start: {log}")
        ss = runner.run(["ss", "-Hltn", f"sport = :{SMB_PORT}"], netns=netns, netns_mode="nsenter", timeout=T)
        if ss.stdout.strip():
            return proc.pid
        time.sleep(0.1)
    raise LabError(f"smbd did not listen on port {SMB_PORT} within 20 s (log: {paths.logs / 'smbd.log'})")


MULTICHANNEL = "server multichannel support"


def set_global(runner: Runner, paths: LabPaths, name: str, value: str) -> None:
    """What a person does at the NAS: edit smb.conf's [global] (``name = value``), then have the running smbd
    reload it; sessions opened after that see the new setting."""
    conf = paths.samba / "smb.conf"
    conf.write_text(with_global_option(conf.read_text(), name, value))
    runner.run(["smbcontrol", "-s", str(conf), "smbd", "reload-config"], timeout=T)


def set_multichannel(runner: Runner, paths: LabPaths, on: bool) -> None:
    """server multichannel support = yes/no, as set_global does it."""
    set_global(runner, paths, MULTICHANNEL, "yes" if on else "no")


ENCRYPTION = "server smb encrypt"


def global_option(paths: LabPaths, name: str) -> str | None:
    """``name``'s value as written in the lab smb.conf's [global] (None: not written there)."""
    in_global = False
    for line in (paths.samba / "smb.conf").read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            in_global = stripped.lower() == "[global]"
        elif in_global and stripped.split("=", 1)[0].strip().lower() == name:
            return stripped.split("=", 1)[1].strip()
    return None


def smbclient_argv(paths: LabPaths, client: str, server: str, commands: str | None) -> list[str]:
    """smbclient against the lab share from a client namespace; commands is smbclient's own -c script,
    built by tengig from validated names only (None: interactive, commands on stdin)."""
    argv = [
        "smbclient", f"//{server}/{SHARE_NAME}",
        "-s", str(client_dir(paths, client) / "smb.conf"),
        "-A", str(paths.samba / "client.auth"),
    ]
    return argv + (["-c", commands] if commands is not None else [])
