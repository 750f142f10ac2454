"""The viewer shows each episode's process metrics beside its timeline (issue 17): the episode's totals,
each turn's line, and a mark on every call that was a repeat, only re-read, off target or a new query."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.scoring import score_run
from harness.viewer import build_viewer

from .scoring_fixture import write_run
from .test_process import memory_only_final, reformulated_query, repeated_calls, untraceable

CHROMIUM = Path("/usr/bin/chromium")


def _viewer(root: Path) -> Path:
    built = [repeated_calls(), reformulated_query(), memory_only_final(), untraceable()]
    run = write_run(root, [e for e, _ in built], {b.ep: b.lines() for _, b in built})
    score_run(run)
    return build_viewer([run]).parent


def _episode_data(viewer: Path, eid: str) -> dict:
    text = (viewer / "data" / "ep" / "0" / f"{eid}.js").read_text()
    m = re.fullmatch(r"epiEpisodeLoaded\((.*)\);\n", text, re.S)
    assert m
    return json.loads("[" + m.group(1) + "]")[2]


def test_episode_data_carries_the_process_metrics_and_call_marks(tmp_path: Path):
    viewer = _viewer(tmp_path)
    r1 = _episode_data(viewer, "R1")
    assert r1["process"]["redundancy"] == pytest.approx(2 / 6) and r1["process"]["turns"] == []  # turns carry their own
    t1, t2 = r1["turns"]
    assert t1["process"]["useful_calls"] == [1, 2]
    assert [s["flags"] for s in t1["steps"] if s["kind"] == "tool_call"] == [[], [], ["repeat"], ["off target"]]
    assert [s["flags"] for s in t2["steps"] if s["kind"] == "tool_call"] == [["repeat"], []]
    f1 = _episode_data(viewer, "F1")
    flags = [s["flags"] for s in f1["turns"][0]["steps"] if s["kind"] == "tool_call"]
    assert flags[:5] == [["off target"], ["new query, target up"], ["new query, target up"], ["nothing new"],
                         ["new query, target not up"]]
    u1 = _episode_data(viewer, "U1")
    assert u1["process"]["ungrounded_turns"] == [1, 2]
    index = (viewer / "data" / "index.js").read_text()
    assert '"efficiency":0.666' in index  # the run's summary reaches the overview tables (10 useful of 15 calls)


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.is_file(), reason="Debian's chromium is not installed at /usr/bin/chromium")
async def test_the_episode_page_shows_the_process_panel_and_marks(tmp_path: Path):
    from playwright.async_api import async_playwright

    viewer = _viewer(tmp_path)
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"])
        page = await b.new_page(viewport={"width": 1300, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(viewer.joinpath("index.html").as_uri() + "#/episode/R1?run=0")
        panel = page.locator("[data-process=episode]")
        await panel.wait_for()
        assert await panel.locator("[data-metric=efficiency]").inner_text() == "0.50"  # issue 22: the repeated reads add nothing new, so they are not useful
        assert await panel.locator("[data-metric=repeated_calls]").inner_text() == "2"
        assert await page.locator(".chip.flag[data-flag=repeat]").count() == 2
        line = await page.locator("[data-turn-process='1']").inner_text()
        assert "2/4 calls on target" in line and "observation (turn 1 step 2 table_extract)" in line
        await page.goto(viewer.joinpath("index.html").as_uri() + "#/episode/U1?run=0")
        await page.locator("[data-turn-process='1'].ungrounded").wait_for()
        assert "traceable to nothing" in await page.locator("[data-process=episode] .warn").inner_text()
        await page.goto(viewer.joinpath("index.html").as_uri() + "#/")
        await page.wait_for_selector("table.scores")
        assert await page.locator("table.scores th", has_text="efficiency").count() == 1
        await b.close()
    assert errors == []
