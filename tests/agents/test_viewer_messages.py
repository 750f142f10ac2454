"""Issue 29 item 6: the viewer's messages tab shows the exact request of each model call, rebuilt in the browser
from the parts the trace stores, byte for byte what the model server received (and what `epi trace export` writes);
failed requests and earlier failed attempts (epi retry) are marked; the viewer grows linearly with the episode."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.rundir import RunDir
from harness.runner import run_episodes
from harness.settings import RunSettings
from harness.trace_fold import fold_trace
from harness.viewer import build_viewer
from tools._world import SearchHit

from .conftest import NON_SEARCH_TOOLS, TinyWorld, agent_config, two_turn_episode, write_episodes
from .test_trace_export import PNG, SEARCH, TITLE
from tests.harness.test_viewer_browser import CHROMIUM, _open, _until, browser  # noqa: F401 - the browser fixture

EP = "ep-search-1"
# astral characters (two UTF-16 units each) and escapes, in a result long enough for the agent to cut it short
# (agents/_prompt.py observation_text keeps 12,000 characters): the stored part refers to the cut by code points
LONG_TITLE = "Ünïcode 😀 notes: " + "é😀 \"quoted\"\\ tab\t line\n " * 700  # web_search shortens snippets, not titles


class UnicodeWorld(TinyWorld):
    """The tiny world whose search also returns a long hit full of non-ASCII text."""

    async def search(self, query: str, k: int) -> list[SearchHit]:
        hits = await super().search(query, k)
        return [*hits, SearchHit(title=LONG_TITLE, url="https://sandbox.local/papers/P009")]


async def _run(config: Any, episodes: Path, results: Path, world: TinyWorld, *, retry: bool = False, max_steps: int = 4):
    settings = RunSettings(agent="openai", episodes=episodes, results=results, run_id="r1", max_steps=max_steps,
                           disable_tools=NON_SEARCH_TOOLS, concurrency=1, score=False, agent_config=config)
    summary = await run_episodes(settings, world=world, retry=retry)
    return RunDir(summary.run_dir)


def _export(rd: RunDir, n: int) -> bytes:
    r = CliRunner().invoke(app, ["trace", "export", str(rd.path), EP, "--call", str(n)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.stdout_bytes


def _loaded(path: Path, fn: str) -> list[Any]:
    """The arguments of the one loader call a viewer data file makes."""
    text = path.read_text(encoding="utf-8")
    assert text.startswith(fn + "(") and text.endswith(");\n")
    return json.loads("[" + text[len(fn) + 1:-3] + "]")


@pytest.fixture()
async def retried_run(model_server, api_key_env, tmp_path):
    """A run whose one episode errored (the server answered 500), then `epi retry` on a server whose first answer
    is a 500 again (retried inside the episode) and then works: one failed attempt, one failed request."""
    (tmp_path / "cue.png").write_bytes(PNG)
    ep = two_turn_episode()
    ep["turns"][0]["cue"]["image"] = "cue.png"
    ep["turns"][0]["question"] = "Which paper studies chart readers — «Ünïcode» 😀? Give its title."
    eps = write_episodes(tmp_path / "eps.jsonl", [ep])
    world = UnicodeWorld(tmp_path / "res" / "cache")
    down = model_server([], default={"fault": "server_error"})
    rd = await _run(agent_config(down, api_key_env, max_retries=0), eps, tmp_path / "res", world)
    assert len(down.chat_requests) == 1 and fold_trace(rd.read_trace(EP)).end.status != "completed"
    up = model_server([
        {"fault": "server_error"},
        {"content": "Plan: search.", "tool_calls": [SEARCH]},
        {"content": f"Final answer: {TITLE}"},
        {"content": "Final answer: A"},
    ])
    rd = await _run(agent_config(up, api_key_env, max_retries=2), eps, tmp_path / "res", world, retry=True)
    assert len(rd.attempts(EP)) == 1
    return rd, [r.raw for r in down.chat_requests], [r.raw for r in up.chat_requests]


def test_request_parts_are_written_once_per_episode_with_what_they_refer_to(retried_run) -> None:
    rd, down_raw, up_raw = retried_run
    out = build_viewer([rd.path]).parent
    data = _loaded(out / "data" / "req" / "0" / f"{EP}.js", "epiRequestsLoaded")[2]
    main, attempt = data["sources"]
    assert attempt["attempt"] == 1 and [c["error"] is not None for c in attempt["calls"]] == [True]
    assert [c["error"] is not None for c in main["calls"]] == [True, False, False, False]
    assert len(main["images"]) == 1 and len(main["results"]) >= 1  # the cue image and the cut search result, once
    cut = [p for b in main["blobs"].values() if isinstance(b, list) for p in b if isinstance(p, dict) and p.get("chars")]
    assert cut, "the agent cut the long search result short: a part refers to a prefix of it"
    index = json.loads((out / "data" / "index.js").read_text()[len("window.EPI_INDEX = "):-2])
    assert index["runs"][0]["episodes"][0]["requests"] == 5


needs_browser = [pytest.mark.browser, pytest.mark.slow,
                 pytest.mark.skipif(not CHROMIUM.is_file(), reason="Debian's chromium is not installed at /usr/bin/chromium")]


@needs_browser[0]
@needs_browser[1]
@needs_browser[2]
async def test_messages_tab_rebuilds_each_request_byte_for_byte(retried_run, browser) -> None:  # noqa: F811
    rd, down_raw, up_raw = retried_run
    out = build_viewer([rd.path]).parent
    url = out.joinpath("index.html").as_uri()
    page, errors = await _open(browser, url + f"#/episode/{EP}?run=0")
    await page.wait_for_selector("#tab-messages")
    assert await page.locator("#tab-messages").inner_text() == "messages (5)"
    await page.click("#tab-messages")
    await page.wait_for_selector("table.calls")
    # the run's trace, then the failed attempt epi retry set aside; failed requests marked in both
    assert await page.locator("[data-source]").count() == 2
    assert await page.locator("[data-attempt-source='1'] [data-failed-call]").count() == 1
    assert await page.locator("[data-source='0'] tr[data-failed-call]").count() == 1
    assert await page.locator("[data-source='0'] tr[data-call-row]").count() == 4
    assert await page.locator("[data-source='0'] tr[data-call-row='1']").get_attribute("data-failed-call") == "1"
    sources = [(0, up_raw), (1, down_raw)]
    for j, received in sources:
        for n, raw in enumerate(received, 1):
            await page.goto(url + f"#/episode/{EP}?run=0&tab=messages&call={n}" + (f"&src={j}" if j else ""))
            panel = page.locator(f"[data-source='{j}'] [data-request='{n}']")
            await panel.wait_for()
            await panel.locator("details.raw summary").click()
            body = panel.locator(f"pre[data-request-body='{n}']")
            await _until(page, f"document.querySelector(\"[data-source='{j}'] pre[data-request-body='{n}']\").textContent.length > 0")
            shown = (await body.text_content()).encode("utf-8")
            assert shown == raw, f"source {j} call {n}: the rebuilt body differs from the bytes the server received"
            if j == 0:
                assert shown == _export(rd, n)  # and from what epi trace export writes
            await _until(page, f"document.querySelector(\"[data-source='{j}'] [data-request='{n}'] [data-sha-check]\").dataset.shaCheck !== 'pending'")
            assert await panel.locator("[data-sha-check]").get_attribute("data-sha-check") == "match"
            assert (await panel.locator("[data-failed-call]").count() == 1) == (n == 1)
    # the first answered request of the retry sent the cue image: shown as an image, and the astral text intact
    await page.goto(url + f"#/episode/{EP}?run=0&tab=messages&call=2")
    panel = page.locator("[data-source='0'] [data-request='2']")
    await panel.wait_for()
    assert await panel.locator(".msg-image img").evaluate("i => i.complete && i.naturalWidth") == 1
    assert "«Ünïcode» 😀" in await panel.locator("[data-message]").nth(1).inner_text()
    # the episode header still says the earlier attempt failed
    assert await page.locator("details.attempts[data-attempts='1']").count() == 1
    assert errors == []


class WordyWorld(TinyWorld):
    """Each search returns a long hit of its own, so every step adds as much to the conversation."""

    async def search(self, query: str, k: int) -> list[SearchHit]:
        return [SearchHit(title=f"Notes on {query}: " + "a long observation of the kind papers give. " * 60,
                          url="https://sandbox.local/papers/P001", paper_id="P001")]


async def _long_episode(model_server, api_key_env, tmp_path: Path, steps: int) -> tuple[Path, int]:
    """A one-turn episode of `steps` searches; returns the viewer folder and the bytes of all its requests."""
    ep = two_turn_episode()
    ep["turns"] = ep["turns"][:1]
    eps = write_episodes(tmp_path / f"eps{steps}.jsonl", [ep])
    replies = [{"content": f"Step {i}.", "tool_calls": [{"name": "web_search", "arguments": {"query": f"chart readers {i}"}}]}
               for i in range(steps)]
    srv = model_server([*replies, {"content": f"Final answer: {TITLE}"}])
    results = tmp_path / f"res{steps}"
    rd = await _run(agent_config(srv, api_key_env), eps, results, WordyWorld(results / "cache"), max_steps=steps + 1)
    assert fold_trace(rd.read_trace(EP)).tool_calls == steps
    return build_viewer([rd.path], tmp_path / f"viewer{steps}").parent, sum(len(r.raw) for r in srv.chat_requests)


def _episode_bytes(viewer: Path) -> int:
    return sum((viewer / "data" / d / "0" / f"{EP}.js").stat().st_size for d in ("ep", "req"))


async def test_the_viewer_grows_linearly_with_the_episode(model_server, api_key_env, tmp_path) -> None:
    short, short_sent = await _long_episode(model_server, api_key_env, tmp_path, 5)
    long, long_sent = await _long_episode(model_server, api_key_env, tmp_path, 15)
    # the requests themselves grow with the square (each repeats the conversation so far) ...
    assert long_sent / short_sent > 6
    # ... the viewer's data of the episode (timeline and request parts) with the steps: 3x the steps, < 3.3x the bytes
    ratio = _episode_bytes(long) / _episode_bytes(short)
    assert ratio < 3.3, f"15 steps take {ratio:.2f}x the viewer bytes of 5"
    assert _episode_bytes(long) < long_sent / 2


@needs_browser[0]
@needs_browser[1]
@needs_browser[2]
async def test_the_messages_tab_page_grows_linearly(model_server, api_key_env, tmp_path, browser) -> None:  # noqa: F811
    sizes = []
    for steps in (5, 15):
        viewer, _ = await _long_episode(model_server, api_key_env, tmp_path, steps)
        last = steps + 1
        page, errors = await _open(browser, viewer.joinpath("index.html").as_uri() + f"#/episode/{EP}?run=0&tab=messages&call={last}")
        panel = page.locator(f"[data-request='{last}']")
        await panel.wait_for()
        await panel.locator("details.raw summary").click()
        await _until(page, f"document.querySelector(\"pre[data-request-body='{last}']\").textContent.length > 0")
        assert await page.locator("tr[data-call-row]").count() == last
        sizes.append(await page.evaluate("document.getElementById('episode').outerHTML.length"))
        assert errors == []
        await page.close()
    # every call listed and the last (longest) request shown in full: linear in the steps
    assert sizes[1] / sizes[0] < 3.3, sizes
