"""Screenshots of a built viewer in headless Chromium (`epi view RUN --screenshots DIR`).

Two pictures: the overview filtered to failed episodes, and the page of a failed episode with its
failure marker and an extracted figure in view; a third when the run has report episodes: the report with
the most kinds of claim marks. Used for the README examples and by the browser tests.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
# Show the page from the top, else the failing turn from its top, as long as the marker stays in view;
# else centre the marker.
_SCROLL_TO_FAILURE = """m => {
  window.scrollTo(0, 0);
  if (m.getBoundingClientRect().bottom <= window.innerHeight - 8) return;
  const turn = m.closest('section.turn');
  turn.scrollIntoView({block: 'start'});
  window.scrollBy(0, -56);
  if (m.getBoundingClientRect().bottom > window.innerHeight - 8) m.scrollIntoView({block: 'center'});
}"""
_CALL = re.compile(r"^epiEpisodeLoaded\((.*)\);\s*$", re.S)


def pick_showcase_episode(viewer: Path, run: int = 0) -> str | None:
    """The first failed episode whose failing turn shows a figure image (else the first failed one)."""
    first_failed = None
    for path in sorted((viewer / "data" / "ep" / str(run)).glob("*.js")):
        m = _CALL.match(path.read_text(encoding="utf-8"))
        if not m:
            continue
        _, eid, ep = json.loads("[" + m.group(1) + "]")
        failure: dict[str, Any] | None = ep.get("failure")
        if not failure:
            continue
        first_failed = first_failed or eid
        turn = next((t for t in ep["turns"] if t["turn"] == failure["turn"]), None)
        if turn and any(img.get("path") for s in turn["steps"] for img in s.get("images", [])):
            return eid
    return first_failed


def pick_report_episode(viewer: Path, run: int = 0) -> str | None:
    """The report episode whose report shows the most kinds of claim marks (the first of them on a tie)."""
    best: tuple[int, str] | None = None
    for path in sorted((viewer / "data" / "ep" / str(run)).glob("*.js")):
        m = _CALL.match(path.read_text(encoding="utf-8"))
        if not m:
            continue
        _, eid, ep = json.loads("[" + m.group(1) + "]")
        rep = ep.get("report")
        if not rep:
            continue
        kinds = sum(1 for v in (rep.get("counts") or {}).values() if v)
        if best is None or kinds > best[0]:
            best = (kinds, eid)
    return best[1] if best else None


# The report turn from its top (the report, its marks and the claims table in view)
_SCROLL_TO_REPORT = """r => { r.closest('section.turn').scrollIntoView({block: 'start'}); window.scrollBy(0, -50); }"""


async def _images_loaded(page: Any, timeout_ms: float = 5000) -> None:
    """Wait until the images in view have loaded (lazy ones further down never load; do not wait for them)."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    try:
        await page.wait_for_function(
            "() => [...document.images].filter(i => i.getBoundingClientRect().top < innerHeight).every(i => i.complete)",
            timeout=timeout_ms)
    except PlaywrightTimeout:
        pass  # take the picture anyway: a missing thumbnail must not stop the screenshot


async def take_screenshots(index_html: Path, out_dir: Path, *, chromium: Path = CHROMIUM,
                           width: int = 1400, height: int = 1000) -> list[Path]:
    """Write viewer.png (failed filter), viewer_episode.png (failure marker in view) and, for a run with reports,
    viewer_report.png (a report with its claim marks) into out_dir."""
    from playwright.async_api import async_playwright

    if not chromium.is_file():
        raise FileNotFoundError(f"no Chromium at {chromium} (apt-get install chromium)")
    out_dir.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []
    base = index_html.resolve().as_uri()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(chromium), headless=True, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport={"width": width, "height": height})
            await page.goto(base + "#/?failed=1")
            await page.wait_for_selector("#episode-table")
            await _images_loaded(page)
            shots.append(out_dir / "viewer.png")
            await page.screenshot(path=str(shots[-1]))
            eid = pick_showcase_episode(index_html.parent)
            if eid is not None:
                await page.set_viewport_size({"width": width, "height": int(height * 1.3)})  # header + failing turn
                await page.goto(base + f"#/episode/{quote(eid, safe='')}?run=0")
                marker = page.locator("[data-failure-marker]").first
                await marker.wait_for()
                await _images_loaded(page)
                await marker.evaluate(_SCROLL_TO_FAILURE)
                shots.append(out_dir / "viewer_episode.png")
                await page.screenshot(path=str(shots[-1]))
            rid = pick_report_episode(index_html.parent)
            if rid is not None:
                await page.set_viewport_size({"width": width, "height": int(height * 1.3)})
                await page.goto(base + f"#/episode/{quote(rid, safe='')}?run=0")
                report = page.locator("[data-report-turn]").first
                await report.wait_for()
                await report.evaluate(_SCROLL_TO_REPORT)
                shots.append(out_dir / "viewer_report.png")
                await page.screenshot(path=str(shots[-1]))
        finally:
            await browser.close()
    return shots
