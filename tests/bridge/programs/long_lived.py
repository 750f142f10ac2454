"""An agent program that takes episode after episode (--agent-long-lived): it answers each turn with an id of
its process (random: in the sandbox every program is pid 2), how many episodes it has seen, and whether its
episode's token works (standard library only)."""
import json
import os
import sys
import urllib.error
import urllib.request

seen = 0
process_id = os.urandom(8).hex()
first_token = None


def models(episode, token):
    req = urllib.request.Request(episode["base_url"] + "/models", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "episode":
        episode, seen = msg, seen + 1
        first_token = first_token or msg["token"]
    elif msg["type"] == "turn":
        if msg["turn"] == 2 and episode["episode_id"] == os.environ.get("LL_DIE_IN"):
            sys.exit("dying in " + episode["episode_id"])
        answer = {"pid": process_id, "episodes": seen, "long_lived": episode["long_lived"],
                  "token": models(episode, episode["token"]), "first_token": models(episode, first_token)}
        print(json.dumps({"type": "answer", "turn": msg["turn"], "answer": json.dumps(answer)}), flush=True)
    elif msg["type"] == "end" and not episode["long_lived"]:
        break
