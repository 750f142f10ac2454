"""An agent program that fails the way the episode id says (standard library only)."""
import json
import sys
import time

episode = json.loads(sys.stdin.readline())
kind = episode["episode_id"]
for line in sys.stdin:
    turn = json.loads(line)
    if turn["type"] == "end":
        break
    print(f"{kind}: working on turn {turn['turn']}", file=sys.stderr, flush=True)
    if kind == "ep-exit" and turn["turn"] == 2:
        print("boom: giving up", file=sys.stderr, flush=True)
        sys.exit(3)
    if kind == "ep-hang":
        time.sleep(600)
    if kind == "ep-garbage":
        print("Thinking about the answer...", flush=True)
    if kind == "ep-memory":
        hog = bytearray(1024 * 1024 * 1024)
    if kind == "ep-wrong-turn":
        print(json.dumps({"type": "answer", "turn": 7, "answer": "x"}), flush=True)
    print(json.dumps({"type": "answer", "turn": turn["turn"], "answer": "A"}), flush=True)
