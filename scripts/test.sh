#!/usr/bin/env bash
# Every test: Python (pytest, real lab components), the panel's unit tests (vitest) and its browser
# tests (tests/ui: pytest drives Debian's chromium through playwright-core against a real tengig
# serve, so they are in pytest's junit report). Ends with the plain "N passed, N failed" line summed
# over both runners; exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/node_env.sh
. scripts/node_env.sh  # the Node.js setup chose (the machine's, or the one it fetched)
# TENGIG_TEST_REST_WORKERS: how many pytest-xdist workers run the rest (tests/conftest.py schedules them; unset:
# 2 beside two labs, 1 beside one). Checked once the number of labs is known, below.
# TENGIG_TEST_LABS: the lab's tests split over two labs side by side (2, the default; below) or all on the
# machine's one lab (1).
labs="${TENGIG_TEST_LABS:-2}"
case "$labs" in
  1 | 2) ;;
  *) echo "TENGIG_TEST_LABS=$labs: give 2 (the lab's tests split over two labs; unset: 2) or 1 (one lab)" >&2; exit 2 ;;
esac
rest_workers="${TENGIG_TEST_REST_WORKERS:-$labs}"
case "$rest_workers" in
  [1-9] | [1-9][0-9]) ;;
  *) echo "TENGIG_TEST_REST_WORKERS=$rest_workers: give a number of workers from 1 to 99 (unset: $labs)" >&2; exit 2 ;;
esac
# Python's bytecode cache on for the tests: where the environment turns it off (PYTHONDONTWRITEBYTECODE, as
# this machine's does), each of the suite's ~500 Python processes (desktop clients, CLI calls, each stream's
# collection) compiled tengig afresh: about 0.25 CPU-s a process, 5 a collection. git ignores __pycache__.
unset PYTHONDONTWRITEBYTECODE
# Every example of the property tests (tests/depth.py; the inner loop, plain pytest, tries a quarter).
export TENGIG_TEST_DEPTH=full
# CPU priorities. Beside one lab the rest fills what the lab leaves idle (nice 10). Beside two, every stream
# competes at nice 0 but lab-1, whose verdicts sit near a boundary, at nice -5 (as root; elsewhere nice says
# it cannot and runs it at 0): a busy core (`yes`, nice 0) or the other streams take what lab-1 leaves, not
# what it needs. A stream at nice 10 beside `yes` got a tenth of a core's share: lab-2 then took 20:46 and
# its app-image test 161 s instead of 59 (run53, CONTRIBUTING.md).
rest_nice=10
lab1_nice=0
if [ "$labs" = 2 ]; then rest_nice=0; lab1_nice=-5; fi
xdist=()
if [ "$rest_workers" -gt 1 ]; then xdist=(-n "$rest_workers"); fi
out=test-output
mkdir -p "$out"
rm -f "$out"/pytest.xml "$out"/vitest.json

# The browser tests load ui/dist: rebuild it when the panel's sources are newer (make setup does too).
if [ ! -f ui/dist/index.html ] || [ -n "$(find ui/src ui/index.html ui/vite.config.ts ui/package.json -newer ui/dist/index.html 2>/dev/null | head -1)" ]; then
  (cd ui && npm run -s build >/dev/null) || echo "ui build failed: the browser tests will say so" >&2
fi

# pytest streams side by side (tests/conftest.py --stream): the lab's tests (they wait on shaped links and
# TrueNAS's timers; a lab takes its lock) and the rest (a tengig serve, real middlewared, parsers: they use
# the CPU), at rest_nice (above).
# Two labs (the default): the second in a mount namespace of its own (tests/second_lab.sh), the first keeping
# the tests whose verdicts sit near a boundary (at lab1_nice, above). About 16-19 min here instead of 26 on one
# lab.
rm -f "$out"/pytest-*.xml "$out"/pytest-*.log "$out"/cpu-*.jsonl
rm -f "$out"/*.rc "$out"/vitest.log
# Each stream's exit code goes to $out/<stream>.rc. The lab-1 (or only lab's) stream runs in the foreground and
# prints to this terminal (Ctrl-C reaches it, and its labs are taken down); the others write their logs, shown
# at the end.
stream() {  # stream NAME NICE COMMAND...: run COMMAND at NICE, its exit code in $out/NAME.rc
  local name=$1 niceness=$2
  shift 2
  nice -n "$niceness" "$@"
  echo $? >"$out/$name.rc"
}
# The panel's unit tests (vitest) once the first stream ends: a core is spare from then on (they ran after the
# rest before, alone at the end for about a minute after the labs had finished).
panel_after_the_first_stream() {
  until compgen -G "$out/*.rc" >/dev/null; do sleep 2; done
  (cd ui && nice -n 10 npx vitest run --reporter=default --reporter=json --outputFile="../$out/vitest.json") \
    >"$out/vitest.log" 2>&1
  echo $? >"$out/vitest.rc"
}
panel_after_the_first_stream &
stream rest "$rest_nice" .venv/bin/python -m pytest -q -p no:cacheprovider --durations=15 --stream rest "${xdist[@]}" \
  --cpu-report="$out/cpu-rest.jsonl" --junitxml="$out/pytest-rest.xml" "$@" >"$out/pytest-rest.log" 2>&1 &
if [ "$labs" = 2 ]; then
  stream lab-2 0 tests/second_lab.sh .venv/bin/python -m pytest -q -p no:cacheprovider --durations=20 \
    --stream lab-2 --cpu-report="$out/cpu-lab-2.jsonl" --junitxml="$out/pytest-lab-2.xml" "$@" >"$out/pytest-lab-2.log" 2>&1 &
  stream lab-1 "$lab1_nice" .venv/bin/python -m pytest -q -p no:cacheprovider --durations=30 --stream lab-1 \
    --cpu-report="$out/cpu-lab-1.jsonl" --junitxml="$out/pytest-lab-1.xml" "$@"
else
  stream lab 0 .venv/bin/python -m pytest -q -p no:cacheprovider --durations=40 --stream lab \
    --cpu-report="$out/cpu-lab.jsonl" --junitxml="$out/pytest-lab.xml" "$@"
fi
wait
rc_of() { cat "$out/$1.rc" 2>/dev/null || echo 1; }
rest_rc=$(rc_of rest)
lab2_rc=0
if [ "$labs" = 2 ]; then
  lab_rc=$(rc_of lab-1)
  lab2_rc=$(rc_of lab-2)
  echo "---- the second lab's tests (ran beside the first's; $out/pytest-lab-2.log) ----"
  cat "$out/pytest-lab-2.log"
else
  lab_rc=$(rc_of lab)
fi
echo "---- the tests that use no lab (ran beside the labs'; $out/pytest-rest.log) ----"
cat "$out/pytest-rest.log"
# pytest exits 5 when a stream has no test to run (a path or -k that selects only another stream's).
py_rc=0
for rc in "$lab_rc" "$lab2_rc" "$rest_rc"; do
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ]; then py_rc=$rc; fi
done
echo "---- the panel's unit tests (vitest, after the first stream to end; $out/vitest.log) ----"
cat "$out/vitest.log"
ui_rc=$(rc_of vitest)

.venv/bin/python - "$out" "$py_rc" "$ui_rc" "$labs" <<'PY'
import json, sys, xml.etree.ElementTree as ET
from pathlib import Path
out, py_rc, ui_rc, labs = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
passed = failed = skipped = browser = 0
for stream in ("lab-1", "lab-2", "rest") if labs == "2" else ("lab", "rest"):
    try:
        suites = ET.parse(out / f"pytest-{stream}.xml").getroot()
    except (OSError, ET.ParseError):
        failed += 1  # pytest did not even write its report
        print(f"pytest's {stream} stream wrote no report", file=sys.stderr)
        continue
    for s in suites.iter("testsuite"):
        t, f, e, sk = (int(s.get(k, 0)) for k in ("tests", "failures", "errors", "skipped"))
        passed += t - f - e - sk; failed += f + e; skipped += sk
    browser += sum(1 for case in suites.iter("testcase") if case.get("classname", "").startswith("tests.ui.")
                   and not any(child.tag in ("failure", "error", "skipped") for child in case))
try:
    doc = json.loads((out / "vitest.json").read_text())
    passed += doc["numPassedTests"]; failed += doc["numFailedTests"]
    skipped += doc.get("numPendingTests", 0) + doc.get("numTodoTests", 0)
except (OSError, ValueError, KeyError):
    failed += 1
    print("vitest wrote no report", file=sys.stderr)
if py_rc not in (0, 1) and failed == 0:
    failed += 1  # pytest crashed or was interrupted without reporting a failure
if ui_rc != 0 and failed == 0:
    failed += 1
print(f"(of the passed: {browser} browser tests of the panel, counted in pytest's report)")
line = f"{passed} passed, {failed} failed"
print(line + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed else 0)
PY
