"""What one desktop's answer to one instruction may hold on the NAS: its stdout, stderr and argv together, in
UTF-8 (the join session refuses more, bench/join/session.py; the small-file plan sizes its counts by it)."""
from __future__ import annotations

MAX_OUTPUT_BYTES = 1024 * 1024
