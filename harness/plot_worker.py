"""A process started with a run that draws its plots, so drawing is off the run's critical path.

Why: matplotlib costs a run ~2 s of CPU (its import, in the run's process while episodes wait on the
model, competing with them for the GIL) and ~1.5 s of drawing after the last episode, before `epi run`
could print its scores and exit. The worker imports matplotlib in its own process while the episodes
run; at the end the run writes scores.json, episode_scores.jsonl and report.md (which names the plots,
`run_plots.planned_plots`), hands the worker the run folder and exits; the worker draws the plots from
those files, each written whole (a reader never sees half an image), and exits.

While it draws, `plots/.drawing` holds its pid; `wait_for_plots` (the viewer, tests) waits until the
file is gone or the process is. If the worker cannot start or has died, the run draws the plots itself,
as before. The worker trusts nothing it reads more than `epi score` does: it reads the same files.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

MARKER = ".drawing"
READY_TIMEOUT_S = 30.0  # a worker slower than this to import matplotlib: the run draws the plots itself


class PlotWorker:
    """The parent's handle: start it early, `submit` each scored run, `close` when no more will come."""

    def __init__(self, proc: subprocess.Popen[bytes]):
        self.proc = proc
        self._ready = False

    @classmethod
    def start(cls) -> "PlotWorker | None":
        try:
            proc = subprocess.Popen([sys.executable, "-m", "harness.plot_worker"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    start_new_session=True)  # a Ctrl-C at the terminal does not cut a plot in half
        except OSError:
            return None
        return cls(proc)

    def alive(self) -> bool:
        return self.proc.poll() is None and self.proc.stdin is not None and not self.proc.stdin.closed

    def ready(self, timeout_s: float = READY_TIMEOUT_S) -> bool:
        """Whether the worker has its imports done (it says so on its stdout); waits for it at most `timeout_s`."""
        if self._ready:
            return True
        import select

        out = self.proc.stdout
        if out is None or not self.alive():
            return False
        readable, _, _ = select.select([out], [], [], timeout_s)
        self._ready = bool(readable) and out.readline() == b"ready\n"
        return self._ready

    def submit(self, plots_dir: Path) -> bool:
        """Hand over a run whose scores are written; False if the worker cannot take it (draw it yourself)."""
        if not self.ready():
            return False
        plots_dir.mkdir(parents=True, exist_ok=True)
        marker = plots_dir / MARKER
        marker.write_text(str(self.proc.pid), encoding="utf-8")
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(os.fsencode(str(plots_dir.resolve())) + b"\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            marker.unlink(missing_ok=True)
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


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
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


def _draw(plots_dir: Path) -> None:
    from harness.scoring.plots import plot_run
    from harness.scoring.run import read_episode_scores, read_run_scores

    run = plots_dir.parent
    try:
        plot_run(read_run_scores(run), read_episode_scores(run), plots_dir)
    finally:
        (plots_dir / MARKER).unlink(missing_ok=True)


def main() -> None:
    from harness.scoring import plots, run  # noqa: F401 - matplotlib, imported while the run's episodes wait on the model

    sys.stdout.write("ready\n")
    sys.stdout.flush()
    for line in sys.stdin.buffer:
        path = line.rstrip(b"\n")
        if not path:
            continue
        try:
            _draw(Path(os.fsdecode(path)))
        except Exception:  # noqa: BLE001 - one run's plots failing leaves the next run's to draw; `epi score` redraws
            pass


if __name__ == "__main__":
    main()
