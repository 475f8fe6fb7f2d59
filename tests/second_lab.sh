#!/usr/bin/env bash
# Run a command on the machine's second lab (TENGIG_LAB_INSTANCE=2), beside the first.
#
# The second lab keeps the first's names (tg-nas, tgtank, eth-desk ...), so it lives in a mount namespace of
# its own, where these are fresh and private:
#   /run/netns and /etc/netns   its hosts' network namespaces and hosts files;
#   /run/zfs, /run/lock/zfs     its zfs-fuse daemon's socket and lock (zfs-fuse has no option for them);
#   /var/lib/zfs                zfs-fuse's pool cache.
# Its own directories (/run/tengig/lab-2, /var/lib/tengig/lab-2), lock (/run/tengig/lab-2.lock), blkio
# cgroup (tengig-lab-2) and process marker (TENGIG_LAB=2) tell it apart from the first on the shared machine.
# When the command ends the namespace goes, and with it every mount and network namespace made inside.
#   tests/second_lab.sh .venv/bin/python -m pytest --stream lab-2 ...
set -euo pipefail
if [ "${1:-}" != "--inside" ]; then
  # zfs-fuse mounts its kstat at /zfs-kstat (no option moves it) and removes that directory when it stops:
  # removing a directory takes every other mount namespace's mount on it too, so the first lab's daemon
  # stopping would take the second's kstat, and the other way round. Made immutable, it stays for both.
  mkdir -p /zfs-kstat
  chattr +i /zfs-kstat
  exec unshare --mount --propagation private -- "$0" --inside "$@"
fi
shift
# The first lab's FUSE mounts, copied into this namespace when it was made (its pool's datasets, zfs-fuse's
# /zfs-kstat, smbnetfs): zfs's tools find a dataset's mount by its name in /proc/self/mounts, and both pools are
# called tgtank, so a copy left here would take the second pool's mounts. Unmounting a copy leaves the first's.
awk '$3 ~ /^fuse/ {print $2}' /proc/self/mounts | sort -r | while read -r target; do
  umount -l "$target"
done
for dir in /run/netns /etc/netns /run/zfs /run/lock/zfs /var/lib/zfs; do  # tengig/lab/instance.py OWN_MOUNTS
  mkdir -p "$dir"
  mount -t tmpfs -o mode=0755,size=16m tengig-lab-2 "$dir"
done
export TENGIG_LAB_INSTANCE=2
exec "$@"
