"""A plain openai-SDK agent for the bridge: `epi run --agent-cmd "python agents/examples/openai_sdk_agent.py" ...`.

The bridge sets OPENAI_BASE_URL and OPENAI_API_KEY (the episode token), so `OpenAI()` talks to the harness,
which forwards to the real model under the turn's budget. Turns arrive as JSON lines on stdin; each answer
goes back as one JSON line on stdout (harness/bridge/PROTOCOL.md). Logs go to stderr.
"""
import json
import sys
import urllib.request

from openai import BadRequestError, OpenAI

client = OpenAI()
episode = json.loads(sys.stdin.readline())
messages = [{"role": "system", "content": "Answer questions about research papers. Use the tools to find evidence, "
                                          "then reply with a line 'Final answer: <answer>'."}]


def call_tool(name, arguments):
    req = urllib.request.Request(episode["tool_call_url"], json.dumps({"name": name, "arguments": arguments}).encode(),
                                 {"Authorization": f"Bearer {episode['token']}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as resp:
        return json.load(resp)["content"]


for line in sys.stdin:
    turn = json.loads(line)
    if turn["type"] == "end":
        break
    content = [{"type": "text", "text": f"{turn['question']}\n{turn.get('cue_text') or ''}"}]
    if turn.get("cue_image"):
        content.append({"type": "image_url", "image_url": {"url": "data:image/png;base64," + turn["cue_image"]["base64"]}})
    messages.append({"role": "user", "content": content})
    tools = turn["tools"] or None
    while True:
        try:
            reply = client.chat.completions.create(model=episode["model"], messages=messages,
                                                   **({"tools": tools} if tools else {})).choices[0].message
        except BadRequestError as e:  # the budget is used up: one last request without tools
            print(f"bridge said: {e}", file=sys.stderr)
            if tools is None:
                raise
            tools = None
            continue
        messages.append(reply.model_dump(exclude_none=True))
        if not (tools and reply.tool_calls):
            break
        for tc in reply.tool_calls:
            result = call_tool(tc.function.name, json.loads(tc.function.arguments or "{}"))
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": result})
    text = reply.content or ""
    answer = text.rsplit("Final answer:", 1)[-1].strip() if "Final answer:" in text else text.strip()
    print(json.dumps({"type": "answer", "turn": turn["turn"], "answer": answer}), flush=True)
