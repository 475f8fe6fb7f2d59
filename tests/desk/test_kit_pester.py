"""The Windows kit run by a real PowerShell: its Pester tests (tests/desk/kit/*.Tests.ps1) under the vendored
PowerShell 7.6.9 with Pester 5.7.1 (tests/desk/pwsh.py), each Pester test reported as its own pytest case.

The kit is rendered as `tengig client kit` renders it and loaded by dot-sourcing (its functions, nothing run);
the tests call its functions with the Windows-only seam (winkit/Platform.ps1) mocked or on its Linux side.
The cases that compare it with tengig client join's own checks are written by tests/desk/kit_cases.py.
Pester finds its tests first (``-Discover``, cached by the tests' text) so pytest can name each; one run then
answers them all. Without the vendored PowerShell every case skips with one line."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tengig.desk.kit import render_kit
from tests.realmw.harness import cache_root

from .kit_cases import write_cases
from .pwsh import pwsh_env, run_pwsh, vendor_archive

HERE = Path(__file__).parent
SUITE = HERE / "kit"
TOKEN = "tgb-" + "0123456789abcdef" * 3
NAS = "ws://127.0.0.1:8610"


def _kit_script() -> str:
    return render_kit(os_name="windows", nas=NAS, token=TOKEN, share="media")


def _prepare(folder: Path, script: str | None = None) -> dict[str, str]:
    """The rendered kit and the Python side's cases in ``folder``; the environment the suite reads them from."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tengig-join.ps1").write_text(script if script is not None else _kit_script())
    write_cases(folder / "cases")
    # a German desktop's culture (a decimal comma): what the kit prints for the NAS must not follow it
    return pwsh_env(LANG="de_DE.UTF-8", TENGIG_KIT_SCRIPT=str(folder / "tengig-join.ps1"), TENGIG_KIT_CASES=str(folder / "cases"),
                    TENGIG_KIT_FIXTURES=str(HERE / "fixtures"))


def run_suite(folder: Path, *, paths: list[Path] | None = None, script: str | None = None,
              discover: bool = False, then: dict[str, tuple[list[Path], str]] | None = None) -> dict:
    """Invoke-Pester on ``paths`` (default: the whole suite) against ``script`` (default: the kit as rendered);
    its JSON: {tests: [{path, result, error}], broken: [...], failed, passed}. ``then``: more runs in the same
    PowerShell after it (one start, one Pester, the JIT warm), each (paths, script) by a name; their JSON under
    ``then`` by that name."""
    env = _prepare(folder, script)
    out = folder / ("discovered.json" if discover else "result.json")
    args = ["-File", str(SUITE / "Invoke-KitPester.ps1"), "-Out", str(out)]
    args += ["-Path", ",".join(str(p) for p in (paths or [SUITE]))]
    outs = {name: folder / f"{name}.json" for name in then or {}}
    runs = []
    for name, (run_paths, run_script) in (then or {}).items():
        (folder / f"{name}.ps1").write_text(run_script)
        runs.append({"script": str(folder / f"{name}.ps1"), "paths": [str(p) for p in run_paths],
                     "out": str(outs[name])})
    if runs:
        (folder / "then.json").write_text(json.dumps(runs))
        args += ["-Then", str(folder / "then.json")]
    done = run_pwsh([*args, *(["-Discover"] if discover else [])], env=env, timeout=600, cwd=folder)
    assert all(path.is_file() for path in (out, *outs.values())), (
        f"Pester wrote no result (exit {done.returncode}): {done.stdout[-2000:]} {done.stderr[-2000:]}")
    result = json.loads(out.read_text(encoding="utf-8-sig"))
    result["then"] = {name: json.loads(path.read_text(encoding="utf-8-sig")) for name, path in outs.items()}
    return result


def _discovered() -> list[str]:
    """The suite's test names, found by Pester (cached by the text of the suite and of the cases it reads)."""
    if vendor_archive() is None:
        return []
    digest = hashlib.sha256()
    for path in sorted(SUITE.glob("*.ps1")) + [HERE / "kit_cases.py", HERE / "replay_cases.py"]:
        digest.update(path.name.encode() + path.read_bytes())
    cached = cache_root() / "kit-pester" / f"discovered-{digest.hexdigest()[:16]}.json"
    if not cached.is_file():
        # scripts/test.sh collects its three streams at once: on a fresh machine each discovers, so each in a
        # scratch folder of its own (a shared one was removed under another's Pester), and the list is
        # written whole under its final name (a reader never sees half of it).
        cached.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix="discover-", dir=cached.parent))
        try:
            found = run_suite(scratch, discover=True)
            assert not found["broken"], found["broken"]
            names = [t["path"] for t in found["tests"]]
            assert len(names) == len(set(names)), "two Pester tests of one name: pytest could not tell them apart"
            (scratch / "names.json").write_text(json.dumps(names))
            os.replace(scratch / "names.json", cached)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return json.loads(cached.read_text())


NAMES = _discovered()


MISSPELLED = ("$outAt += $outSlice.Length", "$outAt += $outSlcie.Length")  # in Send-Submission


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """The whole suite run once against the kit as rendered, then its Protocol tests against the kit with one
    variable misspelled (MISSPELLED), in the same PowerShell."""
    script = _kit_script()
    broken = script.replace(*MISSPELLED, 1)
    assert broken != script
    return run_suite(tmp_path_factory.mktemp("kit-pester"),
                     then={"misspelled": ([SUITE / "Protocol.Tests.ps1"], broken)})


@pytest.fixture(scope="module")
def suite(runs) -> dict[str, dict]:
    """Each test's outcome by name, in the whole suite's run."""
    assert not runs["broken"], "a Pester file did not load:\n" + "\n".join(b["error"] for b in runs["broken"])
    return {t["path"]: t for t in runs["tests"]}


@pytest.mark.skipif(not NAMES, reason="the vendored PowerShell is not here (set TENGIG_VENDOR_DIR to the vendor directory)")
@pytest.mark.parametrize("name", NAMES or ["-"])
def test_kit_under_pester(suite, name):
    outcome = suite.get(name)
    assert outcome is not None, f"Pester did not run {name!r} (the suite changed since it was discovered?)"
    if outcome["result"] == "Skipped":
        pytest.skip(outcome["error"] or "skipped by Pester")
    assert outcome["result"] == "Passed", outcome["error"]


@pytest.mark.skipif(not NAMES, reason="the vendored PowerShell is not here (set TENGIG_VENDOR_DIR to the vendor directory)")
def test_a_kit_with_one_misspelled_variable_fails_its_pester_tests(runs, suite):
    """The suite runs the kit under its own Set-StrictMode -Version 2.0: one misspelled variable in a function
    the tests call (Send-Submission) fails them, naming the variable; the kit as rendered passed the same tests
    in the whole suite's run."""
    found = runs["then"]["misspelled"]
    failed = [t for t in found["tests"] if t["result"] == "Failed"]
    assert failed and found["failed"] == len(failed)
    assert all("outSlcie" in t["error"] and "has not been set" in t["error"] for t in failed), failed
    assert {t["path"].split(" / ")[0] for t in failed} == {"a submission"}
    sound = [suite.get(t["path"]) for t in found["tests"]]
    assert all(outcome is not None and outcome["result"] == "Passed" for outcome in sound), sound
