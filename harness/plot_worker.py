"""A process started with a run that scores it and draws its plots, so both are off the run's critical path.

Why: scoring cost a run's process ~1 s of imports (pint, the scorer) and ~2 s of matplotlib, all competing
with the episodes for the GIL, then ~1.3 s of scoring and drawing after the last episode before `epi run`
could print its scores and exit. The worker does the imports in its own process while the episodes wait
on the model; the run tells it each episode that finished, and the worker scores it at once
(`scoring.prescore.Prescored`, used while the trace is unchanged). After the last episode the run asks
the worker to score the run: the worker writes scores.json, episode_scores.jsonl and report.md (which names
the plots, `scoring/run_plots.py`), answers, and only then draws the plots (each PNG written whole) while
the run prints its summary from scores.json and exits.

While it draws, `plots/.drawing` holds its pid; `wait_for_plots` (the viewer, tests) waits until the
file is gone or the process is. If the worker cannot start, has died or does not answer, the run scores
and draws in its own process, as before. The worker reads only what `epi score` reads (the run folder and
the episode file run.json names). It lives outside `harness.scoring`, so that starting it costs the run's
process no import of the scoring package. Protocol: one JSON object a line each way.
"""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

MARKER = ".drawing"
READY_TIMEOUT_S = 30.0  # a worker slower than this to start: the run scores and draws in its own process
SEND_TIMEOUT_S = 10.0  # a worker that reads no input for this long is taken as gone
SCORE_TIMEOUT_S = 900.0  # scoring a run that takes longer than this (a huge one on a busy machine): done in process


class WorkerScoringError(Exception):
    """The worker scored the run and scoring refused it (the message is ScoringError's)."""


class PlotWorker:
    """The run's handle: start it early, tell it each finished episode, ask it to score each run, then close."""

    def __init__(self, proc: subprocess.Popen[bytes]):
        self.proc = proc
        self._ready = False
        self._broken = False

    @classmethod
    def start(cls) -> "PlotWorker | None":
        try:
            proc = subprocess.Popen([sys.executable, "-m", "harness.plot_worker"], stdin=subprocess.PIPE, bufsize=0,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    start_new_session=True)  # a Ctrl-C at the terminal does not cut a plot in half
        except OSError:
            return None
        return cls(proc)

    def alive(self) -> bool:
        return (not self._broken and self.proc.poll() is None and self.proc.stdin is not None
                and not self.proc.stdin.closed)

    def _reply(self, timeout_s: float) -> dict[str, Any] | None:
        out = self.proc.stdout
        if out is None or out.closed:
            return None
        readable, _, _ = select.select([out], [], [], timeout_s)
        line = out.readline() if readable else b""
        try:
            reply = json.loads(line) if line else None
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            self._broken = True  # silent, dead or garbled: never asked again
            return None
        return reply

    def ready(self, timeout_s: float = READY_TIMEOUT_S) -> bool:
        """Whether the worker has its imports done (it says so once); waits for it at most `timeout_s`."""
        if not self._ready and self.alive():
            self._ready = (self._reply(timeout_s) or {}).get("ready") is True
        return self._ready and self.alive()

    def _send(self, msg: dict[str, Any], droppable: bool = False) -> bool:
        """Write one line. The pipe never blocks the run: a note (`droppable`) that does not fit is dropped (the
        episode is scored at the end instead); a line already begun, or a request, waits for room a while."""
        if not self.alive():
            return False
        stdin = self.proc.stdin
        assert stdin is not None
        data = memoryview(json.dumps(msg).encode("utf-8") + b"\n")
        whole = len(data)
        try:
            os.set_blocking(stdin.fileno(), False)
            while data:  # unbuffered and non-blocking: a write may take part of it, or nothing
                try:
                    n = stdin.write(data)
                except BlockingIOError:
                    n = None
                if n:
                    data = data[n:]
                    continue
                if droppable and len(data) == whole:  # nothing of it written: the protocol stays whole
                    return False
                if not select.select([], [stdin], [], SEND_TIMEOUT_S)[1]:
                    raise OSError("the scoring worker takes no input")
        except (OSError, ValueError):
            self._broken = True
            return False
        return True

    def finished(self, run_dir: Path, episode_id: str, epoch: int) -> None:
        """An episode's trace is final: the worker scores it now (a note in a pipe; never waits)."""
        self._send({"op": "finished", "run": str(Path(run_dir).resolve()), "episode": episode_id, "epoch": epoch},
                   droppable=True)

    def score(self, run_dir: Path) -> bool:
        """Have the worker score the run and write its files (plots after it answers). True when it did; False when
        it could not (score in process instead); WorkerScoringError when scoring refused the run."""
        plots_dir = Path(run_dir).resolve() / "plots"
        if not self.ready() or not self._send({"op": "score", "run": str(plots_dir.parent)}):
            return False
        reply = self._reply(SCORE_TIMEOUT_S)
        if reply is None:
            return False
        if reply.get("error"):
            raise WorkerScoringError(str(reply["error"]))
        return reply.get("scored") is True

    def submit(self, plots_dir: Path) -> bool:
        """Hand over a run scored in this process; False if the worker cannot take it (draw the plots yourself)."""
        if not self.ready():
            return False
        _mark(plots_dir, self.proc.pid)
        if not self._send({"op": "plots", "run": str(Path(plots_dir).resolve().parent)}):
            (plots_dir / MARKER).unlink(missing_ok=True)
            return False
        return True

    def close(self) -> None:
        """No more runs: the worker draws what it was given and exits (nobody waits for it)."""
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None and not f.closed:
                try:
                    f.close()
                except OSError:
                    pass


def _mark(plots_dir: Path, pid: int) -> None:
    plots_dir.mkdir(parents=True, exist_ok=True)
    (plots_dir / MARKER).write_text(str(pid), encoding="utf-8")


def _pid_alive(pid: int) -> bool:
    """runlock's liveness test, and not a zombie: a finished, unreaped child of this process draws nothing."""
    from .runlock import _pid_alive as exists  # imported when first needed, not at the worker's start-up

    if not exists(pid):
        return False
    try:  # a finished child of this very process, not yet reaped, is a zombie: not drawing any more
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def wait_for_plots(run_dir: Path, timeout_s: float = 60.0) -> bool:
    """Wait until no plot worker is drawing this run's plots; True when none is (a stale mark is removed)."""
    marker = Path(run_dir) / "plots" / MARKER
    end = time.monotonic() + timeout_s
    while True:
        try:
            pid = int(marker.read_text(encoding="utf-8").strip() or 0)
        except (OSError, ValueError):
            return not marker.exists()
        if not pid or not _pid_alive(pid):
            marker.unlink(missing_ok=True)
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.05)


class _Later:
    """The worker's own plotter for score_run: plots are queued and drawn after the run has its answer."""

    def __init__(self) -> None:
        self.queue: list[Path] = []

    def submit(self, plots_dir: Path) -> bool:
        _mark(plots_dir, os.getpid())
        self.queue.append(plots_dir)
        return True


class _Worker:
    def __init__(self) -> None:
        from harness.scoring.prescore import Prescored

        self.prescored: dict[str, Prescored] = {}
        self.episode_sets: dict[str, Any] = {}

    def _episode_set(self, run: str) -> Any:
        if run not in self.episode_sets:
            from harness.rundir import RunDir
            from harness.scoring.run import load_run_config, resolve_episodes

            rd = RunDir(run)
            self.episode_sets[run] = resolve_episodes(rd, load_run_config(rd), None, False)[0]
        return self.episode_sets[run]

    def finished(self, run: str, episode_id: str, epoch: int) -> None:
        from harness.rundir import RunDir
        from harness.scoring.prescore import Prescored

        ep = self._episode_set(run).get(episode_id)
        if ep is not None:
            self.prescored.setdefault(run, Prescored()).add(RunDir(run), ep, epoch)

    def score(self, run: str) -> tuple[dict[str, Any], list[Path]]:
        from harness.scoring.run import ScoringError, score_run

        later = _Later()
        try:
            try:
                eset = self._episode_set(run)
            except ScoringError:
                eset = None  # score_run reads it again and says what is wrong
            score_run(Path(run), plotter=later, prescored=self.prescored.get(run), episode_set=eset)  # type: ignore[arg-type]
        except ScoringError as e:
            return {"error": str(e)}, later.queue
        return {"scored": True}, later.queue


def _draw(plots_dir: Path) -> None:
    from harness.scoring.plots import plot_run
    from harness.scoring.run import read_episode_scores, read_run_scores

    run = plots_dir.parent
    try:
        plot_run(read_run_scores(run), read_episode_scores(run), plots_dir)
    finally:
        (plots_dir / MARKER).unlink(missing_ok=True)


def _answer(msg: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def main() -> None:
    from harness.scoring import plots, run  # noqa: F401 - scorer and matplotlib, imported while the episodes run
    from harness.scoring.units import preload_units

    preload_units()
    worker = _Worker()
    _answer({"ready": True})
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
            op, run_dir = msg["op"], str(msg["run"])
        except (ValueError, KeyError, TypeError):
            continue
        try:
            if op == "finished":
                worker.finished(run_dir, str(msg["episode"]), int(msg["epoch"]))
            elif op == "score":
                try:
                    reply, queue = worker.score(run_dir)
                except Exception as e:  # noqa: BLE001 - the run scores in its own process and reports it there
                    reply, queue = {"failed": f"{type(e).__name__}: {e}"}, []
                _answer(reply)
                for plots_dir in queue:
                    _draw(plots_dir)
            elif op == "plots":
                _draw(Path(run_dir) / "plots")
        except Exception:  # noqa: BLE001 - one run's trouble leaves the next one's work to do; `epi score` redoes it
            pass


if __name__ == "__main__":
    main()
