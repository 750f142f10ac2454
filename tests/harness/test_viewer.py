"""`epi view`: the static viewer's files: index data, per-episode data loaded on demand, copied images."""
from __future__ import annotations

import json
import re
import sys
import threading
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from viewer_runs import INJECTION, make_run, png_bytes, read_index  # noqa: E402

from harness.viewer import build_viewer  # noqa: E402
from harness.viewer.serve import make_server  # noqa: E402


def read_episode(viewer: Path, run: int, file: str) -> tuple[int, str, dict]:
    text = (viewer / "data" / "ep" / str(run) / file).read_text()
    m = re.fullmatch(r"epiEpisodeLoaded\((.*)\);\n", text, re.S)
    assert m, text[:200]
    k, eid, data = json.loads("[" + m.group(1) + "]")
    return k, eid, data


def test_viewer_writes_index_episode_files_and_copies_images(tmp_path: Path) -> None:
    run = make_run(tmp_path, n=6)
    (run / "plots").mkdir()
    (run / "plots" / "esr_by_split.png").write_bytes(png_bytes())
    index_html = build_viewer([run])
    viewer = run / "viewer"
    assert index_html == viewer / "index.html"
    html = index_html.read_text()
    assert '<script src="data/index.js"></script>' in html and '<script src="app.js"></script>' in html
    assert (viewer / "app.js").is_file() and (viewer / "style.css").is_file()
    idx = read_index(viewer)
    (r,) = idx["runs"]
    assert r["run_id"] == "fixture-run" and r["agent"] == "heuristic"
    assert r["plots"] == ["plots/0/esr_by_split.png"] and (viewer / r["plots"][0]).is_file()
    failed = {e["id"]: e["fail"] for e in r["episodes"] if e["ok"] is False}
    assert failed == {"ep-002": "perception", "ep-004": "retrieve", "ep-005": "perception"}
    assert "turns" not in json.dumps(r["episodes"][0]) or isinstance(r["episodes"][0]["turns"], int)  # compact rows

    entry = next(e for e in r["episodes"] if e["id"] == "ep-002")
    k, eid, ep = read_episode(viewer, 0, entry["file"])
    assert (k, eid) == (0, "ep-002")
    step3 = ep["turns"][0]["steps"][2]
    assert step3["tool"] == "figure_extract" and step3["failure"]["type"] == "perception"
    (img,) = step3["images"]
    assert not Path(img["path"]).is_absolute() and (viewer / img["path"]).read_bytes() == png_bytes()
    assert ep["turns"][0]["gold"] == "81.5 ± 0.5 %" and ep["turns"][0]["answer"] == "64"
    assert ep["turns"][0]["required"] == [{"unit": "P002 figure:2", "accessed": True}]


def test_trace_text_reaches_the_page_only_as_data(tmp_path: Path) -> None:
    viewer = build_viewer([make_run(tmp_path, n=1)]).parent
    raw = (viewer / "data" / "ep" / "0" / "ep-000.js").read_text()
    assert "<script>" not in raw and "<img" not in raw  # \u003c escapes: no markup in the data files
    _, _, ep = read_episode(viewer, 0, "ep-000.js")
    assert ep["turns"][0]["steps"][0]["reasoning"] == INJECTION
    app_js = (viewer / "app.js").read_text()
    assert "innerHTML" not in app_js and "insertAdjacentHTML" not in app_js and "document.write" not in app_js


def test_three_hundred_episodes_index_stays_small(tmp_path: Path) -> None:
    run = make_run(tmp_path, n=300)
    viewer = build_viewer([run]).parent
    idx_size = (viewer / "data" / "index.js").stat().st_size
    ep_files = list((viewer / "data" / "ep" / "0").glob("*.js"))
    assert len(ep_files) == 300
    assert idx_size < 300 * 320, idx_size  # a compact row per episode, no timelines
    assert idx_size < sum(p.stat().st_size for p in ep_files) / 5


def test_two_runs_side_by_side_and_rebuild_replaces_old_data(tmp_path: Path) -> None:
    a = make_run(tmp_path, "run-a", n=4)
    b = make_run(tmp_path, "run-b", n=6, agent="other")
    out = tmp_path / "cmp"
    build_viewer([a, b], out)
    idx = read_index(out)
    assert [r["run_id"] for r in idx["runs"]] == ["run-a", "run-b"]
    assert (out / "data" / "ep" / "1" / "ep-005.js").is_file()
    build_viewer([a], out)
    assert len(read_index(out)["runs"]) == 1 and not (out / "data" / "ep" / "1").exists()


def test_missing_run_is_a_clear_error(tmp_path: Path) -> None:
    from harness.viewer import RunFilesError

    with pytest.raises(RunFilesError, match="does not exist"):
        build_viewer([tmp_path / "nope"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunFilesError, match="no run.json"):
        build_viewer([tmp_path / "empty"])


def test_serve_serves_the_viewer_over_loopback(tmp_path: Path) -> None:
    viewer = build_viewer([make_run(tmp_path, n=2)]).parent
    server = make_server(viewer, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        r = httpx.get(f"{base}/index.html", timeout=5)
        assert r.status_code == 200 and "data/index.js" in r.text
        r = httpx.get(f"{base}/data/ep/0/ep-001.js", timeout=5)
        assert r.status_code == 200 and r.text.startswith("epiEpisodeLoaded(0,")
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_cli_view_writes_the_viewer_and_refuses_a_missing_run(tmp_path: Path) -> None:
    import os
    import subprocess

    run = make_run(tmp_path, n=2)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    r = subprocess.run([sys.executable, "-m", "harness", "view", str(run), "--out", str(tmp_path / "v")],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert str(tmp_path / "v" / "index.html") in r.stdout and (tmp_path / "v" / "data" / "index.js").is_file()
    r = subprocess.run([sys.executable, "-m", "harness", "view", str(tmp_path / "nope")],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2 and "is not a folder" in " ".join(r.stderr.split()) and "Traceback" not in r.stderr
