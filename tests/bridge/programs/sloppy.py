"""An agent program with one flaw, named by its argument (standard library only):
garbage: logs to stdout; greedy: after its request without tools past the budget, asks once more;
tools-on-memory: offers tools on the memory-only turn."""
import json
import sys
import urllib.error
import urllib.request

flaw = sys.argv[1]
episode = json.loads(sys.stdin.readline())
TOOLS = [{"type": "function", "function": {"name": "web_search", "parameters": {"type": "object"}}}]


def post(url, body):
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json",
                                                                   "Authorization": f"Bearer {episode['token']}"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def ask(messages, tools):
    return post(episode["base_url"] + "/chat/completions",
                {"model": episode["model"], "messages": messages, **({"tools": tools} if tools else {})})


for line in sys.stdin:
    turn = json.loads(line)
    if turn["type"] == "end":
        break
    if flaw == "garbage":
        print("log: starting the turn", flush=True)
    messages = [{"role": "user", "content": turn["question"]}]
    tools = turn["tools"] or (TOOLS if flaw == "tools-on-memory" else None)
    text, refusals = "", 0
    while True:
        status, data = ask(messages, tools)
        if status != 200:
            refusals += 1
            if refusals > 3:
                break
            tools = None
            continue
        msg = data["choices"][0]["message"]
        if tools and msg.get("tool_calls"):
            messages.append({"role": "assistant", "content": "", "tool_calls": msg["tool_calls"]})
            for tc in msg["tool_calls"]:
                _, res = post(episode["tool_call_url"], {"name": tc["function"]["name"],
                                                         "arguments": tc["function"]["arguments"]})
                messages.append({"role": "tool", "tool_call_id": tc["id"], "content": res["content"]})
            continue
        text = msg.get("content") or ""
        if flaw == "greedy" and turn["tools"]:
            ask(messages, None)  # one more, after the one allowed
        break
    answer = text.split("Final answer:", 1)[-1].strip()
    print(json.dumps({"type": "answer", "turn": turn["turn"], "answer": answer}), flush=True)
