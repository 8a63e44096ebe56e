"""GPU: every quantize_model scheme's layers called from 4 threads at once, each on its own CUDA stream, as the
library's first calls in a fresh process (tests/concurrent_calls.py): kernel loads, plan caches and the C++ entries'
plan tables filled by racing threads, the threads' kernels running side by side. Every output equals its sequential
twin within 1e-3 of the norm (a split reduction may add in another order). Run with `pytest -m gpu`."""
import pytest

from test_concurrent import run_threads

pytestmark = pytest.mark.gpu


def test_threads_on_their_own_streams_match_sequential_calls():
    out = run_threads(4, 3, "cuda", timeout=1500)
    assert out["errors"] == [], out["errors"]
    rows = out["results"]
    assert len(rows) == 4 * 3 * 4 * 12
    bad = [r for r in rows if not r["err"] <= 1e-3]
    assert not bad, bad[:5]
    print(f"{sum(r['equal'] for r in rows)} of {len(rows)} outputs bit-equal to the sequential call")
