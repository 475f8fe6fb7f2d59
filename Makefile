# tengig: two commands on a fresh Debian 12 machine, as root:
#   make demo   set up what the demo runs, then run the main flow on the embedded lab
#   make test   set up everything, then run every test (Python and panel) and print "N passed, N failed"
# make fast: the inner loop (no lab, real middlewared, browser or VM), on every core
# make bench: tengig's own fidelity against the raw tools, how often a fix's prediction holds, and the API's
#   core.ping calls/s (not tests)
# make fresh-demo: `make demo` timed whole on a fresh Debian 12 root (mmdebstrap) with a fresh clone of HEAD, in
#   its own PID and mount namespaces (scripts/fresh_demo.sh; holds the lab lock, needs mmdebstrap)
# make wheel: dist/tengig-<version>-py3-none-any.whl, the panel inside (to install tengig elsewhere with pip)
# make ui-fixtures: re-record the panel's lab fixtures (ui/src/fixtures/*-lab.json) from real lab runs
# make parser-fixtures: re-record the Linux tools' output the parsers are tested on (tests/fixtures/{ip,ethtool,ping,kernel-log}),
#   in two private network namespaces of its own (not the lab)
# make results-fixture: re-record tests/fixtures/results/lab-runs.sqlite3 (two `tengig bench all` runs on the lab with
#   desk and lab joined; takes the lab lock, needs root) for the `tengig results` tests
# make iocage-artifact: the TrueNAS CORE jail plugin in dist/iocage (tengig.json and artifact/ with the
#   tengig wheel), to copy to the NAS as IOCAGE_DIR (default /mnt/tank/tengig-iocage); plugin/iocage/README.md
# make app-image: the SCALE app's image tengig:VERSION (mmdebstrap + podman import) and
#   dist/app-image/tengig-<version>.docker.tar (cached in /var/cache/tengig-app-image by a hash of its inputs: an
#   unchanged tree builds nothing), then run once with podman and checked (not a test); plugin/app/README.md
.PHONY: setup setup-base demo fresh-demo test fast bench clean-lab ui-fixtures parser-fixtures results-fixture wheel iocage-artifact app-image

# Setup by need (scripts/setup.sh): the demo and the targets that run the lab, the wheel or the panel need
# only the base part; the tests and `make bench` also need chromium, shellcheck, Mono, strace, smbnetfs,
# qemu and the VM lab's image (the full setup).
setup:
	@bash scripts/setup.sh full

setup-base:
	@bash scripts/setup.sh base

# The lab is one per machine: the demo waits for anyone else using it (tests, another demo).
demo: setup-base
	@mkdir -p /run/tengig && flock /run/tengig/lab.lock .venv/bin/tengig demo

fresh-demo: setup-base
	@bash scripts/fresh_demo.sh

# The SCALE app's image the lab test runs (tests/lab/test_app_image_lab.py) is built first, outside the tests:
# cached by a hash of its inputs, rebuilt only when tengig changed (about 1-2 minutes), found in a second else.
test: setup
	@echo "[test] app image: $$(bash scripts/build_app_image.sh 2>&1 | tail -1)"
	@bash scripts/test.sh

# The inner loop: every test that needs no lab, real middlewared, browser or VM, two workers per core
# (pytest-xdist, one file per worker at a time: many tests wait on a subprocess, so one per core leaves it
# idle). Its set is the marker expression below; CONTRIBUTING.md says more. Python's bytecode cache on, as in
# scripts/test.sh (an environment that sets PYTHONDONTWRITEBYTECODE compiles tengig in every process).
fast: setup
	@env -u PYTHONDONTWRITEBYTECODE .venv/bin/python -m pytest -q -p no:cacheprovider -n $$(( 2 * $$(nproc) )) --dist loadfile -m "not lab and not realmw and not browser and not vm"

bench: setup
	@.venv/bin/python scripts/bench_joined.py
	@.venv/bin/python scripts/bench_joined.py --link desk-nas=10g --paired 16 --pool-in-memory
	@.venv/bin/python scripts/bench_fix_predictions.py
	@.venv/bin/python scripts/bench_mounted.py
	@.venv/bin/python scripts/bench_own_disk.py
	@.venv/bin/python scripts/bench_smallfiles.py
	@mkdir -p /run/tengig && flock /run/tengig/lab.lock .venv/bin/python scripts/bench_full.py
	@.venv/bin/python scripts/bench_api_ping.py
	@.venv/bin/python scripts/bench_planner.py
	@.venv/bin/python scripts/bench_arc.py
	@mkdir -p /run/tengig && flock /run/tengig/lab.lock .venv/bin/python scripts/bench_vm_bond.py

parser-fixtures: setup-base
	@PYTHONPATH=middleware .venv/bin/python scripts/record_parser_fixtures.py

results-fixture: setup-base
	@PYTHONPATH=middleware .venv/bin/python scripts/record_results_fixture.py

# setuptools reuses build/ between builds: a module deleted since would end up in the wheel, so start clean.
wheel: setup-base
	@rm -rf build dist/tengig-*.whl
	@.venv/bin/pip wheel -q --no-deps --disable-pip-version-check -w dist .
	@ls dist/tengig-*-py3-none-any.whl

IOCAGE_DIR ?= /mnt/tank/tengig-iocage
iocage-artifact: setup-base
	@.venv/bin/python scripts/iocage_artifact.py --out dist/iocage --nas-dir "$(IOCAGE_DIR)"

app-image: setup-base
	@bash scripts/build_app_image.sh
	@bash scripts/check_app_image.sh

ui-fixtures: setup-base
	@mkdir -p /run/tengig && flock /run/tengig/lab.lock .venv/bin/python scripts/record_ui_fixtures.py

clean-lab: setup-base
	@.venv/bin/tengig lab down
	@tests/second_lab.sh .venv/bin/tengig lab down  # the suite's second lab (CONTRIBUTING.md), if one was left
