#!/usr/bin/env bash
# The image of tengig's SCALE app (`make app-image`), from Debian packages and PyPI only, no container
# registry: mmdebstrap makes a minimal Debian 12 root filesystem with the tools tengig measures with,
# a virtualenv in it gets the tengig wheel and its dependencies pinned by requirements.lock, and
# `podman import` turns the tree into the image tengig:VERSION. Also writes dist/app-image/
# tengig-VERSION.docker.tar for `docker load` on the NAS. As root on Debian 12 (x86_64, like the NAS).
#
# PYTHON (default .venv/bin/python) builds the wheel (with the panel: ui/dist must be built, `make setup`)
# and downloads the dependencies.
#
# Cached outside the checkout, keyed by its inputs: the image is also tagged tengig-app:KEY, KEY a hash
# of everything that goes into it (this script, the package list, requirements.lock, pyproject.toml,
# middleware/tengig and ui/dist). With that tag present and APP_IMAGE_CACHE/KEY/ holding the .docker.tar,
# nothing is rebuilt (the test that runs the image calls this script; a warm `make test` builds nothing).
# Prints the key as its last line: `key: KEY`. APP_IMAGE_CACHE: default /var/cache/tengig-app-image; the newest
# APP_IMAGE_KEEP (3) builds are kept there.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-.venv/bin/python}
SUITE=bookworm
# python3.11 as on TrueNAS 25.x; the tools tengig runs (fio, iperf3, smbclient, ip/tc, ethtool, ping, sysctl).
# Not here: zfs/zpool (contrib, and they must match the NAS's kernel module; the app reaches pools through
# middlewared) and smbd/smbstatus (the NAS's own Samba runs on the host).
# Manual pages, info, translations and documentation other than the copyright files are left out (dpkg).
IMAGE_PACKAGES=python3,python3-venv,ca-certificates,iperf3,fio,smbclient,iproute2,ethtool,iputils-ping,procps
PREFIX=/opt/tengig
VERSION=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' middleware/tengig/__init__.py)
IMAGE=tengig:$VERSION
CACHE=${APP_IMAGE_CACHE:-/var/cache/tengig-app-image}

say() { printf '[app-image] %s\n' "$*"; }
die() { printf 'app-image: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (mmdebstrap builds the tree as root, podman imports it)"
[ -n "$VERSION" ] || die "no __version__ in middleware/tengig/__init__.py"
[ -x "$PYTHON" ] || die "$PYTHON not found: run \`make setup\` (or set PYTHON to a Python 3.11 with pip)"

missing=()
for tool in mmdebstrap podman runc; do   # runc: the runtime the checks and the lab test run it with
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "apt: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

inputs_key() {
  { printf '%s\n' "$IMAGE_PACKAGES" "$VERSION"
    sha256sum scripts/build_app_image.sh requirements.lock pyproject.toml
    find middleware/tengig ui/dist -type f ! -path '*/__pycache__/*' ! -name '*.pyc' -print0 | sort -z | xargs -0 sha256sum
  } | sha256sum | cut -c1-16
}
mkdir -p "$CACHE"
exec 9>"$CACHE/.build.lock"
flock 9   # one build at a time on this machine (other checkouts, other test sessions)
KEY=$(inputs_key)
WORK=$CACHE/$KEY
ROOTFS=$WORK/rootfs
CACHED=tengig-app:$KEY
if podman image exists "$CACHED" 2>/dev/null && [ -f "$WORK/tengig-$VERSION.docker.tar" ]; then
  podman tag "$CACHED" "$IMAGE"
  say "cached: $CACHED (inputs unchanged) is $IMAGE; $WORK/tengig-$VERSION.docker.tar"
  mkdir -p dist/app-image && ln -sfn "$WORK/tengig-$VERSION.docker.tar" "dist/app-image/tengig-$VERSION.docker.tar"
  echo "key: $KEY"
  exit 0
fi

start=$SECONDS
rm -rf "$WORK"
mkdir -p "$WORK/wheels"

say "wheel: pip wheel --no-deps ."
rm -rf build  # as `make wheel`: setuptools would reuse build/lib, with modules deleted since
timeout 600 "$PYTHON" -m pip wheel -q --disable-pip-version-check --no-deps -w "$WORK/wheels" .
wheel=$(ls "$WORK"/wheels/tengig-"$VERSION"-*.whl)
"$PYTHON" -c 'import sys, zipfile; sys.exit("tengig/panel/index.html" not in zipfile.ZipFile(sys.argv[1]).namelist())' \
  "$wheel" || die "$wheel has no panel (tengig/panel/index.html)"
say "dependencies: pinned by requirements.lock, binary wheels for this machine's Python and platform"
timeout 600 "$PYTHON" -m pip download -q --disable-pip-version-check --only-binary=:all: \
  -c requirements.lock -d "$WORK/wheels" "$wheel"
cp requirements.lock "$WORK/wheels/"

say "rootfs: mmdebstrap $SUITE (minbase) with $IMAGE_PACKAGES"
timeout 1800 mmdebstrap --quiet --variant=minbase --include="$IMAGE_PACKAGES" \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --customize-hook="mkdir -p \"\$1/tmp/wheels\"" \
  --customize-hook="copy-in $WORK/wheels/. /tmp/wheels" \
  --customize-hook="chroot \"\$1\" python3 -m venv $PREFIX/venv" \
  --customize-hook="chroot \"\$1\" env -i PATH=/usr/bin:/bin $PREFIX/venv/bin/pip install -q --disable-pip-version-check --no-index \
--find-links /tmp/wheels -c /tmp/wheels/requirements.lock /tmp/wheels/$(basename "$wheel")" \
  --customize-hook="chroot \"\$1\" dpkg-query -W -f '\${Package}=\${Version}\n' >\"\$1$PREFIX/debian-packages.txt\"" \
  --customize-hook="rm -rf \"\$1/tmp/wheels\" \"\$1\"/var/cache/apt/archives/*.deb \"\$1\"/var/lib/apt/lists/*" \
  "$SUITE" "$ROOTFS" || die "mmdebstrap failed (above)"
[ -x "$ROOTFS$PREFIX/venv/bin/tengig" ] || die "the root filesystem has no $PREFIX/venv/bin/tengig"
say "in it: $(wc -l <"$ROOTFS$PREFIX/debian-packages.txt") Debian packages (listed in $PREFIX/debian-packages.txt), \
$(grep -E '^(python3.11|iperf3|fio|smbclient|iproute2|ethtool)=' "$ROOTFS$PREFIX/debian-packages.txt" | tr '\n' ' ')"

mkdir -p "$ROOTFS/var/lib/tengig" "$ROOTFS/run/tengig"

say "image: podman import -> $IMAGE"
podman rmi -f "$IMAGE" >/dev/null 2>&1 || true
tar --numeric-owner -C "$ROOTFS" -c . | podman import \
  --change "CMD [\"$PREFIX/venv/bin/tengig\", \"serve\", \"--host\", \"0.0.0.0\", \"--port\", \"8610\"]" \
  --change "ENV PATH=$PREFIX/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV LANG=C.UTF-8" \
  --change "EXPOSE 8610" \
  --message "tengig $VERSION: Debian $SUITE, $IMAGE_PACKAGES" \
  - "$IMAGE" >/dev/null
# docker (on the NAS) reads the name podman gives (localhost/tengig) literally; save it as docker's tengig.
podman tag "$IMAGE" "docker.io/library/$IMAGE"
podman save -q --format docker-archive -o "$WORK/tengig-$VERSION.docker.tar.partial" "docker.io/library/$IMAGE"
podman untag "docker.io/library/$IMAGE" "docker.io/library/$IMAGE" >/dev/null 2>&1 || true
mv "$WORK/tengig-$VERSION.docker.tar.partial" "$WORK/tengig-$VERSION.docker.tar"
podman tag "$IMAGE" "$CACHED"
mkdir -p dist/app-image && ln -sfn "$WORK/tengig-$VERSION.docker.tar" "dist/app-image/tengig-$VERSION.docker.tar"

size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
say "built $IMAGE in $((SECONDS - start)) s: $((size / 1000000)) MB ($size bytes); rootfs $(du -sh "$ROOTFS" | cut -f1)"
say "for the NAS: dist/app-image/tengig-$VERSION.docker.tar -> $WORK/tengig-$VERSION.docker.tar ($(du -h "$WORK/tengig-$VERSION.docker.tar" | cut -f1)); there: docker load -i tengig-$VERSION.docker.tar"
rm -rf "$ROOTFS" "$WORK/wheels"
# Keep the newest KEEP builds (other checkouts on this machine build other keys), drop the rest and their tags.
KEEP=${APP_IMAGE_KEEP:-3}
for old in $(find "$CACHE" -mindepth 1 -maxdepth 1 -type d -regextype posix-extended -regex '.*/[0-9a-f]{16}' \
               -printf '%T@ %f\n' | sort -rn | tail -n +$((KEEP + 1)) | cut -d' ' -f2); do
  rm -rf "${CACHE:?}/$old"
  podman rmi "tengig-app:$old" >/dev/null 2>&1 || true
  say "dropped the older build $old"
done
echo "key: $KEY"
