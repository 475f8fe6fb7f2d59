#!/bin/sh
# /init of the bonding lab's VMs (docs/vm-lab.md), PID 1 in the initramfs scripts/build_vm_image.sh makes.
# From the kernel command line: tengig.src=PATH (this checkout, shared read-only over 9p as "src", mounted
# at the same path so its virtualenv works) and tengig.mgmt=ADDRESS/PREFIX (the port the host's agent
# calls arrive on). Ports are named by MAC 52:54:00:ab:VM:N: N=ff is "mgmt", else ethN (a cable).
# Then the agent (guest_agent.py from the shared tree) runs as PID 1's only child; when it ends, the VM
# powers off (panic=-1 with qemu -no-reboot).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /run /tmp
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
read -r cmdline </proc/cmdline
for arg in $cmdline; do
  case "$arg" in
    tengig.src=*) SRC=${arg#tengig.src=} ;;
    tengig.mgmt=*) MGMT=${arg#tengig.mgmt=} ;;
  esac
done
for mod in virtio_pci virtio_net 9pnet_virtio 9p; do modprobe "$mod"; done
i=0
for dev in /sys/class/net/*; do
  name=${dev##*/}
  [ "$name" = lo ] && continue
  ip link set dev "$name" name "tmp$i"
  i=$((i + 1))
done
for dev in /sys/class/net/tmp*; do
  mac=$(cat "$dev/address")
  case "$mac" in
    52:54:00:ab:*:ff) ip link set dev "${dev##*/}" name mgmt ;;
    52:54:00:ab:*) ip link set dev "${dev##*/}" name "eth$((0x${mac##*:}))" ;;
  esac
done
ip link set lo up
ip link set mgmt up
ip addr add "$MGMT" dev mgmt
for dev in /sys/class/net/eth*; do ip link set dev "${dev##*/}" up; done
mkdir -p "$SRC" /vmwork
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose src "$SRC"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 work /vmwork
echo "tengig-vm: up $(cat /proc/uptime)" >/dev/console
exec python3 "$SRC/middleware/tengig/lab/vm/guest_agent.py" "${MGMT%/*}" 7000
