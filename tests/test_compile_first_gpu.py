"""GPU: torch.compile (Inductor) before any eager call, with a batch that changes, in a fresh process
(tests/compile_first.py): every quantize_model scheme's layers, moved to the GPU after quantization, trace under
fullgraph=True, carry no guard on the batch, the rows or the image sides (one graph for the first sizes and one
symbolic; one in all when the sizes are marked dynamic first, as vLLM marks its token dimension), replay from CUDA
graphs under mode="reduce-overhead", and equal the eager model's outputs. Run with `pytest -m gpu`."""
import pytest

from test_compile_first import run_child

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("mode,graphs", [("default", 2), ("marked", 1), ("reduce-overhead", 2)])
def test_compiled_first_with_a_changing_batch_matches_eager(mode, graphs):
    out = run_child("cuda", "inductor", mode, timeout=1500)
    rows = out["results"]
    assert len(rows) == 48
    for r in rows:
        print(mode, r)
    # each layer's op runs the eager call's kernels on the same tensors: equal up to a reduction order
    bad = [r for r in rows if not (r["shape_ok"] and r["finite"] and r["rel_err"] <= 1e-3)]
    assert not bad, bad[:5]
    assert out["graphs"] == graphs, out["graphs"]
