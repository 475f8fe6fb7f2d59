"""Backends act on a system: the ZFS CLI and iproute2 on Linux (also inside lab namespaces), later the
TrueNAS API and FreeBSD. Capabilities call them through small protocols they define themselves."""
