"""Layers called from several threads at once (tests/concurrent_calls.py, a child process, so that the threads' calls
are the library's first): every quantize_model scheme's outputs equal their sequential twins. CPU: the float
references, bit for bit; the GPU twin, each thread on its own stream, is test_concurrent_gpu.py."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run_threads(threads: int, rounds: int, device: str, timeout: int = 900) -> dict:
    """concurrent_calls.py's JSON line from a fresh interpreter."""
    root = os.path.dirname(HERE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p))
    proc = subprocess.run([sys.executable, os.path.join(HERE, "concurrent_calls.py"), str(threads), str(rounds),
                           device], env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_threads_calling_every_scheme_at_once_match_sequential_calls():
    out = run_threads(4, 2, "cpu")
    assert out["errors"] == []
    rows = out["results"]
    assert len(rows) == 4 * 2 * 4 * 12  # threads x rounds x calls x outputs (9 schemes, 3 with convolutions)
    assert all(r["equal"] for r in rows), [r for r in rows if not r["equal"]][:5]
