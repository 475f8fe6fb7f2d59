"""Linux bonding support: the real check on this machine, fake /sys and /lib/modules trees for the
other answers, and apply with a recording stand-in for the runner (no bond is ever made here)."""
from pathlib import Path

import pytest

from tengig.backends.linux.bond import BondSupport, BondUnsupported, apply_bond, bonding_support
from tengig.errors import CommandFailed
from tengig.lagg import plan_lagg, render

from .layouts import seed001

KERNEL = "6.1.0-test"


class RecordingRunner:
    """Stand-in for tengig.runner.Runner: records argv lists, runs nothing, fails where told."""

    def __init__(self, fail_on: list[str] | None = None):
        self.calls: list[list[str]] = []
        self.fail_on = fail_on

    def run(self, argv, *, timeout, check=True, **_):
        assert timeout > 0
        self.calls.append(list(argv))
        if list(argv) == self.fail_on and check:
            raise CommandFailed(argv, 2, "", "RTNETLINK answers: Operation not supported")


def _this_machine_has_bonding() -> bool:
    import os
    release = os.uname().release
    return any(Path(p).exists() for p in (
        "/sys/class/net/bonding_masters", "/sys/module/bonding", f"/lib/modules/{release}"))


def test_the_real_check_on_this_machine_says_no_bonding():
    if _this_machine_has_bonding():
        pytest.skip("this machine has bonding or modules installed; the fake trees below cover the answers")
    support = bonding_support()
    assert support.supported is False and support.how is None
    assert any("bonding_masters" in e for e in support.evidence)
    runner = RecordingRunner()
    with pytest.raises(BondUnsupported) as info:
        apply_bond(render(plan_lagg(seed001("linux"))), runner)
    assert info.value.message.startswith("this kernel has no bonding driver (")
    assert "nothing was changed" in info.value.message
    assert runner.calls == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


@pytest.mark.parametrize("files, how", [
    ({"sys/class/net/bonding_masters": "\n"}, "loaded"),
    ({"proc/modules": "bonding 200704 0 - Live 0x0\nixgbe 1 0 - Live 0x0\n"}, "loaded"),
    ({f"lib/modules/{KERNEL}/modules.builtin": "kernel/drivers/net/bonding/bonding.ko\n"}, "builtin"),
    ({f"lib/modules/{KERNEL}/modules.builtin": "kernel/fs/ext4/ext4.ko\n",
      f"lib/modules/{KERNEL}/modules.dep": "kernel/drivers/net/bonding/bonding.ko.zst: kernel/net/tls/tls.ko.zst\n"},
     "module"),
])
def test_fake_trees(tmp_path, files, how):
    support = bonding_support(_tree(tmp_path, files), KERNEL)
    assert (support.supported, support.how) == (True, how)


def test_modules_without_bonding(tmp_path):
    root = _tree(tmp_path, {"proc/modules": "ixgbe 1 0 - Live 0x0\n",
                            f"lib/modules/{KERNEL}/modules.builtin": "kernel/fs/ext4/ext4.ko\n",
                            f"lib/modules/{KERNEL}/modules.dep": "kernel/drivers/net/bonding_not/x.ko:\n"})
    support = bonding_support(root, KERNEL)
    assert support.supported is False
    assert support.evidence[-1] == f"/lib/modules/{KERNEL}/modules.dep does not list bonding.ko"


def test_apply_loads_the_module_then_runs_the_commands_in_order():
    rendered = render(plan_lagg(seed001("linux")))
    runner = RecordingRunner()
    done = apply_bond(rendered, runner, support=BondSupport(supported=True, how="module", kernel=KERNEL, evidence=[]))
    assert runner.calls == [["modprobe", "bonding"], *rendered.commands] == done


def test_a_failed_step_runs_the_undo_list_and_raises():
    rendered = render(plan_lagg(seed001("linux")))
    runner = RecordingRunner(fail_on=rendered.commands[2])  # enslaving the first member
    with pytest.raises(CommandFailed):
        apply_bond(rendered, runner, support=BondSupport(supported=True, how="loaded", kernel=KERNEL, evidence=[]))
    assert runner.calls == rendered.commands[:3] + rendered.undo


def test_apply_takes_only_iproute2_renderings():
    with pytest.raises(ValueError):
        apply_bond(render(plan_lagg(seed001("freebsd"))), RecordingRunner(),
                   support=BondSupport(supported=True, how="loaded", kernel=KERNEL, evidence=[]))
