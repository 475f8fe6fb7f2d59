"""Benchmarks: pool (fio), network (iperf3), SMB (smbclient, fio over a mount). Parsers are pure."""
