"""Two small VMs with Debian's kernel (it has a bonding driver), for LAGG apply and verify on a real
bond: docs/vm-lab.md."""
