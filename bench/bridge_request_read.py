"""The bridge's own work per model request, without sockets or other processes (so a loaded machine moves it
little): reading the agent's request and storing it in the trace, as the conversation grows.

- baseline (the bridge before): `json.loads` of the whole body, `ChatBody.from_request` (every message encoded
  again), and the trace's request recorder hashing every message again (new bytes objects each request);
- now: `harness.bridge.messages.RequestReader` (the messages already sent reused as parsed and encoded, the
  same bytes objects, which the recorder does not hash again).

An openai-SDK-like agent sends a conversation of one system and one user message, then per step an assistant
tool call and a tool result of about `--result-chars` characters. Printed: the median time per request at a
few conversation lengths, and the ratio baseline / now.

    PYTHONPATH=. python bench/bridge_request_read.py [--steps 30] [--result-chars 1500]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.bridge.messages import RequestReader  # noqa: E402
from harness.chat_body import ChatBody  # noqa: E402
from harness.trace_store import RequestRecorder  # noqa: E402

TOOLS = [{"type": "function", "function": {"name": "web_search", "description": "Search the papers.", "parameters": {
    "type": "object", "properties": {"query": {"type": "string"}, "k": {"type": "integer"}}, "required": ["query"]}}}]


def requests(steps: int, chars: int) -> list[bytes]:
    msgs: list[dict] = [{"role": "system", "content": "Answer questions about research papers. " * 10},
                        {"role": "user", "content": [{"type": "text", "text": "Which paper studies chart readers?"}]}]
    out = []
    for i in range(steps):
        out.append(json.dumps({"messages": msgs, "model": "m", "tools": TOOLS}).encode())
        msgs = msgs + [{"role": "assistant", "content": None, "tool_calls": [{"id": f"call_{i}", "type": "function",
                        "function": {"name": "web_search", "arguments": json.dumps({"query": f"chart readers {i}"})}}]},
                       {"role": "tool", "tool_call_id": f"call_{i}", "content": (f"result {i}: " + "x" * chars)}]
    return out


def baseline(raw: bytes, recorder: RequestRecorder) -> None:
    data = json.loads(raw)
    recorder.record(ChatBody.from_request(data))


def now(raw: bytes, reader: RequestReader, recorder: RequestRecorder) -> None:
    got = reader.read(raw)
    assert got is not None
    data, parts = got
    recorder.record(ChatBody.build({k: v for k, v in data.items() if k != "messages"}, parts))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--result-chars", type=int, default=1500)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    reqs = requests(args.steps, args.result_chars)
    times: dict[str, list[list[float]]] = {"baseline": [[] for _ in reqs], "now": [[] for _ in reqs]}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):  # one episode each: a fresh recorder and reader
            for way in ("baseline", "now"):
                recorder, reader = RequestRecorder(Path(tmp)), RequestReader()
                for i, raw in enumerate(reqs):
                    t0 = time.perf_counter()
                    baseline(raw, recorder) if way == "baseline" else now(raw, reader, recorder)
                    times[way][i].append(time.perf_counter() - t0)
    print(f"per request, median of {args.repeat} episodes (tool results of {args.result_chars} characters)")
    for i in sorted({0, 4, 9, 19, args.steps - 1} & set(range(len(reqs)))):
        b, n = statistics.median(times["baseline"][i]), statistics.median(times["now"][i])
        print(f"  request {i + 1:3d} ({len(reqs[i]):7d} bytes): baseline {b * 1e3:7.3f} ms, now {n * 1e3:7.3f} ms, "
              f"ratio {b / n:5.1f}x")
    tb = sum(statistics.median(t) for t in times["baseline"])
    tn = sum(statistics.median(t) for t in times["now"])
    print(f"  the episode's {len(reqs)} requests: baseline {tb * 1e3:.2f} ms, now {tn * 1e3:.2f} ms, ratio {tb / tn:.1f}x")


if __name__ == "__main__":
    main()
