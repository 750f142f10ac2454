"""What the jail costs: `print(1)` through the code_exec tool, end to end, against a plain subprocess.

Baseline: `python -c 'print(1)'` started with subprocess.run (the cheapest way to run a snippet in
another process at all). Jailed: the code_exec tool on the same snippet (bubblewrap, a fresh uid, a
per-run cgroup, the prelude's limits and audit hook, output capture). The two are measured
interleaved, so machine load hits both alike. Target: the jailed median under 150 ms.
"""
from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools._jail import check_jail  # noqa: E402
from tools.code_exec import code_exec  # noqa: E402

ROUNDS = 40
TARGET_MS = 150.0


class _World:
    jail_limits = None


def _baseline() -> float:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", "print(1)"], capture_output=True, text=True)
    assert r.stdout == "1\n"
    return time.perf_counter() - t


async def _jailed() -> float:
    t = time.perf_counter()
    r = await code_exec(_World(), {"code": "print(1)"})
    assert not r.is_error and r.data["stdout"] == "1\n", r.text
    return time.perf_counter() - t


def _stats(xs: list[float]) -> tuple[float, float]:
    xs = sorted(xs)
    return statistics.median(xs) * 1000, xs[int(0.9 * (len(xs) - 1))] * 1000


async def main() -> int:
    print(check_jail().summary())
    await _jailed()  # first use copies numpy for the jail once; not part of the steady state
    _baseline()
    base, jail = [], []
    for _ in range(ROUNDS):
        base.append(_baseline())
        jail.append(await _jailed())
    (bm, b90), (jm, j90) = _stats(base), _stats(jail)
    print(f"plain python -c 'print(1)': median {bm:6.1f} ms  p90 {b90:6.1f} ms  ({ROUNDS} runs)")
    print(f"code_exec print(1), jailed: median {jm:6.1f} ms  p90 {j90:6.1f} ms  ({ROUNDS} runs)")
    print(f"ratio jailed/plain: {jm / bm:.2f}x median, {j90 / b90:.2f}x p90; jail overhead {jm - bm:.1f} ms")
    ok = jm < TARGET_MS
    print(f"target: jailed median under {TARGET_MS:.0f} ms -> {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
