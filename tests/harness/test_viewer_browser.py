"""The viewer in a real browser: Debian's headless Chromium driven by Playwright, opening index.html from disk."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from viewer_runs import INJECTION, make_run, read_index  # noqa: E402

from harness.viewer import build_viewer  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.is_file(), reason="Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)"),
]


@pytest.fixture()
async def browser():
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        await b.close()


async def _until(page, condition: str) -> None:
    """Wait until a JavaScript condition holds on the page.

    The viewer's CSP (script-src 'self') forbids eval. Playwright evaluates a bare expression again with eval
    on every poll, so a condition that is not true at once failed with "EvalError ... unsafe-eval" (seen in
    CI). Passed as an arrow function, it is compiled once, through the debugger, and then only called.
    """
    await page.wait_for_function(f"() => ({condition})")


async def _open(browser, url: str):
    page = await browser.new_page(viewport={"width": 1300, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    await page.goto(url)
    return page, errors


async def test_failed_filter_episode_page_failure_marker_and_figure(browser, tmp_path: Path) -> None:
    viewer = build_viewer([make_run(tmp_path / "runs", n=40)]).parent
    page, errors = await _open(browser, viewer.joinpath("index.html").as_uri())
    await page.wait_for_selector("#episode-table")
    assert await page.locator("#episode-table tbody tr").count() == 40
    await page.check("#f-failed")
    await _until(page, "document.querySelectorAll('#episode-table tbody tr').length < 40")
    rows = page.locator("#episode-table tbody tr")
    n_failed = await rows.count()
    assert n_failed == sum(1 for i in range(40) if i % 5 == 4 or i % 3 == 2)
    assert await page.locator("#episode-table tbody .badge.ok").count() == 0
    await page.select_option("#f-type", "perception")
    await _until(page, f"document.querySelectorAll('#episode-table tbody tr').length < {n_failed}")
    first = page.locator("#episode-table tbody tr").first
    eid = await first.get_attribute("data-episode-row")
    await first.locator("a").click()

    marker = page.locator("[data-failure-marker]")
    await marker.wait_for()
    assert await marker.count() == 1
    assert await marker.get_attribute("data-failure-marker") == "perception"
    assert "gold is 81.5" in await marker.inner_text()
    # the marker sits on the step where it fired: turn 1, the figure_extract step
    step = page.locator("li.step.has-failure")
    assert await step.get_attribute("data-step") == "3" and "figure_extract" in await step.inner_text()
    img = step.locator("img.figure-image")
    await img.wait_for()
    await _until(page, "[...document.querySelectorAll('img.figure-image')].every(i => i.complete)")
    assert await img.evaluate("i => i.naturalWidth") > 0
    # only the opened episode's data was loaded
    loaded = await page.evaluate("[...document.querySelectorAll('script[data-episode]')].map(s => s.dataset.episode)")
    assert loaded == [eid]
    gold = await page.locator(".turn").first.locator(".ans.gold .val").inner_text()
    assert gold == "81.5 ± 0.5 %"
    await page.screenshot(path=str(tmp_path / "episode.png"), full_page=True)
    assert (tmp_path / "episode.png").stat().st_size > 10_000
    await page.click("#next")  # walk to the next episode of the filtered list
    await _until(page, f"document.querySelector('h1.eptitle')?.textContent !== {eid!r}")
    await page.keyboard.press("k")  # and back with the keyboard
    await _until(page, f"document.querySelector('h1.eptitle')?.textContent === {eid!r}")
    assert errors == []


async def test_the_viewer_forbids_eval_and_waits_that_poll_still_work(browser, tmp_path: Path) -> None:
    """The CSP of the viewer holds (no eval of strings, a guard for model text), and _until copes with it."""
    viewer = build_viewer([make_run(tmp_path / "runs", n=3)]).parent
    page, errors = await _open(browser, viewer.joinpath("index.html").as_uri())
    await page.wait_for_selector("#episode-table")
    later_eval = "() => new Promise(r => setTimeout(() => { try { r(String(eval('1+1'))) } catch (e) { r(e.name) } }, 20))"
    assert await page.evaluate(later_eval) == "EvalError"
    # a condition that only becomes true after several polls
    await page.evaluate("() => setTimeout(() => { document.body.dataset.late = 'yes' }, 300)")
    await _until(page, "document.body.dataset.late === 'yes'")
    assert errors == []


async def test_model_text_is_not_html_and_two_runs_side_by_side(browser, tmp_path: Path) -> None:
    a = make_run(tmp_path, "run-a", n=3)
    b = make_run(tmp_path, "run-b", n=3, agent="other")
    viewer = build_viewer([a, b]).parent
    page, errors = await _open(browser, viewer.joinpath("index.html").as_uri() + "#/episode/ep-000?run=0&vs=1")
    await page.wait_for_selector(".cols.c2 .turn")
    assert await page.locator(".cols.c2").first.locator(".ephead").count() == 2
    assert await page.locator(".cols.c2 .turn").count() == 4  # 2 turns x 2 runs, aligned in rows
    assert await page.evaluate("window.__pwned") is None
    assert await page.locator(".reasoning", has_text=INJECTION).count() == 2
    assert await page.locator(".reasoning img, .reasoning script").count() == 0
    assert errors == []


async def test_screenshots_show_the_failed_list_and_a_failure_with_its_figure(tmp_path: Path) -> None:
    from harness.viewer.screenshot import pick_showcase_episode, take_screenshots

    viewer = build_viewer([make_run(tmp_path / "runs", n=6)]).parent
    assert pick_showcase_episode(viewer) == "ep-002"  # ep-004 failed too, but at a step without a figure
    shots = await take_screenshots(viewer / "index.html", tmp_path / "shots", width=1000, height=700)
    assert [s.name for s in shots] == ["viewer.png", "viewer_episode.png"]
    for s in shots:
        assert s.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and s.stat().st_size > 20_000


def _epi(args: list[str], env: dict[str, str]) -> None:
    r = subprocess.run([sys.executable, "-m", "harness", *args], cwd=REPO, env=env, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=300)
    assert r.returncode == 0, f"epi {' '.join(args)} failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"


@pytest.fixture(scope="module")
def heuristic_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run: a tiny sandbox (8 papers), 3 generated episodes, the heuristic agent through the runner."""
    root = tmp_path_factory.mktemp("real")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "EPI_SANDBOX_DIR": str(root / "sandbox"), "COLUMNS": "200"}
    # corpus v1 (written beside EPI_SANDBOX_DIR, as sandbox-v1): its generator makes episodes from 8 papers
    _epi(["sandbox", "build", "--papers", "8", "--corpus", "v1"], env)
    _epi(["sandbox", "episodes", "--benchmark", "v1", "--out", str(root / "episodes.jsonl"), "--count", "3"], env)
    _epi(["run", "--agent", "heuristic", "--episodes", str(root / "episodes.jsonl"), "--run-id", "heur",
          "--results", str(root / "results"), "--quiet"], {**env, "EPI_SANDBOX_DIR": str(root / "sandbox-v1")})
    return root / "results" / "heur"


async def test_real_heuristic_run_failed_episode_shows_marker_and_extracted_figure(
        browser, heuristic_run: Path, tmp_path: Path) -> None:
    from harness.viewer.screenshot import pick_showcase_episode

    viewer = build_viewer([heuristic_run]).parent
    index = read_index(viewer)
    failed = [e for e in index["runs"][0]["episodes"] if e["ok"] is False]
    assert failed, "the heuristic agent is expected to fail some sandbox episodes"
    page, errors = await _open(browser, (viewer / "index.html").as_uri())
    await page.wait_for_selector("#episode-table")
    await page.check("#f-failed")
    await _until(page, f"document.querySelector('#f-count')?.textContent.startsWith('{len(failed)} of')")
    eid = pick_showcase_episode(viewer)
    await page.locator(f"#episode-table tr[data-episode-row='{eid}'] a").click()
    marker = page.locator("[data-failure-marker]")
    await marker.wait_for()
    entry = next(e for e in failed if e["id"] == eid)
    assert await marker.get_attribute("data-failure-marker") == entry["fail"]
    imgs = page.locator("img.figure-image")
    assert await imgs.count() >= 1
    await _until(page, "[...document.querySelectorAll('img.figure-image')].every(i => i.complete)")
    widths = await imgs.evaluate_all("l => l.map(i => i.naturalWidth)")
    assert min(widths) > 100, widths  # real figure crops, not broken links
    await page.screenshot(path=str(tmp_path / "real_episode.png"), full_page=True)
    assert errors == []


async def test_errored_episodes_are_marked_and_failed_attempts_listed(browser, tmp_path: Path) -> None:
    """E4 of the scoring fixture is a provider outage before any wrong turn: errored, not failed. With an earlier
    failed attempt set aside (as `epi retry` does), its page lists the attempt."""
    import shutil

    from scoring_fixture import main_run

    run = main_run(tmp_path)
    (run / "traces" / "attempt=1").mkdir()
    shutil.copy(run / "traces" / "E4.jsonl", run / "traces" / "attempt=1" / "E4.jsonl")
    viewer = build_viewer([run]).parent
    page, errors = await _open(browser, viewer.joinpath("index.html").as_uri())
    await page.wait_for_selector("#episode-table")
    assert await page.locator("[data-run-errored='1']").count() == 1
    row = page.locator("[data-episode-row='E4']")
    assert await row.get_attribute("data-errored") == "1"
    assert (await row.locator(".badge").inner_text()).strip() == "errored"
    assert await row.locator("[data-attempts='1']").count() == 1
    assert await page.locator("[data-errored='1']").count() == 1  # E1-E3 are not errored
    await page.check("#f-failed")  # errored is not failed
    await _until(page, "!document.querySelector(\"[data-episode-row='E4']\")")
    assert await page.locator("[data-episode-row='E2']").count() == 1
    await page.uncheck("#f-failed")
    await page.locator("[data-episode-row='E4'] a").click()
    await page.locator(".ephead [data-errored='1']").wait_for()
    attempts = page.locator("details.attempts")
    assert await attempts.get_attribute("data-attempts") == "1"
    assert "provider" in await attempts.locator("[data-attempt='1']").inner_text()
    assert errors == []


HOSTILE = ('<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>'
           '<svg onload="window.__pwned=1"><circle r="5"/></svg><style>body{display:none}</style>'
           '<div id="cover" style="position:fixed;inset:0;background:red">cover</div>'
           '<a id="jslink" href="javascript:window.__pwned=1">link</a><iframe src="javascript:parent.__pwned=1"></iframe>')


async def test_html_svg_css_and_script_in_every_field_of_a_trace_stay_text(browser, tmp_path: Path) -> None:
    """Issue 24 ("keep all of that as tests"): payloads in the question, cue, reasoning, tool name and arguments,
    tool result (paper text), answers and the failure's reason are shown as text under the viewer's CSP."""
    import json

    run = make_run(tmp_path, "run-h", n=3)
    trace = run / "traces" / "ep-000.jsonl"
    events = [json.loads(x) for x in trace.read_text().splitlines()]
    for e in events:
        if e["kind"] == "turn_start":
            e.update(question=f"Q {HOSTILE}", cue_text=f"cue {HOSTILE}")
        elif e["kind"] == "tool_call":
            e.update(reasoning=f"why {HOSTILE}", args={"query": HOSTILE}, result_summary=f"paper text {HOSTILE}")
            if e["step"] == 1:
                e["tool"] = f"web_search{HOSTILE}"
        elif e["kind"] == "final_answer":
            e.update(answer=f"ans {HOSTILE}")
    trace.write_text("".join(json.dumps(e) + "\n" for e in events))
    scores = [json.loads(x) for x in (run / "episode_scores.jsonl").read_text().splitlines()]
    for t in scores[0]["turns"]:
        t.update(answer=f"ans {HOSTILE}", question=f"Q {HOSTILE}")
    (run / "episode_scores.jsonl").write_text("".join(json.dumps(s) + "\n" for s in scores))
    viewer = build_viewer([run]).parent
    for url in ("index.html", "index.html#/episode/ep-000?run=0"):
        page, errors = await _open(browser, viewer.joinpath("index.html").as_uri() + url[len("index.html"):])
        await page.wait_for_selector(".turn" if "episode" in url else "#episode-table")
        await page.wait_for_timeout(300)
        assert await page.evaluate("window.__pwned") is None, url
        injected = "#cover, #jslink, img[src='x'], iframe, body style, .turn svg, #episode-table svg"
        assert await page.locator(injected).count() == 0, url
        assert await page.evaluate("getComputedStyle(document.body).display") != "none", url
        if "episode" in url:
            text = await page.evaluate("document.body.innerText")
            assert "onerror=" in text and "<svg onload=" in text and "javascript:parent.__pwned" in text
        assert not [e for e in errors if "Content Security Policy" not in e], errors
