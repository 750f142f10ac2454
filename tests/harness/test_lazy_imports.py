"""Start-up stays light: `epi --help` and a run's set-up load none of the heavy libraries.

Torch, the PDF engine, plotting, the vector index and the embedder each cost from a few hundred
milliseconds to seconds and up to 500 MB; they load where they are used (a tool call, a chart, a
corpus build). Checked in a fresh interpreter, since this test process has imported them already.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEAVY = ["torch", "sentence_transformers", "transformers", "onnxruntime", "tokenizers", "pymupdf", "matplotlib",
         "faiss", "bm25s", "scipy", "numpy"]


def _loaded_after(code: str) -> list[str]:
    probe = code + f"\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_cli_loads_no_heavy_library():
    assert _loaded_after("import harness.cli") == []


def test_help_renders_without_heavy_libraries():
    code = ("import sys\nsys.argv = ['epi', '--help']\nimport harness.cli\n"
            "try:\n    harness.cli.main()\nexcept SystemExit:\n    pass")
    assert _loaded_after(code) == []


def test_a_runs_set_up_loads_tools_and_world_but_not_their_engines(tiny_sandbox):
    """Loading every tool and opening the sandbox world (what happens before the first model request)."""
    code = (f"import os\nos.environ['EPI_SANDBOX_DIR'] = {str(tiny_sandbox)!r}\n"
            "import harness.cli\nfrom tools.registry import ALL_TOOLS, get_tool\n"
            "tools = [get_tool(n) for n in ALL_TOOLS]\n"
            "from sandbox.world import SandboxWorld\nworld = SandboxWorld()\n")
    assert _loaded_after(code) == []
