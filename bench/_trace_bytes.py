"""What a run's traces weigh: all bytes under traces/ (JSONL and image files), and each model_call line
by its position in its episode, to see whether bytes per call stay flat as an episode grows."""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class TraceBytes:
    total: int = 0
    calls: int = 0
    by_position: dict[int, list[int]] = field(default_factory=dict)  # n-th model call of its episode -> line sizes

    BUCKETS = ((1, 6), (7, 12), (13, 18), (19, 24), (25, 30), (31, 999))

    def mean_call_bytes(self, lo: int, hi: int) -> float | None:
        sizes = [s for n, v in self.by_position.items() if lo <= n <= hi for s in v]
        return statistics.mean(sizes) if sizes else None

    def last_bucket_mean(self) -> float | None:
        means = [self.mean_call_bytes(lo, hi) for lo, hi in self.BUCKETS]
        means = [m for m in means if m is not None]
        return means[-1] if means else None


def trace_bytes(run: Path) -> TraceBytes:
    out = TraceBytes()
    traces = run / "traces"
    for p in traces.rglob("*"):
        if p.is_file():
            out.total += p.stat().st_size
    for p in sorted(traces.rglob("*.jsonl")):
        n = 0
        for line in p.read_bytes().splitlines():
            if b'"kind":"model_call"' not in line:
                continue
            json.loads(line)  # a whole event, not a fragment
            n += 1
            out.calls += 1
            out.by_position.setdefault(n, []).append(len(line) + 1)
    return out
