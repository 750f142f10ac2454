// A bridge agent in JavaScript (node 18+, no packages): `epi run --agent-cmd "node agents/examples/node_agent.mjs" ...`.
// Turns arrive as JSON lines on stdin; the model and the tools are the bridge's HTTP endpoints, reached with the
// episode token (harness/bridge/PROTOCOL.md). Logs go to stderr; stdout carries only answer lines.
import readline from "node:readline";

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
let episode = null;
let messages = [{ role: "system", content: "Answer questions about research papers. Use the tools, then reply 'Final answer: <answer>'." }];

async function post(url, body) {
  const r = await fetch(url, {
    method: "POST", body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${episode.token}` },
  });
  return { status: r.status, data: await r.json() };
}

async function playTurn(turn) {
  messages.push({ role: "user", content: `${turn.question}\n${turn.cue_text ?? ""}` });
  let tools = turn.tools.length ? turn.tools : null;
  for (;;) {
    const body = { model: episode.model, messages, ...(tools ? { tools } : {}) };
    const { status, data } = await post(`${episode.base_url}/chat/completions`, body);
    if (status !== 200) {  // the bridge refused: the budget is used up (answer without tools), or worse
      console.error(`bridge said: ${data.error?.message}`);
      if (!tools) return "";
      tools = null;
      continue;
    }
    const reply = data.choices[0].message;
    messages.push({ role: "assistant", content: reply.content ?? "", ...(reply.tool_calls ? { tool_calls: reply.tool_calls } : {}) });
    if (!tools || !reply.tool_calls?.length) {
      const text = reply.content ?? "";
      const i = text.lastIndexOf("Final answer:");
      return i >= 0 ? text.slice(i + 13).trim() : text.trim();
    }
    for (const call of reply.tool_calls) {
      const { data: result } = await post(episode.tool_call_url, { name: call.function.name, arguments: call.function.arguments });
      messages.push({ role: "tool", tool_call_id: call.id, content: result.content ?? String(result.error) });
    }
  }
}

for await (const line of lines) {
  const msg = JSON.parse(line);
  if (msg.type === "episode") { episode = msg; continue; }
  if (msg.type === "end") break;
  const answer = await playTurn(msg);
  process.stdout.write(JSON.stringify({ type: "answer", turn: msg.turn, answer }) + "\n");
}
