"""Two small VMs with a bonding driver, joined by two shaped cables (docs/vm-lab.md).

This machine's kernel has no bonding driver; Debian's has it as a module. `VmLab.up()` boots two VMs,
"nas" and "desk", on Debian 12's kernel under qemu's software emulation (TCG), from the initramfs that
scripts/build_vm_image.sh caches. Everything lives in one network namespace of the lab's own (NETNS):
- cable N (eth0, eth1 in each VM): a tap per VM end, the two joined by tc mirred (a u32 filter matching every frame, LACPDUs
  included, which a Linux bridge would not pass), each tap's egress shaped by tbf to the cable's rate:
  both directions of every cable are shaped, so the emulated CPUs are not the limit;
- management: a tap per VM (10.99.N.1/30 here, .2 in the VM), where the VM's agent takes calls
  (guest_agent.py); nothing else reaches it, and no test traffic leaves the namespace.
The VMs mount this checkout read-only over 9p at its own path (tengig runs in them from it) and a
work directory per VM (/vmwork). A cable is pulled by telling qemu its link is down on both VMs
(the kernels see no carrier, as with a pulled cable)."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ...errors import TengigError
from ...runner import Runner
from .hosts import VmHosts

NETNS = "tgvm"
RUN_DIR = Path("/run/tengig/vm")
CABLES = 2
BOOT_TIMEOUT_S = 180
QEMU = "qemu-system-x86_64"
BUILD_SCRIPT = Path(__file__).resolve().parents[4] / "scripts" / "build_vm_image.sh"
CHECKOUT = Path(__file__).resolve().parents[4]


class VmLabError(TengigError):
    """The VM lab could not be built or booted."""


@dataclass(frozen=True)
class Vm:
    name: str
    index: int

    def mac(self, port: int | None) -> str:
        return f"52:54:00:ab:{self.index:02x}:{'ff' if port is None else f'{port:02x}'}"

    def tap(self, port: int | None) -> str:
        return f"{self.name}-{'m' if port is None else f'c{port}'}"

    @property
    def host_address(self) -> str:
        return f"10.99.{self.index}.1/30"

    @property
    def agent_address(self) -> str:
        return f"10.99.{self.index}.2"


VMS = (Vm("nas", 1), Vm("desk", 2))


def build_image(runner: Runner) -> Path:
    """The cached boot files (built once, minutes; then found at once)."""
    done = runner.run(["bash", str(BUILD_SCRIPT)], timeout=3600)
    return Path(done.stdout.strip().splitlines()[-1])


class VmLab:
    def __init__(self, image: Path, *, rate: str = "100mbit", memory_mb: int = 512, runner: Runner | None = None):
        self.image = image
        self.rate = rate
        self.memory_mb = memory_mb
        self.runner = runner or Runner()
        self.procs: dict[str, subprocess.Popen] = {}
        self.hosts = VmHosts(NETNS, {vm.name: vm.agent_address for vm in VMS}, RUN_DIR, self.runner)

    # ---- network
    def _ip(self, *args: str) -> None:
        self.runner.run(["ip", *args], netns=NETNS, timeout=10)

    def _tc(self, *args: str) -> None:
        self.runner.run(["tc", *args], netns=NETNS, timeout=10)

    def _network(self) -> None:
        self.runner.run(["ip", "netns", "add", NETNS], timeout=10)
        self._ip("link", "set", "lo", "up")
        for vm in VMS:
            for port in (None, *range(CABLES)):
                self._ip("tuntap", "add", "dev", vm.tap(port), "mode", "tap")
                self._ip("link", "set", vm.tap(port), "up")
            self._ip("addr", "add", vm.host_address, "dev", vm.tap(None))
        nas, desk = VMS
        for port in range(CABLES):
            for a, b in ((nas, desk), (desk, nas)):
                self._tc("qdisc", "add", "dev", a.tap(port), "root", "tbf", "rate", self.rate, "burst", "32kb",
                         "latency", "20ms")
                self._tc("qdisc", "add", "dev", a.tap(port), "handle", "ffff:", "ingress")
                self._tc("filter", "add", "dev", a.tap(port), "parent", "ffff:", "protocol", "all", "u32",
                         "match", "u32", "0", "0", "action", "mirred",
                         "egress", "redirect", "dev", b.tap(port))

    # ---- machines
    def qemu_argv(self, vm: Vm, work: Path) -> list[str]:
        append = (f"console=ttyS0 panic=-1 quiet tengig.src={CHECKOUT} "
                  f"tengig.mgmt={vm.agent_address}/30")
        argv = [QEMU, "-accel", "tcg", "-cpu", "max", "-m", str(self.memory_mb), "-smp", "1",
                "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
                "-kernel", str(self.image / "vmlinuz"), "-initrd", str(self.image / "initrd.gz"), "-append", append,
                "-serial", f"file:{RUN_DIR / (vm.name + '.console')}",
                "-monitor", f"unix:{RUN_DIR / (vm.name + '.monitor')},server=on,wait=off"]
        for port in (*range(CABLES), None):
            netdev = "m" if port is None else f"c{port}"
            speed = "" if port is None else f",speed={_mbit(self.rate)},duplex=full"
            argv += ["-netdev", f"tap,id={netdev},ifname={vm.tap(port)},script=no,downscript=no",
                     "-device", f"virtio-net-pci,netdev={netdev},mac={vm.mac(port)}{speed}"]
        for tag, path, ro in (("src", CHECKOUT, ",readonly=on"), ("work", work, "")):
            argv += ["-fsdev", f"local,id={tag},path={path},security_model=none{ro}",
                     "-device", f"virtio-9p-pci,fsdev={tag},mount_tag={tag}"]
        return argv

    def up(self) -> "VmLab":
        if Path("/run/netns", NETNS).exists():
            self.down()
        shutil.rmtree(RUN_DIR, ignore_errors=True)
        RUN_DIR.mkdir(parents=True)
        self._network()
        for vm in VMS:
            work = RUN_DIR / vm.name
            work.mkdir()
            self.procs[vm.name] = self.runner.spawn(self.qemu_argv(vm, work), netns=NETNS,
                                                    log_path=RUN_DIR / f"{vm.name}.qemu.log")
        deadline = time.monotonic() + BOOT_TIMEOUT_S
        for vm in VMS:
            while True:
                if self.procs[vm.name].poll() is not None:
                    raise VmLabError(f"VM {vm.name} stopped while booting: {self.console(vm.name)[-600:]}")
                if self.hosts.run(vm.name, ["true"], timeout=10, check=False).returncode == 0:
                    break
                if time.monotonic() > deadline:
                    raise VmLabError(f"VM {vm.name}'s agent did not answer within {BOOT_TIMEOUT_S} s: "
                                     f"{self.console(vm.name)[-600:]}")
                time.sleep(0.5)
        return self

    def console(self, name: str) -> str:
        try:
            return (RUN_DIR / f"{name}.console").read_text(errors="replace")
        except OSError:
            return ""

    def monitor(self, name: str, command: str) -> str:
        """One human-monitor command to VM ``name``'s qemu (e.g. set_link c0 off)."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(10)
            s.connect(str(RUN_DIR / f"{name}.monitor"))
            s.recv(4096)  # banner and prompt
            s.sendall(command.encode() + b"\n")
            time.sleep(0.2)
            return s.recv(4096).decode(errors="replace")

    def set_cable(self, port: int, up: bool) -> None:
        """Plug (up) or pull cable ``port``: both VMs' ends see the carrier come or go."""
        for vm in VMS:
            self.monitor(vm.name, f"set_link c{port} {'on' if up else 'off'}")

    def down(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self.procs.clear()
        if Path("/run/netns", NETNS).exists():
            # A VM an earlier run left (it crashed or was killed): every process in the lab's namespace is one.
            left = self.runner.run(["ip", "netns", "pids", NETNS], timeout=10, check=False).stdout.split()
            for pid in (int(p) for p in left if p.isdigit()):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            for vm in VMS:
                for port in (None, *range(CABLES)):
                    self.runner.run(["ip", "link", "del", vm.tap(port)], netns=NETNS, timeout=10, check=False)
            self.runner.run(["ip", "netns", "del", NETNS], timeout=10, check=False)


def _mbit(rate: str) -> int:
    units = {"mbit": 1, "gbit": 1000}
    for unit, factor in units.items():
        if rate.endswith(unit):
            return int(rate[: -len(unit)]) * factor
    raise ValueError(f"cable rate {rate!r}: give it in mbit or gbit")


def python_in_vm() -> list[str]:
    """How a VM runs tengig from the shared checkout: its own python3 with this checkout's virtualenv."""
    site = next((CHECKOUT / ".venv" / "lib").glob("python3.*/site-packages"), None)
    if site is None:
        raise VmLabError(f"no virtualenv in {CHECKOUT}: run `make setup`")
    return ["env", f"PYTHONPATH={CHECKOUT / 'middleware'}:{site}", "PYTHONDONTWRITEBYTECODE=1", "python3"]

