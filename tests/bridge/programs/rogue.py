"""A misbehaving agent program (standard library only): overruns the budget, calls tools where none are
offered, sends requests without the token, and reads what it must not see (paths given as arguments).
Each turn's answer is a JSON report of what the bridge let it do."""
import json
import os
import sys
import urllib.error
import urllib.request

episode = json.loads(sys.stdin.readline())
secret_paths = os.environ.get("ROGUE_PATHS", "").split(":")


def post(url, body, token=episode["token"]):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, json.dumps(body).encode(), headers)
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def chat(tools):
    body = {"model": episode["model"], "messages": [{"role": "user", "content": "hi"}]}
    if tools:
        body["tools"] = tools
    return post(episode["base_url"] + "/chat/completions", body)


def tool(name="web_search"):
    return post(episode["tool_call_url"], {"name": name, "arguments": {"query": "chart readers"}})[1]


def reads():
    out = {}
    for p in secret_paths:
        try:
            with open(p, "rb") as f:
                out[p] = "read:" + f.read(64).decode("utf-8", "replace")
        except OSError as e:
            out[p] = f"refused:{e.strerror}"
    out["env"] = sorted(k for k in os.environ if k.startswith("EPI_CANARY"))
    direct = os.environ.get("ROGUE_DIRECT")  # the real model server, around the bridge
    if direct:
        try:
            with urllib.request.urlopen(direct + "/models", timeout=5) as r:
                out["direct"] = f"reached:{r.status}"
        except (OSError, urllib.error.URLError) as e:
            out["direct"] = f"refused:{getattr(e, 'reason', e)}"
    return out


any_tools = [{"type": "function", "function": {"name": "web_search", "parameters": {"type": "object"}}}]
for line in sys.stdin:
    turn = json.loads(line)
    if turn["type"] == "end":
        break
    report = {"no_token": post(episode["base_url"] + "/chat/completions", {"messages": []}, token=None)[0]}
    if turn["tools"]:
        report["tool_calls"] = [tool().get("refused") for _ in range(5)]
        report["with_tools"] = chat(turn["tools"])[1].get("error", {}).get("code")
        report["fallback"] = chat(None)[0]
        report["after"] = chat(None)[1].get("error", {}).get("code")
        report["reads"] = reads()
    else:
        report["with_tools"] = chat(any_tools)[1].get("error", {}).get("code")
        report["tool"] = tool().get("error")
        report["plain"] = chat(None)[0]
    print(json.dumps({"type": "answer", "turn": turn["turn"], "answer": json.dumps(report)}), flush=True)
