"""The files of one run that replay and viewer read, loaded once: config, episodes, scores.

A run that is not scored yet, or was scored by an older scorer with the matcher, is scored on first
look (`harness.scoring.score_run` only reads traces and the episode file, and writes the score files
next to them), so replay, viewer and `epi score` always show the same verdicts and failure labels.
A judge-labelled run from an older scorer is shown as it is, with a note.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..episode import Episode
from ..rundir import RunDir
from ..scoring.model import SCORER_VERSION, EpisodeScore, RunScores


class RunFilesError(Exception):
    """A run directory that cannot be read: the message says which file and what is wrong."""


@dataclass
class RunFiles:
    run: RunDir
    config: dict[str, Any]
    episodes: dict[str, Episode] = field(default_factory=dict)
    scores: dict[str, EpisodeScore] = field(default_factory=dict)
    run_scores: RunScores | None = None
    episodes_path: Path | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        return self.run.run_id

    @property
    def agent(self) -> str:
        if self.run_scores and self.run_scores.agent:
            return self.run_scores.agent
        return str(self.config.get("agent") or self.config.get("settings", {}).get("agent") or "")

    def episode_ids(self) -> list[str]:
        """Episodes of the run: scored ones in score order, then traces the scores do not know."""
        ids = list(self.scores)
        seen = set(ids)
        for eid in self.run.iter_trace_ids():
            if eid not in seen:
                ids.append(eid)
                seen.add(eid)
        return ids

    def failed_ids(self) -> list[str]:
        return [eid for eid in self.episode_ids() if eid in self.scores and not self.scores[eid].success]

    @classmethod
    def open(cls, path: Path | str, *, score_if_missing: bool = True) -> "RunFiles":
        run = RunDir(path)
        if not run.path.is_dir():
            raise RunFilesError(f"run directory {run.path} does not exist")
        if not run.exists():
            raise RunFilesError(f"{run.path} is not a run directory: it has no run.json")
        try:
            config = run.load_config()
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise RunFilesError(f"{run.run_json} is not valid JSON: {e}") from None
        files = cls(run=run, config=config if isinstance(config, dict) else {})
        if score_if_missing and (not (run.path / "episode_scores.jsonl").is_file() or files._stale_matcher_scores()):
            files._score()
        files._load_scores()
        if files.run_scores is not None and files.run_scores.scorer_version != SCORER_VERSION:
            files.notes.append(f"scored by scorer {files.run_scores.scorer_version} (this is {SCORER_VERSION}): "
                               f"`epi score {run.path}` re-scores it")
        files._load_episodes()
        return files

    def _stale_matcher_scores(self) -> bool:
        """scores.json from an older scorer and labelled by the matcher: cheap and safe to redo."""
        try:
            old = RunScores.model_validate_json(self.run.scores_json.read_text(encoding="utf-8"))
        except (OSError, ValidationError):
            return False
        return old.scorer_version != SCORER_VERSION and old.labeller == "matcher"

    def _score(self) -> None:
        from ..scoring.run import ScoringError, score_run

        try:  # a run scored with errors as failures stays so (an older scores.json without the field: left out)
            old = RunScores.model_validate_json(self.run.scores_json.read_text(encoding="utf-8"))
            as_failures = old.errors_as_failures
        except (OSError, ValidationError):
            as_failures = False
        try:
            score_run(self.run.path, errors_as_failures=as_failures)
        except ScoringError as e:  # no episode file, a changed one: show the traces unscored
            self.notes.append(f"could not score the run: {e}")

    def _load_scores(self) -> None:
        path = self.run.path / "episode_scores.jsonl"
        if path.is_file():
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    es = EpisodeScore.model_validate_json(line)
                except ValidationError:
                    self.notes.append(f"{path.name} line {i} is not an episode score; skipped")
                    continue
                if es.epoch == 1:  # the viewer shows epoch 1's trace; later epochs have their own lines
                    self.scores[es.episode_id] = es
        if self.run.scores_json.is_file():
            try:
                self.run_scores = RunScores.model_validate_json(self.run.scores_json.read_text(encoding="utf-8"))
            except ValidationError as e:
                self.notes.append(f"scores.json does not match the scores model: {e.error_count()} errors")

    def _find_episodes_path(self) -> Path | None:
        c = self.config
        settings = c.get("settings") if isinstance(c.get("settings"), dict) else {}
        names = [c.get("episodes_path"), c.get("episodes"), settings.get("episodes"),
                 self.run_scores.episodes_path if self.run_scores else None]
        for name in names:
            if not isinstance(name, str) or not name:
                continue
            p = Path(name)
            for cand in ([p] if p.is_absolute() else [Path.cwd() / p, self.run.path / p, self.run.path.parent / p]):
                if cand.is_file():
                    return cand
        return None

    def _load_episodes(self) -> None:
        """Gold answers and required evidence; a bad line costs only its own episode."""
        path = self._find_episodes_path()
        self.episodes_path = path
        if path is None:
            self.notes.append("episode file named in run.json not found: gold answers come from the scores only")
            return
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("//"):
                continue
            try:
                ep = Episode.model_validate_json(line)
            except ValidationError:
                self.notes.append(f"{path.name} line {i}: not a valid episode; skipped")
                continue
            self.episodes[ep.id] = ep
