"""The report view in a real browser (issue 32, must show): headless Chromium through Playwright opens the viewer
from disk, every kind of claim mark is on the page, a citation scrolls to the step that opened its unit, an unread
citation links nowhere, model text stays text under the strict CSP; and the screenshot of it."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.scoring import JudgeConfig, score_run
from harness.viewer import build_viewer
from sandbox.model_server import ScriptedModelServer

from .report_runs import judge_script, report_run
from .test_viewer_browser import CHROMIUM, _open, _until, browser  # noqa: F401 - the browser fixture

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.is_file(), reason="Debian's chromium is not installed at /usr/bin/chromium"),
]


def _viewer(tmp_path: Path) -> Path:
    run = report_run(tmp_path)
    with ScriptedModelServer(judge_script()) as srv:
        score_run(run, report_judge=JudgeConfig(model="scripted", base_url=srv.base_url, cache_dir=tmp_path / "c"))
    return build_viewer([run], tmp_path / "viewer")


async def test_the_report_with_every_claim_mark_and_citations_linked_to_steps(browser, tmp_path: Path) -> None:  # noqa: F811
    index = _viewer(tmp_path)
    page, errors = await _open(browser, index.as_uri() + "#/episode/R1?run=0")
    await page.wait_for_selector("[data-report-turn='2']")
    for mark, n in (("true", 1), ("false", 1), ("uncited", 1), ("unread", 1), ("off_persona", 2)):
        assert await page.locator(f"[data-report] [data-claim-mark='{mark}']").count() == n, mark
    false = await page.locator("[data-report] [data-sentence-mark='false']").all_inner_texts()
    assert "".join(false) == "XNet scores 71.0 on Alpha ."  # the sentence around its citation
    assert await page.locator("[data-report] span.cite.unread").inner_text() == "[P001, Figure 1]"  # links nowhere
    assert await page.locator("[data-report] a.cite").count() == 4
    await page.locator("[data-report] a.cite[data-cite-step='1.1']").first.click()
    step = page.locator("section.turn[data-turn='1'] li.s-tool_call[data-step='1']")
    await _until(page, "document.querySelector(\"section.turn[data-turn='1'] li.s-tool_call[data-step='1']\")"
                       ".classList.contains('flash')")
    assert "table_extract" in await step.inner_text()
    assert await page.locator("[data-judge='judge:scripted'] > summary").inner_text() == "Judged by judge:scripted · not calibrated"
    assert await page.locator("[data-report] img").count() == 0
    assert errors == []


async def test_the_screenshots_include_the_report_view(tmp_path: Path) -> None:
    from harness.viewer.screenshot import pick_report_episode, take_screenshots

    index = _viewer(tmp_path)
    assert pick_report_episode(index.parent) == "R1"  # five kinds of marks against R2's two
    shots = await take_screenshots(index, tmp_path / "shots", width=1200, height=900)
    assert shots[-1].name == "viewer_report.png" and shots[-1].stat().st_size > 20_000
