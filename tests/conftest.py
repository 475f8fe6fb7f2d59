"""Shared fixtures. Lab tests need root and the lab's tools (make setup installs them); they use
the one lab a machine can have (zfs-fuse is one daemon), so they clean up any earlier lab first."""
from __future__ import annotations

import os
from contextlib import contextmanager

import pytest

from tengig.lab import Lab, build_spec
from tengig.lab import residue
from tengig.lab.instance import instance

from . import cpu_cost
from .lab_lock import lab_lock

# One lab for the module-scoped tests: both shaped speeds the ceilings are asserted on.
SHAPED_LINKS = ["desk-nas=1g", "lab-nas=100m", "desk-lab=10g"]


# Markers, not folders, decide (pyproject.toml lists them): `lab` puts a test in the lab's stream and makes the
# session wait for the lab lock; realmw, browser and vm name the other slow kinds, for the fast inner loop:
#   pytest -m "not lab and not realmw and not browser and not vm"
SLOW_KINDS = ("lab", "realmw", "browser", "vm")


def uses_lab(item) -> bool:
    """A test marked ``lab`` (on itself, its class or its module)."""
    return item.get_closest_marker("lab") is not None


_RUNNING: dict[str, object] = {}  # the test being set up or run, for the guard below


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _RUNNING["item"] = item


@contextmanager
def _only_in_marked_tests(owner: type, method: str, marker: str, does: str, why: str):
    """``owner.method`` run by a test not marked ``marker`` fails that test at once, saying it ``does`` that
    and naming the marker to add (``why``: what the marker keeps apart)."""
    original = getattr(owner, method)

    def guarded(self, *args, **kwargs):
        item = _RUNNING.get("item")
        if item is not None and item.get_closest_marker(marker) is None:
            pytest.fail(f"{item.nodeid} {does} but is not marked {marker}: add "
                        f"`pytestmark = pytest.mark.{marker}` ({why})")
        return original(self, *args, **kwargs)

    setattr(owner, method, guarded)
    try:
        yield
    finally:
        setattr(owner, method, original)


@pytest.fixture(scope="session", autouse=True)
def lab_only_in_lab_tests():
    """A test that brings a lab up without the ``lab`` marker would run beside the lab's stream and fight
    it for the one lab: it fails at once, naming the marker to add."""
    with _only_in_marked_tests(Lab, "up", "lab", "brings the lab up", "the lab stream waits for the machine's one lab"):
        yield


@pytest.fixture(scope="session", autouse=True)
def middlewared_only_in_realmw_tests():
    """A test that starts TrueNAS's real middlewared without the ``realmw`` marker would slip into the fast
    inner loop (`make fast`) and cost it a middlewared start: it fails at once, naming the marker to add."""
    from .realmw.harness import MiddlewaredSystem

    with _only_in_marked_tests(MiddlewaredSystem, "start", "realmw", "starts TrueNAS's middlewared",
                               "the fast loop leaves middlewared out"):
        yield


# The lab's tests split over two labs side by side (scripts/test.sh): these modules run on the second
# (tests/second_lab.sh, at a lower CPU priority), every other lab module on the first. They wait on TrueNAS's
# timers, browsers and apply/verify steps rather than measure a rate against a knife-edge; the modules whose
# verdicts sit near a boundary (the fixes, the joined runs, the VM's bond) stay on the first.
SECOND_LAB_MODULES = frozenset({
    "tests/realmw/test_join_through_middlewared.py",
    "tests/realmw/test_network_in_middlewared.py",
    "tests/realmw/test_network_in_middlewared_2504.py",
    "tests/lab/test_mesh_lab.py",
    "tests/lab/test_mesh_truenas_lab.py",
    "tests/lab/test_lagg_verify_lab.py",
    "tests/lab/test_lagg_measure_lab.py",
    "tests/lab/test_lab_lifecycle.py",
    "tests/lab/test_network_bench.py",
    "tests/ui/test_panel_mesh_apply.py",
    "tests/ui/test_panel_lagg_lab.py",
    "tests/ui/test_panel_lab.py",
    "tests/ui/test_panel_join_lab.py",
    "tests/desk/test_kit_lab.py",
    "tests/bench/test_mounted_share_lab.py",
    "tests/bench/test_bench_failures.py",
    "tests/bench/test_nas_restart_lab.py",
    "tests/bench/test_bench_join_command.py",
    # Their checks are relative or one-sided (a slowed member waits longer, retransmits seen, a write under its
    # line's rate), so a starved second lab cannot turn them; they even the two labs' times out.
    "tests/lab/test_app_image_lab.py",
    "tests/lab/test_lab_shaped.py",
    "tests/bench/test_local_system.py",
    "tests/bench/test_remote_text_lab.py",
    "tests/bench/test_lossy_path_lab.py",
    "tests/bench/test_scaling_lab.py",
    "tests/bench/test_smallfiles_lab.py",
    "tests/bench/test_suite_lab.py",
    "tests/client/test_bench_over_api_lab.py",
})
STREAMS = ("all", "lab", "lab-1", "lab-2", "rest")


def pytest_addoption(parser):
    parser.addoption(
        "--stream", choices=STREAMS, default="all",
        help="run only the tests that use the lab (lab), only those that do not (rest), or both (all); lab-1 and "
             "lab-2 split the lab's tests over two labs (lab-2 runs inside tests/second_lab.sh). "
             "scripts/test.sh runs lab-1, lab-2 and rest side by side: the lab's tests wait on shaped links "
             "and TrueNAS's timers while the rest use the CPU.")
    cpu_cost.add_option(parser)


def in_stream(item, stream: str) -> bool:
    """Whether ``item`` runs in ``stream`` (see --stream)."""
    if stream == "all":
        return True
    if not uses_lab(item):
        return stream == "rest"
    if stream in ("lab", "rest"):
        return stream == "lab"
    second = item.nodeid.split("::", 1)[0] in SECOND_LAB_MODULES
    return second == (stream == "lab-2")


def pytest_configure(config):
    cpu_cost.configure(config)
    stream = config.getoption("--stream", "all")
    if stream == "lab-2" and instance() == "1":
        raise pytest.UsageError("--stream lab-2 runs on the second lab: run it through tests/second_lab.sh")


def xdist_unit_of(nodeid: str) -> str:
    """The rest's stream on pytest-xdist workers (TENGIG_TEST_REST_WORKERS, scripts/test.sh): each module is
    one unit of work, and the real-middlewared modules are one unit together (they share one TrueNAS per
    version, tests/realmw/conftest.py, which a second worker would start again)."""
    module = nodeid.split("::", 1)[0]
    return "realmw" if module.startswith("tests/realmw/") else module


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """xdist's --dist loadgroup cannot group under pytest 9 (it renames nodeids through an attribute pytest
    no longer reads), so the rest's stream schedules its units itself; any other run keeps xdist's own."""
    if config.getoption("--stream") != "rest":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModulesWithRealmwTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_unit_of(nodeid)

    return ModulesWithRealmwTogether(config, log)


def realmw_first(items: list) -> list:
    """The real-middlewared unit is the rest's longest: it goes first, so a worker starts on it at once."""
    return ([i for i in items if xdist_unit_of(i.nodeid) == "realmw"]
            + [i for i in items if xdist_unit_of(i.nodeid) != "realmw"])


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    stream = config.getoption("--stream")
    if stream != "all":
        keep = [item for item in items if in_stream(item, stream)]
        dropped = [item for item in items if not in_stream(item, stream)]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep
    items[:] = shaped_lab_modules_first(items)
    if stream == "rest":
        items[:] = realmw_first(items)


def shaped_lab_modules_first(items: list) -> list:
    """The modules that use the shaped lab run one after the other, so one lab serves them all (shaped_lab
    leaves it up for the next module); every other module keeps its place after them, in order."""
    def module(item):
        return item.nodeid.split("::", 1)[0]
    shaped = {module(item) for item in items if "shaped_lab" in getattr(item, "fixturenames", ())}
    return [i for i in items if module(i) in shaped] + [i for i in items if module(i) not in shaped]


@pytest.fixture(scope="session", autouse=True)
def one_lab_user_at_a_time(request):
    """Two runs using the lab on one machine would fight over it: the second waits for the first.
    Runs that touch no lab (tests/mesh, tests/api ...) do not wait. `flock /run/tengig/lab.lock CMD`
    takes the same lock from a shell (a demo, a browser test run by hand)."""
    if not any(uses_lab(item) for item in request.session.items):
        yield
        return
    with lab_lock():
        yield


@pytest.fixture
def api():
    """tengig's methods in-process (tests/inprocess.py), acting through the real seams."""
    from .inprocess import InProcessApi

    host = InProcessApi()
    yield host
    host.close()


@pytest.fixture
def api_with():
    """``api_with(seams)``: tengig's methods in-process acting through a test's own seams
    (tengig.systems.seams.Seams), for one test; closed at its end."""
    from .inprocess import InProcessApi

    hosts = []

    def build(seams):
        hosts.append(InProcessApi(seams))
        return hosts[-1]
    yield build
    for host in hosts:
        host.close()


def _require_root():
    if os.geteuid() != 0:
        pytest.fail("lab tests need root (run `make test` as root)")


@pytest.fixture
def clean_machine():
    """No lab before the test, and none after it (the test fails if it leaves residue)."""
    _require_root()
    lab = Lab()
    lab.down()
    yield lab
    left = residue.scan(lab.runner, lab.paths)
    lab.down()
    assert left.empty(), f"test left residue behind: {left.describe()}"


_SHAPED = {"left_up": False}  # the previous module's shaped lab, left up for the next one


@pytest.fixture(scope="module")
def shaped_lab(request):
    """The shaped lab (SHAPED_LINKS). Consecutive modules that use it share one: a module whose tests all
    passed leaves it up, and the next one takes it if it is still up with that spec (another fixture in
    between takes it down); after a failure it is taken down, and the session's end takes it down. A
    module that changes it puts it back (tests/bench/test_live_facts_lab.py)."""
    _require_root()
    failed_before = request.session.testsfailed
    lab = Lab()
    state = lab.state()
    wanted = build_spec(SHAPED_LINKS)
    if not (_SHAPED["left_up"] and state is not None and state.phase == "up" and state.spec == wanted):
        lab.down()
        lab.up(wanted)
    _SHAPED["left_up"] = False
    yield lab
    if request.session.testsfailed == failed_before:
        _SHAPED["left_up"] = True
    else:
        lab.down()


BARE_LINKS = ["desk-nas=1g", "lab-nas=100m", "desk-lab=1g"]


@pytest.fixture(scope="module")
def bare_lab():
    """The lab with cables and no addresses (BARE_LINKS): what a mesh apply starts from; down afterwards."""
    lab = Lab()
    lab.down()
    lab.up(build_spec(BARE_LINKS, bare=True))
    yield lab
    lab.down()


@pytest.fixture(scope="session", autouse=True)
def lab_down_at_the_end():
    yield
    if _SHAPED["left_up"] and os.geteuid() == 0:
        Lab().down()


@pytest.fixture(scope="session", autouse=True)
def shared_truenas_systems_stop_at_the_end():
    """The real-middlewared TrueNAS systems tests share (tests/realmw/conftest.py) end with the session."""
    yield
    from .realmw.conftest import stop_shared_systems

    stop_shared_systems()
