"""Assemble the TrueNAS CORE jail plugin (`make iocage-artifact`): a folder to copy to the NAS.

    OUT/tengig.json     the plugin manifest (manifest.json), its "artifact" naming OUT/artifact as
                        file://NAS_DIR/artifact, where the folder will be on the NAS
    OUT/artifact/       plugin/iocage (post_install.sh, post_update.sh, ui.json, settings.json,
                        overlay/) plus the tengig wheel in overlay/usr/local/share/tengig/, whose
                        file name is in current-wheel there

iocage copies a `file://` artifact folder into the jail's plugin/ directory and its overlay/ onto
the jail, so the wheel arrives at /usr/local/share/tengig/ before post_install.sh runs. tengig is
not on PyPI, so the wheel is built here (`pip wheel --no-deps .`) unless --wheel names one.

Then, on the TrueNAS shell: `iocage fetch -P NAS_DIR/tengig.json -n tengig` (NAT, the manifest's
default; add ip4_addr="em0|192.168.1.50/24" for an address of its own)."""
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


def assemble(out: Path, nas_dir: str, wheel: Path | None = None) -> Path:
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
        built = wheel if wheel is not None else build_wheel(Path(tmp))
        if not built.name.startswith("tengig-") or built.suffix != ".whl":
            raise SystemExit(f"iocage-artifact: {built} is not a tengig wheel")
        shutil.copy2(built, wheel_dir / built.name)
    (wheel_dir / WHEEL_POINTER).write_text(built.name + "\n")
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
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    manifest = assemble(out, args.nas_dir, args.wheel)
    nas_dir = args.nas_dir.rstrip("/")
    print(f"iocage plugin: {out} (wheel: {(out / 'artifact' / WHEEL_DIR / WHEEL_POINTER).read_text().strip()})")
    print(f"copy it to the TrueNAS as {nas_dir} (tengig.json names that path), then on the TrueNAS shell:")
    print(f"  iocage fetch -P {nas_dir}/{manifest.name} -n tengig")
    print("  (NAT, the manifest's default: the panel on port 8610 of the NAS;"
          ' an address of its own: add ip4_addr="em0|192.168.1.50/24")')
    return 0


if __name__ == "__main__":
    sys.exit(main())
