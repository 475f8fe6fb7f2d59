#!/usr/bin/env bash
# The small VMs' boot files for the bonding lab (docs/vm-lab.md): Debian 12's own kernel
# (linux-image-amd64, which has the bonding driver as a module) and one initramfs that is the whole
# root filesystem: mmdebstrap bookworm minbase with python3, iperf3, iproute2, ethtool, kmod, only the
# kernel modules the VMs load (virtio, 9p, bonding and what they need), and /init (tengig's guest init).
# tengig itself is not in it: the VM mounts this checkout read-only over 9p, so a change to the code
# needs no new image.
#
# Cached outside the checkout in VM_IMAGE_DIR (default /var/cache/tengig/vm), in a directory named by
# the hash of this script and the guest init: a second run finds it and prints its path in about a
# second. Debian's package versions are listed in packages.txt beside the boot files; built twice from
# the same versions, initrd.gz is the same bytes. As root.
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE=bookworm
PACKAGES=linux-image-amd64,python3,iperf3,iproute2,ethtool,kmod,procps
# The modules the guest init and tengig's bond apply load; their dependencies come along (modules.dep).
MODULES="virtio_pci virtio_net 9p 9pnet_virtio bonding sch_fq_codel"
INIT=middleware/tengig/lab/vm/guest_init.sh
CACHE=${VM_IMAGE_DIR:-/var/cache/tengig/vm}
KEY=$(cat "$0" "$INIT" | sha256sum | cut -c1-16)
OUT=$CACHE/$KEY

say() { printf '[vm-image] %s\n' "$*" >&2; }
die() { printf 'vm-image: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (mmdebstrap builds the tree as root)"
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
if [ -f "$OUT/initrd.gz" ] && [ -f "$OUT/vmlinuz" ]; then
  echo "$OUT"
  exit 0
fi
command -v mmdebstrap >/dev/null 2>&1 || die "mmdebstrap is not installed: run \`make setup\`"

# mmdebstrap dates what it makes by it; the same Debian package versions then give the same bytes.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
start=$SECONDS
WORK=$(mktemp -d "$CACHE/build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ROOTFS=$WORK/rootfs
say "rootfs: mmdebstrap $SUITE (minbase) with $PACKAGES"
timeout 1800 mmdebstrap --quiet --variant=minbase --include="$PACKAGES" \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --customize-hook="chroot \"\$1\" dpkg-query -W -f '\${Package}=\${Version}\n' >\"\$1/packages.txt\"" \
  --customize-hook="rm -rf \"\$1\"/var/cache/apt/archives/*.deb \"\$1\"/var/lib/apt/lists/*" \
  "$SUITE" "$ROOTFS" || die "mmdebstrap failed (above)"

kernel=$(find "$ROOTFS/lib/modules" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | head -1)
[ -n "$kernel" ] || die "no kernel modules in the root filesystem"
mkdir -p "$WORK/out"
cp "$ROOTFS/boot/vmlinuz-$kernel" "$WORK/out/vmlinuz"
mv "$ROOTFS/packages.txt" "$WORK/out/packages.txt"
rm -rf "${ROOTFS:?}"/boot/*

say "modules: $MODULES and their dependencies, of $kernel"
moddir=$ROOTFS/lib/modules/$kernel
# shellcheck disable=SC2086 # one argument per module name
keep=$(python3 - "$moddir" $MODULES <<'PY'
import sys
from pathlib import Path
moddir, wanted = Path(sys.argv[1]), sys.argv[2:]
deps = {}
for line in (moddir / "modules.dep").read_text().splitlines():
    path, _, rest = line.partition(":")
    deps[path] = rest.split()
by_name = {Path(p).name.split(".ko")[0].replace("-", "_"): p for p in deps}
todo, keep = [by_name[w] for w in wanted if w in by_name], set()
while todo:
    p = todo.pop()
    if p not in keep:
        keep.add(p)
        todo.extend(deps[p])
print("\n".join(sorted(keep)))
PY
)
mkdir -p "$WORK/modules"
while read -r rel; do
  [ -n "$rel" ] || continue
  mkdir -p "$WORK/modules/$(dirname "$rel")"
  cp "$moddir/$rel" "$WORK/modules/$rel"
done <<<"$keep"
rm -rf "$moddir/kernel"
cp -a "$WORK/modules/." "$moddir/"
chroot "$ROOTFS" depmod "$kernel"
for mod in $MODULES; do
  grep -q "/${mod}.ko" "$moddir/modules.dep" || grep -q "^${mod}\$" <(sed 's|.*/||; s|\.ko.*||' "$moddir/modules.builtin") \
    || die "module $mod is neither in modules.dep nor built in"
done

# Python's caches and the rest of what the VMs never read (the kernel package's udev hardware database and
# full perl: nothing runs them; a smaller initramfs unpacks faster under emulation).
find "$ROOTFS/usr/lib/python3"* -name '__pycache__' -prune -exec rm -rf {} + 2>/dev/null || true
rm -rf "$ROOTFS"/usr/lib/python3.11/{test,idlelib,tkinter,ensurepip,lib2to3,pydoc_data} \
  "$ROOTFS"/usr/share/{zoneinfo,i18n,common-licenses,perl} "$ROOTFS"/var/log/* \
  "$ROOTFS"/usr/lib/x86_64-linux-gnu/{gconv,perl,libperl.so*} "$ROOTFS"/usr/lib/udev/hwdb.*
install -m 0755 "$INIT" "$ROOTFS/init"
mkdir -p "$ROOTFS/src" "$ROOTFS/work"

say "initramfs: cpio of the root filesystem (every file dated SOURCE_DATE_EPOCH, names sorted)"
find "$ROOTFS" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
(cd "$ROOTFS" && find . -print0 | LC_ALL=C sort -z | cpio --null --create --format=newc --quiet --reproducible) \
  | gzip -1 -n >"$WORK/out/initrd.gz"
echo "$kernel" >"$WORK/out/kernel.txt"
rm -rf "$OUT"
mv "$WORK/out" "$OUT"
say "built $OUT in $((SECONDS - start)) s: kernel $kernel ($(grep -E '^linux-image-[0-9]' "$OUT/packages.txt")), \
initrd $(du -h "$OUT/initrd.gz" | cut -f1)"
echo "$OUT"
