"""`epi episodes validate` names the episode even on a line that is not valid JSON."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_broken_json_line_names_file_line_and_episode_id(tmp_path: Path) -> None:
    first = (REPO / "episodes" / "sandbox-v1.jsonl").read_text(encoding="utf-8").splitlines()[:2]
    broken = tmp_path / "broken.jsonl"
    second_id = json.loads(first[1])["id"]
    broken.write_text(first[0] + "\n" + first[1][:-3] + "\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "harness", "episodes", "validate", str(broken)],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2
    assert f"{broken}:2: episode {second_id!r}: invalid JSON" in out
    assert "Traceback" not in out
