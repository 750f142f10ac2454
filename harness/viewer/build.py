"""`epi view`: write a self-contained static HTML viewer of one or more runs.

The viewer opens from disk (file://) with no server. Browsers refuse fetch() of file:// URLs, so data
travels as script files: `data/index.js` (run overview, score tables, a compact episode list) is
loaded with the page, and `data/ep/<run>/<episode>.js` is injected only when that episode is opened,
so a run of hundreds of episodes opens as fast as a run of three. Images are copied next to the data.
`data/req/<run>/<episode>.js` holds the parts of the episode's model requests (harness/viewer/requests.py),
loaded only when its "messages" tab is opened; the browser rebuilds each request body from them.
"""
from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from pydantic import BaseModel, Field

from ..rundir import safe_name
from ..plot_worker import wait_for_plots
from ..safe_paths import is_inside
from .requests import episode_requests
from .run_files import RunFiles
from .timeline import EpisodeTimeline, ImageRef, build_timeline

STATIC_FILES = ("index.html", "app.js", "style.css")
OWNED_DIRS = ("data", "img", "plots")  # rebuilt on every build; nothing else in the folder is touched
RESULT_TEXT_LIMIT = 20_000
SPLITS = ("easy", "hard", "all")


class EpisodeEntry(BaseModel):
    """One row of the episode list: enough to filter and sort without loading the episode."""

    id: str
    file: str = Field(description="data file under data/ep/<run>/; the same name under data/req/<run>/ holds its requests")
    requests: int = Field(default=0, description="model requests in the trace and its failed attempts, failed ones included")
    split: str | None = None
    task: str | None = None
    ok: bool | None = Field(default=None, description="episode success; None if unscored")
    errored: bool = Field(default=False, description="an outage before any wrong turn: not a failure")
    attempts: int = Field(default=0, description="earlier failed attempts kept in the run (epi retry)")
    checks: int = Field(default=0, description="agent_check events: the agent broke the protocol")
    status: str = ""
    fail: str | None = Field(default=None, description="failure type")
    why: str | None = None
    turns: int = 0
    calls: int = 0
    tokens: int = 0


class RunOverview(BaseModel):
    """The overview page of one run: identity, score tables, failure counts, cost, plots."""

    run_id: str
    agent: str = ""
    agent_origin: str | None = Field(default=None, description="in-process (trusted) for the user's own agent code")
    agent_source: str | None = None
    model: str | None = None
    labeller: str | None = None
    note: str | None = None
    notes: list[str] = Field(default_factory=list)
    scores: dict[str, dict[str, Any]] = Field(default_factory=dict, description="split -> SplitScores fields")
    buckets: dict[str, int] = Field(default_factory=dict)
    errored: int = Field(default=0, description="errored episodes (left out of the scores unless counted as failed)")
    errors_as_failures: bool = False
    plots: list[str] = Field(default_factory=list, description="image paths relative to the viewer")
    report: dict[str, Any] | None = Field(default=None, description="report metrics of the run (ReportSummary), judged "
                                                                    "ones with their judge and its calibration")
    episodes: list[EpisodeEntry] = Field(default_factory=list)


class ViewerIndex(BaseModel):
    generated_by: str = "epiharness epi view"
    runs: list[RunOverview]


def _entry(tl: EpisodeTimeline, file: str, requests: int) -> EpisodeEntry:
    why = tl.failure.why if tl.failure else None
    return EpisodeEntry(
        id=tl.episode_id, file=file, requests=requests, split=tl.split, task=tl.task_type, ok=tl.success, errored=tl.errored,
        attempts=len(tl.attempts), status=tl.status, checks=sum(tl.agent_checks.values()),
        fail=tl.failure.type if tl.failure else None, why=why[:160] if why else None, turns=len(tl.turns),
        calls=tl.tool_calls, tokens=tl.tokens,
    )


def _copy_image(img: ImageRef | None, dest_dir: Path, out: Path, copied: dict[str, str]) -> None:
    """Copy an image into the viewer and point it at its relative URL (left as is if the file is missing)."""
    if img is None or img.path is None:
        return
    if img.path not in copied:  # a path the timeline resolved inside the run (or an old cue's episode folder)
        src = Path(img.path)
        dest_dir.mkdir(parents=True, exist_ok=True)
        dest = dest_dir / f"{len(copied) + 1:03d}_{safe_name(src.name)}"
        shutil.copyfile(src, dest)
        copied[img.path] = dest.relative_to(out).as_posix()
    img.path = copied[img.path]


def js_literal(value: Any) -> str:
    """JSON as a JavaScript literal: ASCII only, and no `<`, `>` or `&`, so no markup survives even if inlined."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _js_call(fn: str, *args: Any) -> str:
    """A one-line script calling a global loader with its data."""
    return f"{fn}({','.join(js_literal(a) for a in args)});\n"


def _write_episode(tl: EpisodeTimeline, k: int, out: Path) -> str:
    file = safe_name(tl.episode_id) + ".js"
    img_dir = out / "img" / str(k) / safe_name(tl.episode_id)
    copied: dict[str, str] = {}
    for t in tl.turns:
        _copy_image(t.cue_image, img_dir, out, copied)
        for s in t.steps:
            for img in s.images:
                _copy_image(img, img_dir, out, copied)
            if s.result_text and len(s.result_text) > RESULT_TEXT_LIMIT:
                s.result_text = s.result_text[:RESULT_TEXT_LIMIT] + f"\n… ({len(s.result_text) - RESULT_TEXT_LIMIT} more characters in the trace)"
    path = out / "data" / "ep" / str(k) / file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_js_call("epiEpisodeLoaded", k, tl.episode_id, tl.model_dump(mode="json")), encoding="utf-8")
    return file


def _write_requests(files: RunFiles, episode_id: str, k: int, file: str, out: Path) -> int:
    """The episode's request parts for the messages tab; returns how many requests they hold."""
    reqs = episode_requests(files.run, episode_id)
    path = out / "data" / "req" / str(k) / file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_js_call("epiRequestsLoaded", k, episode_id, reqs.model_dump(mode="json")),
                    encoding="utf-8")
    return sum(len(s.calls) for s in reqs.sources)


def _overview(files: RunFiles, k: int, out: Path) -> RunOverview:
    ov = RunOverview(run_id=files.run_id, agent=files.agent, model=files.config.get("model"), notes=list(files.notes))
    origin = files.config.get("agent_origin")
    if isinstance(origin, dict) and origin.get("kind") and origin["kind"] != "built-in":
        ov.agent_origin, ov.agent_source = str(origin["kind"]), str(origin.get("source") or "") or None
    rs = files.run_scores
    if rs is not None:
        ov.labeller, ov.note = rs.labeller, rs.note
        ov.model = ov.model or rs.model
        ov.scores = {s: rs.split(s).model_dump(mode="json") for s in SPLITS}
        ov.buckets = {b: rs.buckets.count(b) for b in ("provider", "data_access", "pipeline", "model")}
        ov.errored, ov.errors_as_failures = rs.all.errored, rs.errors_as_failures
        ov.report = rs.report.model_dump(mode="json") if rs.report is not None else None
        if rs.agent_origin and rs.agent_origin != "built-in":  # scoring also reads the agents of `epi retry`
            ov.agent_origin, ov.agent_source = rs.agent_origin, rs.agent_source
    plots_dir = files.run.path / "plots"
    wait_for_plots(files.run.path)  # a run just finished: its plot worker may still be drawing
    if plots_dir.is_dir():
        for p in sorted(plots_dir.glob("*.png")):
            if not p.is_file() or not is_inside(p, files.run.path):  # a link out of the run is not the run's plot
                continue
            dest = out / "plots" / str(k) / safe_name(p.name)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, dest)
            ov.plots.append(dest.relative_to(out).as_posix())
    return ov


def default_out_dir(run_dirs: Sequence[Path]) -> Path:
    return Path(run_dirs[0]) / "viewer"


def build_viewer(run_dirs: Sequence[Path | str], out_dir: Path | str | None = None) -> Path:
    """Write the viewer for these runs (the first one is the main run) and return its index.html.

    Raises RunFilesError when a run directory cannot be read.
    """
    runs = [RunFiles.open(Path(p)) for p in run_dirs]
    out = Path(out_dir) if out_dir is not None else default_out_dir([Path(p) for p in run_dirs])
    out.mkdir(parents=True, exist_ok=True)
    for d in OWNED_DIRS:
        shutil.rmtree(out / d, ignore_errors=True)
    package = resources.files(__package__)
    for name in STATIC_FILES:
        (out / name).write_text(package.joinpath(name).read_text(encoding="utf-8"), encoding="utf-8")
    overviews: list[RunOverview] = []
    for k, files in enumerate(runs):
        ov = _overview(files, k, out)
        for eid in files.episode_ids():
            tl = build_timeline(files, eid)
            file = _write_episode(tl, k, out)
            ov.episodes.append(_entry(tl, file, _write_requests(files, eid, k, file, out)))
        overviews.append(ov)
    index = ViewerIndex(runs=overviews)
    (out / "data").mkdir(parents=True, exist_ok=True)
    (out / "data" / "index.js").write_text(
        "window.EPI_INDEX = " + js_literal(index.model_dump(mode="json", exclude_none=True)) + ";\n", encoding="utf-8")
    return out / "index.html"
