"""NIC inventory: what each network port is (speed, duplex, MTU, driver, card/PCI slot), whether it
is in use, whether it carries the caller's session, and how often its link went down.

The model is shared by every backend (Linux sysfs + kernel log, TrueNAS `interface.query`) and by
the planners (mesh, lagg), which read it and never probe anything themselves.
"""
from .models import LinkFlap, Nic, card_of_pci_slot

__all__ = ["LinkFlap", "Nic", "card_of_pci_slot"]
