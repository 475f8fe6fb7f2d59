"""make bench: how long the mesh planner takes for a 64-host full mesh (2,016 cables), best of 5,
beside the 3-host plan in the same run (a ratio, not a bound: the machine may be busy)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.mesh.layouts
from tengig.mesh import plan_mesh  # noqa: E402
from tests.mesh.layouts import full_mesh  # noqa: E402


def best_of(n: int, hosts: int) -> float:
    request = full_mesh(hosts)
    timings = []
    for _ in range(n):
        started = time.perf_counter()
        plan_mesh(request)
        timings.append(time.perf_counter() - started)
    return min(timings)


if __name__ == "__main__":
    plan_mesh(full_mesh(3))  # imports and schemas outside the timing
    small, large = best_of(5, 3), best_of(5, 64)
    print(f"mesh planner: 3 hosts {1000 * small:.1f} ms, 64 hosts (2,016 cables) {1000 * large:.1f} ms "
          f"(best of 5; {large / small:.0f}x the 3-host plan)")
