"""The lab's share mounted on a desktop as a person mounts it there, with no kernel SMB client on this
machine: smbnetfs (FUSE, libsmbclient), its SMB traffic over the desktop's cable (its network namespace),
the mount in the root mount namespace (so the desktop's programs, started later, see it). Options as the
lab's notes measured them (1 MiB reads and writes). And a PATH holding every program of this machine
but iproute2's, as a desktop without iproute2 has (a Mac)."""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from tengig.lab.plan import SHARE_NAME

FUSE_OPTIONS = "big_writes,max_write=1048576,max_read=1048576,max_readahead=1048576"


@contextlib.contextmanager
def smbnetfs_share(lab, host: str, home: Path) -> Iterator[Path]:
    """Yields the share's directory under the mount (MOUNT/NAS-ADDRESS/share)."""
    spec = lab.require_up().spec
    nas = lab.plan().address_of(spec.nas, host)
    smb = home / ".smb"
    smb.mkdir(parents=True, exist_ok=True)
    (smb / "smb.conf").write_text("[global]\n    client min protocol = SMB2\n    client max protocol = SMB3\n")
    (smb / "smbnetfs.conf").write_text(f'auth "{spec.smb_user}" "{spec.smb_password}"\n'
                                      'use_libsecret "false"\nsmb_query_browsers "false"\n')
    (smb / "smbnetfs.conf").chmod(0o600)
    mount = lab.paths.mnt / f"smb-{host}"
    mount.mkdir(parents=True, exist_ok=True)
    proc = lab.spawn(host, ["smbnetfs", str(mount), "-f", "-o", FUSE_OPTIONS], log_name=f"smbnetfs-{host}.log",
                     netns_mode="nsenter", env={**os.environ, "HOME": str(home)})
    share = mount / nas / SHARE_NAME
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError):
                os.listdir(share)
                break
            assert proc.poll() is None and time.monotonic() < deadline, \
                (lab.paths.logs / f"smbnetfs-{host}.log").read_text(errors="replace")[-2000:]
            time.sleep(0.5)
        yield share
    finally:
        subprocess.run(["fusermount", "-u", str(mount)], capture_output=True, timeout=60)
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def path_without_iproute2(directory: Path) -> str:
    """A PATH of one directory: a link to every program on this machine's PATH but iproute2's."""
    iproute2 = subprocess.run(["dpkg", "-L", "iproute2"], capture_output=True, text=True, check=True).stdout
    theirs = {Path(line).name for line in iproute2.splitlines() if "/bin/" in line or "/sbin/" in line}
    directory.mkdir(parents=True, exist_ok=True)
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        with contextlib.suppress(OSError):
            for entry in os.scandir(folder):
                link = directory / entry.name
                if entry.name not in theirs and not link.exists() and os.access(entry.path, os.X_OK):
                    link.symlink_to(entry.path)
    assert shutil.which("ip", path=str(directory)) is None and shutil.which("python3", path=str(directory))
    return str(directory)
