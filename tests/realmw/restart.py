"""Restart one test TrueNAS's middlewared, as ``systemctl restart middlewared`` does on SCALE:
stop the running one (its whole session: middlewared's process pool goes with it), then start
launch.py again in a new session with its output appended to the log. Returns once started.

    python restart.py ROOT          (ROOT/launch.json holds argv, env and log; see harness.py)
"""
import json
import subprocess
import sys
from pathlib import Path

from session_stop import stop_session  # this directory's (the script's own directory is on sys.path)


def main() -> None:
    root = Path(sys.argv[1])
    spec = json.loads((root / "launch.json").read_text())
    run_dir = root / "run"
    pid_file = run_dir / "middlewared.pid"
    if pid_file.exists():
        try:
            stop_session(int(pid_file.read_text()))
        except (ValueError, FileNotFoundError):  # no middlewared, or it is going away by itself
            pass
    for name in ("middlewared.sock", "middlewared-internal.sock", "middlewared-started"):
        (run_dir / name).unlink(missing_ok=True)
    run_dir.mkdir(parents=True, exist_ok=True)
    with open(spec["log"], "ab") as log:
        proc = subprocess.Popen(spec["argv"], env=spec["env"], stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    pid_file.write_text(f"{proc.pid}\n")


if __name__ == "__main__":
    main()
