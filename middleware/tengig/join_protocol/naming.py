"""The shapes of the names the join protocol carries: a run's join token, the name the NAS gives a desktop,
the desktop's directories in the share (which the NAS names in its instructions and the desktop checks), and
the folder and file a desktop measures its own disk with."""
from __future__ import annotations

import re

# A join token: tgb- + a public label (which run) + the secret, in hex digits.
LABEL_HEX, SECRET_HEX = 8, 40
TOKEN_RE = re.compile(rf"tgb-[0-9a-f]{{{LABEL_HEX + SECRET_HEX}}}")
CLIENT_NAME_CHARS = 32

# A run's directory in the share: a plain one (PLAIN_PREFIX + the run's tag + the client's name), or a client's
# inside the run's scratch dataset (tengig-scratch-...\CLIENT); then optionally one of its files.
PLAIN_PREFIX = "tengig-bench-"
REMOTE_RE = re.compile(r"(tengig-bench-[A-Za-z0-9-]{1,80}|tengig-scratch-[A-Za-z0-9-]{1,64}\\[a-z0-9][a-z0-9-]{0,62})"
                       r"(\\(f\d{1,2}|evict)\.dat)?")
# A client's directory alone (REMOTE_RE without a file): where its small files go.
CLIENT_DIR_RE = re.compile(REMOTE_RE.pattern.split(r")(\\(f")[0] + ")")

# A desktop's own disk: a fresh folder of tengig's inside the directory it was given, and one file in it.
KIT_FOLDER = "tengig-kit-disk-"  # the Windows kit's own folder inside -Disk
DESK_FOLDER = "tengig-own-disk-"  # tengig client join's own folder inside --disk (desk/own_disk.py)
DISK_FILE = "disk.dat"  # the file it measures with, in that folder


def token_label(token: str) -> str | None:
    """The public part of a join token (which run it names), or None if it is not a token's shape."""
    return token[4:4 + LABEL_HEX] if TOKEN_RE.fullmatch(token) else None


def client_name(hostname: str) -> str:
    """A short, safe label from what a desktop calls itself: ASCII letters, digits and dashes (it ends up in
    reports and names the client's directory in the share, checked again by the desktop with REMOTE_RE)."""
    label = "".join(ch if (ch.isascii() and ch.isalnum()) or ch == "-" else "-"
                    for ch in hostname.split(".")[0].lower()).strip("-")
    return (label or "client")[:CLIENT_NAME_CHARS]


def fio_filename(path: str) -> str:
    """``path`` as fio's --filename takes it for exactly that file: ':' separates file names for fio, and
    `\\:` is one ':' of the name (fio's only escape; a '\\' before any other character is itself)."""
    return path.replace(":", "\\:")


def fio_path(filename: str) -> str:
    """The path fio's --filename means (fio_filename undone, as fio reads it)."""
    return filename.replace("\\:", ":")
