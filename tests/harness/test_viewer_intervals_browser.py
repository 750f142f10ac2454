"""Issue 29, item 6: the viewer's score table shows the 95% intervals report.md shows, "all n equal" included."""
from __future__ import annotations

from pathlib import Path

from harness.scoring import score_run
from harness.viewer import build_viewer

from .test_intervals_small_n import _right_run
from .test_viewer_browser import _open, browser, pytestmark  # noqa: F401 - the fixture and the browser marks


async def test_score_table_shows_each_interval_as_the_report_does(browser, tmp_path: Path) -> None:  # noqa: F811
    run = _right_run(tmp_path, 3)
    score_run(run)
    report = (run / "report.md").read_text()
    assert "100.00 [43.85, 100.00]" in report and "1.00 [all 3 equal]" in report
    viewer = build_viewer([run]).parent
    page, errors = await _open(browser, viewer.joinpath("index.html").as_uri())
    await page.wait_for_selector("td[data-metric='esr:all']")
    cell = lambda key: page.locator(f"td[data-metric='{key}']").inner_text()  # noqa: E731
    assert await cell("esr:all") == "100 [43.9, 100.0]"  # Wilson 3 of 3
    assert await cell("ec:all") == "100 [43.9, 100.0]"  # Wilson over evidence units (one per episode)
    assert await cell("mg:all") == "1 [all 3 equal]"  # a bootstrap with nothing to resample says so
    assert await cell("esr:hard") == "–"  # no episode in the split: no number, no interval
    assert await cell("max_steps_rate:all") == "0"  # numbers without an interval are shown as before
    assert errors == []
