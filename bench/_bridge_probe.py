"""The agent program bench/bridge_overhead.py runs through the bridge (standard library only): on each tool turn
it times N model requests with tools and N tool calls over keep-alive connections, and answers with the timings."""
import http.client
import json
import sys
import time
from urllib.parse import urlsplit

episode = json.loads(sys.stdin.readline())
url = urlsplit(episode["base_url"])
conn = http.client.HTTPConnection(url.hostname, url.port)
HEADERS = {"Content-Type": "application/json", "Authorization": f"Bearer {episode['token']}"}


def post(path, body):
    t0 = time.perf_counter()
    conn.request("POST", url.path + path, json.dumps(body), HEADERS)
    resp = conn.getresponse()
    data = json.loads(resp.read())
    return time.perf_counter() - t0, resp.status, data


for line in sys.stdin:
    turn = json.loads(line)
    if turn["type"] == "end":
        break
    timings = {"model": [], "tool": []}
    if turn["tools"]:
        messages = [{"role": "user", "content": turn["question"]}]
        for _ in range(turn["budget"]["max_steps"]):
            dt, status, data = post("/chat/completions", {"model": episode["model"], "messages": messages,
                                                          "tools": turn["tools"]})
            if status != 200:
                break
            timings["model"].append(dt)
            call = data["choices"][0]["message"]["tool_calls"][0]
            dt, _, result = post("/tools/call", {"name": call["function"]["name"],
                                                 "arguments": call["function"]["arguments"], "id": call["id"]})
            timings["tool"].append(dt)
            messages += [{"role": "assistant", "content": "", "tool_calls": [call]},
                         {"role": "tool", "tool_call_id": call["id"], "content": result["content"][:200]}]
    print(json.dumps({"type": "answer", "turn": turn["turn"], "answer": json.dumps(timings)}), flush=True)
