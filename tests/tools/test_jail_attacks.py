"""Issue 12 reproduced: the escapes found against the audit-hook jail (these fail before the bubblewrap jail)."""
import os, sys, glob
from pathlib import Path
import pytest
from sandbox.jail import JailLimits, run_python

FAST = JailLimits(cpu_seconds=2, wall_seconds=6, memory_mb=512, file_mb=1, max_output_chars=8000)
BYPASS = '''
import subprocess, sys
class _S:
    def __getattr__(self, n): return getattr(sys, n)
    def audit(self, *a): pass
subprocess.sys = _S()
def child(src):
    r = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True)
    print("child:", r.returncode, r.stdout, r.stderr)
'''

@pytest.fixture
def secret(tmp_path):
    p = tmp_path / "secret.txt"
    p.write_text("TOPSECRET-1234")
    return p

def test_fork_exec_child_reads_a_secret(secret):
    r = run_python(BYPASS + f"child({f'print(open({str(secret)!r}).read())'!r})", FAST)
    print(r)
    assert "TOPSECRET-1234" not in r.stdout + r.stderr

def test_fork_exec_child_writes_outside(tmp_path):
    target = tmp_path / "escaped.txt"
    r = run_python(BYPASS + f"child({f'open({str(target)!r}, chr(119)).write(chr(120))'!r})", FAST)
    print(r)
    assert not target.exists()

def test_sqlite_creates_file_outside(tmp_path):
    target = tmp_path / "db.sqlite"
    r = run_python(f"import sqlite3\nc = sqlite3.connect({str(target)!r})\nc.execute('create table t(x)')\nc.commit()", FAST)
    print(r)
    assert not target.exists()

def test_editable_finder_names_the_checkout():
    r = run_python("import glob, sys, sysconfig\nfor f in glob.glob(sysconfig.get_paths()['purelib'] + '/__editable__*finder*.py'):\n    print(open(f).read()[:3000])", FAST)
    assert str(Path(__file__).resolve().parent) not in r.stdout and str(Path(__file__).resolve().parents[2]) not in r.stdout

def test_answer_key_readable():
    gt = Path(__file__).resolve().parents[2] / "sandbox" / "build" / "ground_truth.json"
    assert gt.exists()
    r = run_python(BYPASS + f"child({f'print(open({str(gt)!r}).read()[:200])'!r})", FAST)
    print(r.stdout[:300])
    assert '"papers"' not in r.stdout and "child: 0" not in r.stdout
