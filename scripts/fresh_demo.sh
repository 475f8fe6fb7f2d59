#!/usr/bin/env bash
# `make demo` on a fresh Debian 12 machine, measured here (issue 33): a fresh Debian 12 root (mmdebstrap
# --variant=minbase bookworm, plus make, git and ca-certificates) holding a fresh clone of this checkout's
# HEAD, entered with its own PID and mount namespaces, a fresh /proc, /run and /dev/pts, and this machine's
# /dev and /sys (its kernel, loop devices and cgroups). There `time make demo` runs whole: apt, node, .venv,
# the panel's build, then the demo. The root's lab cannot see or signal this machine's processes, but the
# network stack, loop devices and cgroups are shared: this machine's lab lock is held throughout and its lab
# is taken down first. Every line is prefixed with seconds since the start. At the end it checks that
# nothing of a lab is left (namespaces, zfs-fuse, smbd, loop devices, the lab's cgroup, mounts) and removes
# the root.
#   scripts/fresh_demo.sh [DIR]     as root; DIR (default /tmp/tengig-fresh-root) must not exist yet
# This machine's lab is taken down with $TENGIG (default .venv/bin/tengig of this checkout).
# A network that intercepts TLS needs its CA on the fresh machine too: the files in
# /usr/local/share/ca-certificates are copied in, and SSL_CERT_FILE, NODE_EXTRA_CA_CERTS, PIP_CERT and
# REQUESTS_CA_BUNDLE are passed on where set.
set -euo pipefail

PASSED_ENV=(SSL_CERT_FILE NODE_EXTRA_CA_CERTS PIP_CERT REQUESTS_CA_BUNDLE)

# PID 1 of the new PID namespace, in a private mount namespace: every mount below goes with it.
inside() {
  local root=$1 env_args=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
                          TERM=dumb LANG=C.UTF-8)
  mount --bind "$root" "$root"                    # / must be a mount point (ip netns exec: mount --make-rslave /)
  mount -t proc proc "$root/proc"                 # this PID namespace's processes only
  mount --bind /dev "$root/dev"                   # devtmpfs: /dev/fuse, /dev/net/tun, the loop devices
  mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
  mount -t tmpfs tmpfs "$root/dev/shm"
  mount --rbind /sys "$root/sys"                  # with the cgroup hierarchies
  mount -t tmpfs -o mode=755 tmpfs "$root/run"
  mkdir -m 1777 "$root/run/lock"                  # as a booted Debian has it (zfs-fuse locks in /var/lock)
  for name in "${PASSED_ENV[@]}"; do
    if [ -n "${!name:-}" ]; then env_args+=("$name=${!name}"); fi
  done
  # The one command string: fixed text, nothing from input ($ expands in the root's bash, not here).
  # shellcheck disable=SC2016
  exec chroot "$root" /usr/bin/env -i "${env_args[@]}" /bin/bash -c '
    cd /root/tengig
    TIMEFORMAT="make demo: %R s (real), %U s user, %S s sys"
    rc=0; time make demo || rc=$?
    echo "make demo exited with $rc"
    echo "root: $(.venv/bin/tengig lab down 2>&1 | tail -1)"
    echo "root: network namespaces [$(ip netns list | tr "\n" " ")], loop devices [$(losetup -n -l | tr "\n" " ")]"
    exit "$rc"'
}

stamp() {
  local t0=${EPOCHREALTIME/./} now line
  while IFS= read -r line; do
    now=${EPOCHREALTIME/./}
    printf '%6.1f %s\n' "$(( (now - t0) / 100000 ))e-1" "$line"
  done
}

if [ "${1:-}" = --inside ]; then inside "$2"; fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=$(realpath -m "${1:-/tmp/tengig-fresh-root}")
say() { printf '[fresh-demo] %s\n' "$*"; }
[ "$(id -u)" = 0 ] || { echo "fresh_demo: run as root (mmdebstrap, mounts, namespaces)" >&2; exit 1; }
command -v mmdebstrap >/dev/null || { echo "fresh_demo: mmdebstrap is missing: apt-get install mmdebstrap" >&2; exit 1; }
TENGIG=${TENGIG:-$ROOT/.venv/bin/tengig}
[ -x "$TENGIG" ] || { echo "fresh_demo: TENGIG $TENGIG is missing (make setup-base): it takes this machine's lab down" >&2; exit 1; }
[ ! -e "$DIR" ] || { echo "fresh_demo: DIR $DIR exists; give a new path (the root must be fresh)" >&2; exit 1; }

say "root: mmdebstrap minbase bookworm into $DIR (not timed)"
mmdebstrap -q --variant=minbase --include=make,git,ca-certificates bookworm "$DIR" \
  "deb http://deb.debian.org/debian bookworm main" "deb http://deb.debian.org/debian bookworm-updates main" \
  "deb http://deb.debian.org/debian-security bookworm-security main"
find /usr/local/share/ca-certificates -maxdepth 1 -name '*.crt' -exec cp -t "$DIR/usr/local/share/ca-certificates" {} +
chroot "$DIR" update-ca-certificates >/dev/null 2>&1  # its rehash warns about the bundle itself
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' > "$DIR/etc/hosts"
git clone -q "$ROOT" "$DIR/root/tengig"
say "clone: $(git -C "$DIR/root/tengig" log -1 --format='%h %s' | cut -c1-100)"

mkdir -p /run/tengig
exec {lock}>/run/tengig/lab.lock
say "waiting for this machine's lab lock (/run/tengig/lab.lock)"
flock "$lock"
say "this machine: $("$TENGIG" lab down 2>&1 | tail -1)"
say "start $(date -u +%T) UTC"
rc=0
unshare --mount --pid --fork bash "$ROOT/scripts/fresh_demo.sh" --inside "$DIR" 2>&1 | stamp || rc=$?
say "end $(date -u +%T) UTC"

left=()
mapfile -t -O "${#left[@]}" left < <(ip netns list | grep '^tg' || true)
mapfile -t -O "${#left[@]}" left < <(losetup -n -O NAME,BACK-FILE -l | grep -F "$DIR" || true)
mapfile -t -O "${#left[@]}" left < <(find /sys/fs/cgroup -mindepth 2 -maxdepth 2 -name 'tengig-lab*' 2>/dev/null || true)
mapfile -t -O "${#left[@]}" left < <(findmnt -rn -o TARGET | grep -F "$DIR" || true)
for comm in zfs-fuse smbd; do
  mapfile -t -O "${#left[@]}" left < <(pgrep -a -x "$comm" || true)
done
flock -u "$lock"
if [ "${#left[@]}" -gt 0 ]; then
  say "left on this machine (root kept in $DIR): ${left[*]}"
  exit 1
fi
say "nothing of a lab left on this machine; removing $DIR"
rm -rf --one-file-system "$DIR"
exit "$rc"
