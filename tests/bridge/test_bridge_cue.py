"""The cue image reaches the program (bytes in the turn line, the same bytes in its scratch folder), sandboxed
or not; a cue that names a file which is not an image (an untrusted episode file pointing at a key beside it) is
refused before the run starts, so the program is handed nothing."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from harness.run_record import RunSetupError

from tests.agents.conftest import agent_config, events, run_agent, write_episodes

from .test_bridge_must_show import SANDBOXES

PROGRAMS = Path(__file__).resolve().parent / "programs"
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082")


def episode(ep_id: str, image: str) -> dict:
    return {"id": ep_id, "split": "easy", "task_type": "comparison", "initiation": "direct_title", "area": "ml",
            "turns": [{"question": "What does the figure show?", "cue": {"image": image},
                       "answer": {"format": "text", "value": "x"}}]}


@pytest.mark.parametrize("sandbox", SANDBOXES)
async def test_the_cue_image_and_nothing_else(sandbox, model_server, api_key_env, tmp_path):
    (tmp_path / "cue.png").write_bytes(PNG)
    (tmp_path / "key.txt").write_text("sk-secret-from-a-file\n")
    srv = model_server([], default={"content": "Final answer: x"})
    cfg = agent_config(srv, api_key_env, agent_cmd=f"python {PROGRAMS / 'echo_cue.py'}", agent_sandbox=sandbox)
    hostile = write_episodes(tmp_path / "hostile.jsonl", [episode("ep-img", "cue.png"), episode("ep-key", "key.txt")])
    with pytest.raises(RunSetupError, match=r"hostile\.jsonl:2: episode 'ep-key': turns\[0\]\.cue\.image: .*not a PNG"):
        await run_agent("bridge", cfg, hostile, tmp_path / "refused")
    assert not any(b"sk-secret" in p.read_bytes() for p in (tmp_path / "refused").rglob("*") if p.is_file())
    eps = write_episodes(tmp_path / "eps.jsonl", [episode("ep-img", "cue.png")])
    summary, rd = await run_agent("bridge", cfg, eps, tmp_path / "res")
    by_id = {o.episode_id: o for o in summary.outcomes}
    assert by_id["ep-img"].answers == [f"image/png {hashlib.sha256(PNG).hexdigest()} True"], events(rd, "ep-img", "error")
