#!/usr/bin/env bash
# Runs the SCALE app's image once with podman, as the app runs it (host network, the results volume,
# the TrueNAS API key as a read-only file at /run/secrets/truenas_api_key), and checks it answers:
# core.ping through tengig's own client with a key made inside the container, the panel at GET /,
# tengig.nic.query of this machine (host network) and of "the TrueNAS" (a stand-in TrueNAS on loopback,
# reached with the key file), a clean stop. Then removes it. `make app-image` runs it after the build.
#
# Usage: scripts/check_app_image.sh [IMAGE]   (default tengig:VERSION); PYTHON and TENGIG: the checkout's
# .venv. Binds 127.0.0.1 only (the app itself serves on 0.0.0.0).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-.venv/bin/python}
TENGIG=${TENGIG:-.venv/bin/tengig}
VERSION=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' middleware/tengig/__init__.py)
IMAGE=${1:-tengig:$VERSION}
NAME=tengig-app-check-$$
IN_IMAGE=/opt/tengig/venv/bin/tengig
# podman's default runtime crun refuses a machine with cgroup v1 controllers plus a cgroup2 mount
# ("cgroups in hybrid mode not supported"), and podman raises RLIMIT_NOFILE/NPROC past what such a
# sandbox allows (setrlimit: Operation not permitted): runc, with limits inside the machine's own.
PODMAN=(podman --runtime runc)
LIMITS=(--ulimit nofile=4096:4096 --ulimit nproc=4096:4096)

say() { printf '[app-check] %s\n' "$*"; }
die() { printf 'app-check: FAILED: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root"
command -v runc >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq runc >/dev/null
"${PODMAN[@]}" image exists "$IMAGE" || die "no image $IMAGE: run scripts/build_app_image.sh first"

work=$(mktemp -d)
standin_pid=""
cleanup() {
  "${PODMAN[@]}" rm -f -t 0 "$NAME" >/dev/null 2>&1 || true
  if [ -n "$standin_pid" ]; then kill "$standin_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
api() { TENGIG_API_KEY="$key" timeout 60 "$TENGIG" call -u "ws://127.0.0.1:$port/api/current" "$@"; }

# "The TrueNAS": tengig's stand-in (not TrueNAS) on loopback; its API key goes in a 0600 file.
PYTHONPATH=middleware "$PYTHON" -m tengig.standin.truenas --version 25.10 --port 0 >"$work/standin.out" 2>&1 &
standin_pid=$!
for _ in $(seq 60); do grep -q '^api_key: ' "$work/standin.out" && break; sleep 0.5; done
# Without the path, as the app's default (ws://127.0.0.1:6000): the client finds /api/current by itself.
truenas_url=$(sed -n 's|^url: \(ws://[^/]*\)/.*|\1|p' "$work/standin.out")
[ -n "$truenas_url" ] || die "the stand-in TrueNAS did not start: $(cat "$work/standin.out")"
install -m 600 /dev/null "$work/truenas-api-key"
sed -n 's/^api_key: //p' "$work/standin.out" >"$work/truenas-api-key"
mkdir "$work/data"

port=$(free_port)
start=$SECONDS
"${PODMAN[@]}" run -d --name "$NAME" --network host "${LIMITS[@]}" \
  -v "$work/data:/var/lib/tengig" -v "$work/truenas-api-key:/run/secrets/truenas_api_key:ro" \
  -e TENGIG_DB=/var/lib/tengig/results.sqlite3 -e TENGIG_TRUENAS_URL="$truenas_url" \
  -e TENGIG_TRUENAS_API_KEY_FILE=/run/secrets/truenas_api_key \
  "$IMAGE" "$IN_IMAGE" serve --host 127.0.0.1 --port "$port" >/dev/null
for _ in $(seq 120); do
  "${PODMAN[@]}" logs "$NAME" 2>&1 | grep -q 'tengig serving on' && break
  [ "$("${PODMAN[@]}" inspect --format '{{.State.Running}}' "$NAME")" = true ] || break
  sleep 0.5
done
"${PODMAN[@]}" logs "$NAME" 2>&1 | grep -q 'tengig serving on' || die "tengig serve did not start: $("${PODMAN[@]}" logs "$NAME" 2>&1)"
say "container up and serving in $((SECONDS - start)) s: $("${PODMAN[@]}" logs "$NAME" 2>&1 | grep 'tengig serving on')"

key=$("${PODMAN[@]}" exec "$NAME" "$IN_IMAGE" apikey create app-check 2>/dev/null)
[ -f "$work/data/apikeys.sqlite3" ] || die "the key database is not on the host volume"
say "API key made inside the container (tengig apikey create); its database is on the host volume"

health=$("${PODMAN[@]}" exec "$NAME" "$IN_IMAGE" call --timeout 5 core.ping) || die "the healthcheck command failed"
[ "$health" = pong ] || die "the healthcheck command answered $health"
say "the compose healthcheck (tengig call core.ping on the container's unix socket, as root): $health"

pong=$(api core.ping) || die "core.ping failed"
[ "$pong" = pong ] || die "core.ping answered $pong"
say "core.ping over ws://127.0.0.1:$port/api/current with that key: $pong"

panel_index=$("${PODMAN[@]}" exec "$NAME" /opt/tengig/venv/bin/python -c \
  'from tengig.panel_files import panel_dir; print(panel_dir() / "index.html")')
"$PYTHON" - "$port" "$("${PODMAN[@]}" exec "$NAME" sha256sum "$panel_index" | cut -d' ' -f1)" "$panel_index" <<'EOF' \
  || die "GET / did not serve the panel"
import hashlib, sys, urllib.request
port, want, where = sys.argv[1:4]
with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as response:
    body, kind = response.read(), response.headers.get("Content-Type", "")
got = hashlib.sha256(body).hexdigest()
assert response.status == 200 and kind.startswith("text/html") and got == want, (response.status, kind, got, want)
print(f"[app-check] GET / -> {response.status} {kind}, {len(body)} bytes: the wheel's panel, {where} (sha256 {got[:12]})")
EOF

local_nics=$(api tengig.nic.query '{"system": "local"}') || die "tengig.nic.query local failed"
truenas_nics=$(api tengig.nic.query '{"system": "truenas"}') || die "tengig.nic.query truenas failed"
TRUENAS_URL=$truenas_url "$PYTHON" - "$local_nics" "$truenas_nics" <<'EOF' || die "the NIC lists are wrong"
import json, os, sys
local, truenas = (json.loads(arg) for arg in sys.argv[1:3])
names = lambda nics: [nic["name"] for nic in nics]
host = sorted(os.listdir("/sys/class/net"))
assert set(names(local)) == set(host) - {"lo"}, (names(local), host)
assert truenas, truenas
print(f"[app-check] tengig.nic.query local (host network): {names(local)}; this machine: {host}")
print(f"[app-check] tengig.nic.query truenas (stand-in at {os.environ['TRUENAS_URL']}, key from the file): {names(truenas)}")
EOF

stop_start=$SECONDS
"${PODMAN[@]}" stop -t 15 "$NAME" >/dev/null
code=$("${PODMAN[@]}" inspect --format '{{.State.ExitCode}}' "$NAME")
"${PODMAN[@]}" logs "$NAME" 2>&1 | grep -q 'tengig stopped' || die "no clean stop (exit $code): $("${PODMAN[@]}" logs "$NAME" 2>&1 | tail -5)"
say "stopped (SIGTERM) in $((SECONDS - stop_start)) s, exit code $code; removing the container"
"${PODMAN[@]}" rm "$NAME" >/dev/null
say "image $IMAGE: $(( $("${PODMAN[@]}" image inspect --format '{{.Size}}' "$IMAGE") / 1000000 )) MB; all checks passed"
