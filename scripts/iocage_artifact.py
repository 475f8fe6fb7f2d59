"""Assemble the TrueNAS CORE jail plugin (`make iocage-artifact`): a folder to copy to the NAS.

    OUT/tengig.json     the plugin manifest (manifest.json), its "artifact" naming OUT/artifact as
                        file://NAS_DIR/artifact, where the folder will be on the NAS
    OUT/artifact/       plugin/iocage (post_install.sh, post_update.sh, ui.json, settings.json,
                        overlay/) plus, in overlay/usr/local/share/tengig/, the tengig wheel (its file
                        name in current-wheel there) and the freebsd-sysctl wheel tengig reads the
                        kernel's sysctl tree with (its file name in current-freebsd-sysctl), built from
                        the release plugin/iocage/requirements-freebsd.txt pins by version and sha256

iocage copies a `file://` artifact folder into the jail's plugin/ directory and its overlay/ onto
the jail, so the wheel arrives at /usr/local/share/tengig/ before post_install.sh runs. tengig is
not on PyPI, so the wheel is built here (`pip wheel --no-deps .`) unless --wheel names one; the jail
has no compiler step and installs offline, so freebsd-sysctl's wheel is built here too.

Then, on the TrueNAS shell: `iocage fetch -P NAS_DIR/tengig.json -n tengig ip4_addr="ix0|192.168.1.50/24"`
(the jail's address on the port to measure: plugin/iocage/README.md)."""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_DIR = ROOT / "plugin" / "iocage"
MANIFEST = ROOT / "manifest.json"
DEFAULT_NAS_DIR = "/mnt/tank/tengig-iocage"
WHEEL_DIR = Path("overlay/usr/local/share/tengig")   # inside the artifact: /usr/local/share/tengig in the jail
WHEEL_POINTER = "current-wheel"
FREEBSD_REQUIREMENTS = PLUGIN_DIR / "requirements-freebsd.txt"
SYSCTL_POINTER = "current-freebsd-sysctl"


def build_wheel(dest: Path) -> Path:
    """`pip wheel --no-deps .` of this checkout into dest; the one tengig wheel it made."""
    # setuptools reuses build/ between builds: a module deleted since would end up in the wheel.
    shutil.rmtree(ROOT / "build", ignore_errors=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "--disable-pip-version-check",
                    "--quiet", "-w", str(dest), str(ROOT)], check=True, timeout=900)
    wheels = sorted(dest.glob("tengig-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"iocage-artifact: expected one tengig wheel from pip, found {[w.name for w in wheels]}")
    return wheels[0]


def build_freebsd_sysctl(dest: Path) -> Path:
    """freebsd-sysctl as pinned (version and the sdist's sha256): pip downloads the release in hash-checking
    mode and builds its wheel (pure Python) into dest; that one wheel."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--require-hashes", "--no-cache-dir",
                    "--disable-pip-version-check", "--quiet", "-r", str(FREEBSD_REQUIREMENTS), "-w", str(dest)],
                   check=True, timeout=900)
    wheels = sorted(dest.glob("freebsd_sysctl-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"iocage-artifact: expected one freebsd-sysctl wheel from pip, found {[w.name for w in wheels]}")
    return wheels[0]


def pinned_freebsd_sysctl() -> str:
    """The version requirements-freebsd.txt pins."""
    for line in FREEBSD_REQUIREMENTS.read_text().splitlines():
        if line.startswith("freebsd-sysctl=="):
            return line.split()[0].removeprefix("freebsd-sysctl==")
    raise SystemExit(f"iocage-artifact: {FREEBSD_REQUIREMENTS} pins no freebsd-sysctl")


def _bundle(built: Path, prefix: str, wheel_dir: Path, pointer: str) -> None:
    if not built.name.startswith(prefix) or built.suffix != ".whl":
        raise SystemExit(f"iocage-artifact: {built} is not a {prefix.rstrip('-_')} wheel")
    shutil.copy2(built, wheel_dir / built.name)
    (wheel_dir / pointer).write_text(built.name + "\n")


def assemble(out: Path, nas_dir: str, wheel: Path | None = None, sysctl_wheel: Path | None = None) -> Path:
    """Write out/artifact and out/tengig.json; return the manifest's path."""
    if not nas_dir.startswith("/"):
        raise SystemExit(f"iocage-artifact: the folder on the NAS must be an absolute path, not {nas_dir!r}")
    artifact = out / "artifact"
    shutil.rmtree(artifact, ignore_errors=True)
    # copy2 keeps the modes: post_install.sh, the rc.d script and the overlay's commands stay executable.
    shutil.copytree(PLUGIN_DIR, artifact, copy_function=shutil.copy2)
    wheel_dir = artifact / WHEEL_DIR
    wheel_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        _bundle(wheel if wheel is not None else build_wheel(Path(tmp)), "tengig-", wheel_dir, WHEEL_POINTER)
    with tempfile.TemporaryDirectory() as tmp:
        built = sysctl_wheel if sysctl_wheel is not None else build_freebsd_sysctl(Path(tmp))
        if not built.name.startswith(f"freebsd_sysctl-{pinned_freebsd_sysctl()}-"):
            raise SystemExit(f"iocage-artifact: {built.name} is not freebsd-sysctl {pinned_freebsd_sysctl()}, "
                             f"the version {FREEBSD_REQUIREMENTS.name} pins")
        _bundle(built, "freebsd_sysctl-", wheel_dir, SYSCTL_POINTER)
    manifest = json.loads(MANIFEST.read_text())
    manifest["artifact"] = f"file://{nas_dir.rstrip('/')}/artifact"
    path = out / "tengig.json"
    path.write_text(json.dumps(manifest, indent=2) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist" / "iocage",
                        help="Folder to write (default dist/iocage).")
    parser.add_argument("--nas-dir", default=DEFAULT_NAS_DIR,
                        help=f"Where that folder will be on the TrueNAS (default {DEFAULT_NAS_DIR}).")
    parser.add_argument("--wheel", type=Path, default=None, help="Use this tengig wheel instead of building one.")
    parser.add_argument("--freebsd-sysctl-wheel", type=Path, default=None,
                        help="Use this freebsd-sysctl wheel (the pinned version) instead of building one.")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    manifest = assemble(out, args.nas_dir, args.wheel, args.freebsd_sysctl_wheel)
    nas_dir = args.nas_dir.rstrip("/")
    print(f"iocage plugin: {out} (wheel: {(out / 'artifact' / WHEEL_DIR / WHEEL_POINTER).read_text().strip()})")
    print(f"copy it to the TrueNAS as {nas_dir} (tengig.json names that path), then on the TrueNAS shell:")
    print(f'  iocage fetch -P {nas_dir}/{manifest.name} -n tengig ip4_addr="ix0|192.168.1.50/24"')
    print("  (the jail's own address on the NAS port to measure, in the NAS's network stack: the panel at"
          " http://192.168.1.50:8610/, iperf3 on that address; plugin/iocage/README.md says why)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
