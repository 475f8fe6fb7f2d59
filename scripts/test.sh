#!/usr/bin/env bash
# Every test: Python (pytest, real lab components) and the panel (vitest). Ends with the plain
# "N passed, N failed" line summed over both runners; exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
out=test-output
mkdir -p "$out"
rm -f "$out"/pytest.xml "$out"/vitest.json

.venv/bin/python -m pytest -q -p no:cacheprovider --junitxml="$out/pytest.xml" "$@"
py_rc=$?
(cd ui && npx vitest run --reporter=default --reporter=json --outputFile="../$out/vitest.json")
ui_rc=$?

.venv/bin/python - "$out" "$py_rc" "$ui_rc" <<'PY'
import json, sys, xml.etree.ElementTree as ET
from pathlib import Path
out, py_rc, ui_rc = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
passed = failed = skipped = 0
try:
    suites = ET.parse(out / "pytest.xml").getroot()
    for s in suites.iter("testsuite"):
        t, f, e, sk = (int(s.get(k, 0)) for k in ("tests", "failures", "errors", "skipped"))
        passed += t - f - e - sk; failed += f + e; skipped += sk
except (OSError, ET.ParseError):
    failed += 1  # pytest did not even write its report
    print("pytest wrote no report", file=sys.stderr)
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
line = f"{passed} passed, {failed} failed"
print(line + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed else 0)
PY
