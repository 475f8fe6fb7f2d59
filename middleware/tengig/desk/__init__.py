"""The desktop's side of a benchmark run: join the NAS's run over its API and measure what only the
desktop can (iperf3 to the NAS, a copy through its own SMB client)."""
