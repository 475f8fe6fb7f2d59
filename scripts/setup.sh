#!/usr/bin/env bash
# Setup for a Debian 12 machine, as root, in two parts, each idempotent (a re-run checks and skips in
# about a second):
#   scripts/setup.sh base   what `make demo` runs: the Debian packages of the lab and the benchmarks,
#                           the Python virtualenv (.venv, pinned by requirements.lock) and the panel
#                           (npm ci from ui/package-lock.json, then a build: the demo serves it)
#   scripts/setup.sh full   base, then what only the tests and `make bench` run: chromium, shellcheck,
#                           Mono's C# compiler, strace, smbnetfs, qemu and the VM lab's boot files
#                           (scripts/build_vm_image.sh). `make test`, `make bench` and `make setup` run this.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# What `tengig demo` runs: the lab (namespaces and shaped cables, a zfs-fuse pool on loop devices, a
# private smbd and its user), tengig's benchmarks on it (fio, iperf3, smbclient, ethtool, ping, ps) and
# the Python it runs on.
BASE_PACKAGES=(
  fio iperf3 samba smbclient zfs-fuse                 # the tools tengig measures with and the lab runs
  iproute2 iputils-ping ethtool procps util-linux passwd kmod   # ip/tc, ping, ps, losetup/nsenter/flock, useradd, modprobe
  python3 python3-venv                               # the virtualenv (if no other Python 3.11 is present)
)
# What only the tests and `make bench` run (each names where).
TEST_PACKAGES=(
  strace                                             # which programs the NAS's tengig ran (tests/bench/joined_harness.py)
  smbnetfs                                           # a desktop's mounted share (tests/bench/test_mounted_share_lab.py, make bench)
  chromium fonts-dejavu-core                         # browser tests of the panel (tests/ui)
  shellcheck                                         # lints every shell script (tests/test_shellcheck.py)
  mono-mcs                                           # compiles and runs the Windows kit's C# (tests/desk/test_kit_csharp_mono.py)
  libicu72 libssl3                                   # the vendored PowerShell the Windows kit's tests run (tests/desk/pwsh.py)
  qemu-system-x86 mmdebstrap cpio                    # the VM lab with a bonding driver (docs/vm-lab.md)
  iptables                                           # a lossy path in the lab (tests/bench/test_lossy_path_lab.py)
  psmisc time                                        # no test calls them: fuser, killall, time for a lab debugged by hand
)

say() { printf '[setup] %s\n' "$*"; }

case "${1:-full}" in
  base) packages=("${BASE_PACKAGES[@]}"); full=0 ;;
  full) packages=("${BASE_PACKAGES[@]}" "${TEST_PACKAGES[@]}"); full=1 ;;
  *) echo "setup: usage: scripts/setup.sh [base|full] (base: what make demo runs; full: the tests too)" >&2; exit 2 ;;
esac

if [ "$(id -u)" != 0 ]; then
  echo "setup: run as root (the lab needs network namespaces, mounts and cgroups)" >&2
  exit 1
fi

# One apt transaction for every missing package of the part asked for.
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "apt: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt_install() { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
  apt_install || { say "apt failed once (a shared machine can lose a .deb in /tmp); retrying"; sleep 3; apt_install; }
fi
# Debian's samba package may start its own daemons where systemd runs; tengig uses private ones.
for svc in smbd nmbd samba-ad-dc; do
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now "$svc" >/dev/null 2>&1 || true; fi
done

# Python 3.11 (TrueNAS SCALE's version): Debian's own first (SCALE runs Debian's build), else the first
# python3.11 on PATH. Debian's is built with profile-guided optimisation: a pyenv-built 3.11 (plain
# ./configure) ran the same Python loop 25% slower here (4.09 against 3.04 CPU-s), in every test process.
PY=""
for cand in "${PYTHON:-}" /usr/bin/python3.11 python3.11 python3 /usr/bin/python3; do
  if [ -z "$cand" ] || ! command -v "$cand" >/dev/null 2>&1; then continue; fi
  if "$cand" -c 'import sys, venv; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then PY=$cand; break; fi
done
[ -n "$PY" ] || { echo "setup: no Python 3.11 with venv found" >&2; exit 1; }

# The panel, in the base part: the demo ends by serving it. It needs Node.js >= 20.19 (vite 8); Debian 12's
# own is 18.20, so where the node on PATH is older or missing, a pinned one comes from the npm registry
# (scripts/fetch_node.py, into /opt/tengig) and scripts/node_env.sh puts it first on PATH for tengig's scripts.
# shellcheck source=scripts/node_env.sh
. scripts/node_env.sh
if ! node_is_new_enough; then
  say "node: $(node --version 2>/dev/null || echo none) found, the panel needs >= 20.19: $("$PY" scripts/fetch_node.py "$TENGIG_NODE_DIR")"
  . scripts/node_env.sh
fi

PIP_VERSION=23.2.1  # the virtualenv's pip (setup_python)

stamp() { cat "$@" | sha256sum | cut -d' ' -f1; }

# The whole lock, test packages included: pure-Python wheels, a few seconds, and one .venv for every target.
setup_python() {
  local want interpreter
  interpreter=$("$PY" -c 'import os, sys; print(os.path.realpath(sys.executable))')  # through pyenv's shims
  want=$(stamp requirements.lock pyproject.toml <(echo "$interpreter"))
  if [ ! -x .venv/bin/python ] || [ "$(cat .venv/.tengig-stamp 2>/dev/null)" != "$want" ]; then
    say "python: virtualenv .venv from requirements.lock ($($PY --version), $interpreter)"
    # another interpreter's .venv (an earlier setup chose another Python) is made again
    if [ "$(readlink -f .venv/bin/python 2>/dev/null)" != "$interpreter" ]; then rm -rf .venv; fi
    [ -x .venv/bin/python ] || "$PY" -m venv .venv
    # pip itself pinned: each Python bundles its own (Debian's 3.11 pip 23.0.1, which cannot build the CORE
    # jail's sdists without the wheel package; scripts/iocage_artifact.py)
    .venv/bin/pip install -q --disable-pip-version-check "pip==$PIP_VERSION"
    .venv/bin/pip install -q --disable-pip-version-check -r requirements.lock
    .venv/bin/pip install -q --disable-pip-version-check --no-deps -e .
    echo "$want" > .venv/.tengig-stamp
  fi
}

# Its node modules are the build's (vite, vue-tsc) as well as the tests' (vitest, playwright-core), one lock.
setup_panel() {
  local want
  want=$(stamp ui/package-lock.json ui/package.json)
  if [ ! -d ui/node_modules ] || [ "$(cat ui/node_modules/.tengig-stamp 2>/dev/null)" != "$want" ]; then
    say "ui: npm ci (package-lock.json)"
    (cd ui && npm ci --no-audit --no-fund --no-update-notifier --loglevel=error)
    echo "$want" > ui/node_modules/.tengig-stamp
  fi
  if [ ! -f ui/dist/index.html ] || [ -n "$(find ui/src ui/index.html ui/vite.config.ts ui/package.json -newer ui/dist/index.html 2>/dev/null | head -1)" ]; then
    say "ui: build"
    (cd ui && npm run -s build >/dev/null)
  fi
}

# The VM lab's boot files (Debian's kernel and an initramfs root), cached outside the checkout: built once
# (about 2-3 minutes, from Debian's mirror), found in a second afterwards.
setup_vm_image() {
  say "vm lab: $(bash scripts/build_vm_image.sh)"
}

# The parts share nothing, and each mostly waits on the network or one core: they run side by side (a fresh
# .venv and panel on a busy 2-core machine: 79 s side by side, 96 s one after the other).
# Each runs in a subshell of its own (set -e holds there) and all are waited for, so none is left running.
pids=()
setup_python & pids+=($!)
setup_panel & pids+=($!)
if [ "$full" = 1 ]; then setup_vm_image & pids+=($!); fi
rc=0
for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
[ "$rc" = 0 ] || { echo "setup: a part failed (its error is above); re-run to finish it" >&2; exit "$rc"; }
say "ready: ${1:-full} ($ROOT)"
