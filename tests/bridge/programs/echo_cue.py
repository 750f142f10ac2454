"""Answers each turn with what it got as the cue image: media type, sha256 of the base64 bytes, and whether the
file at `path` holds the same bytes (standard library only)."""
import base64
import hashlib
import json
import sys

json.loads(sys.stdin.readline())
for line in sys.stdin:
    turn = json.loads(line)
    if turn["type"] == "end":
        break
    cue = turn.get("cue_image")
    if cue is None:
        answer = "none"
    else:
        data = base64.b64decode(cue["base64"])
        with open(cue["path"], "rb") as f:
            same = f.read() == data
        answer = f"{cue['media_type']} {hashlib.sha256(data).hexdigest()} {same}"
    print(json.dumps({"type": "answer", "turn": turn["turn"], "answer": answer}), flush=True)
