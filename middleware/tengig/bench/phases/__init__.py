"""The measurement phases on the NAS: the pool (fio, its presets, the ARC and the cache policy), the network
(iperf3's server end), and what an SMB copy is measured with on the NAS (its port, its share and scratch,
smbd's sessions, CPU and CPU limit) and its results."""
