"""The model-request rate limit spaces requests (sweeps themselves: test_ablate_sweep.py)."""
from __future__ import annotations

from harness.session import RateLimiter


async def test_rate_limiter_spaces_requests_across_the_run(monkeypatch):
    clock = {"now": 100.0}
    slept: list[float] = []

    async def fake_sleep(d):
        slept.append(round(d, 6))
        clock["now"] += d

    monkeypatch.setattr("harness.session.time.monotonic", lambda: clock["now"])
    monkeypatch.setattr("harness.session.asyncio.sleep", fake_sleep)
    lim = RateLimiter(rps=4.0)
    for _ in range(4):
        await lim.wait()
    assert slept == [0.25, 0.25, 0.25]  # the first request goes at once, then one every 1/rps seconds
    await RateLimiter(None).wait()  # no limit: never sleeps
    assert len(slept) == 3
