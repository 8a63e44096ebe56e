"""GPU: torch.compile (Inductor) before any eager call, with a batch that changes, in a fresh process
(tests/compile_first.py): every quantize_model scheme's layers, moved to the GPU after quantization, trace under
fullgraph=True, carry no guard on the batch, the rows or the image sides (one graph for the first sizes and one
symbolic; one in all when the sizes are marked dynamic first, as vLLM marks its token dimension), replay from CUDA
graphs under mode="reduce-overhead", and equal the eager model's outputs. Also, as the CPU tests do: the public ops
compiled by Inductor with their batch marked dynamic (one graph for three sizes), torch.export of the quantized layers
on the GPU (one op per layer, other batch sizes run), and an AOTInductor package of the three layer ops. Run with
`pytest -m gpu`."""
import pytest

from test_compile_first import LAYER_OP, compile_op_once, export_layers, run_child

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


def _close(got, want) -> bool:
    """Integer outputs (quantized values, zero points) bit for bit; float ones within 1e-3 of the largest |eager|
    (the same kernels on the same tensors; a split reduction may add in another order)."""
    import torch
    if not got.dtype.is_floating_point or got.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        return torch.equal(got.view(torch.uint8) if got.element_size() == 1 else got,
                           want.view(torch.uint8) if want.element_size() == 1 else want)
    g, w = got.double(), want.double()
    return bool(torch.isfinite(g).all()) and float((g - w).abs().max()) <= 1e-3 * max(float(w.abs().max()), 1e-30)


@pytest.mark.parametrize("case", range(12))
def test_ops_compile_once_for_a_marked_dynamic_batch_inductor(case):
    compile_op_once(case, "cuda", "inductor", _close)


@pytest.mark.parametrize("scheme", sorted(LAYER_OP))
def test_export_on_the_gpu_keeps_one_op_per_layer(scheme):
    export_layers(scheme, "cuda", _close)


def test_aoti_package_of_the_layers_runs_a_dynamic_batch_gpu(tmp_path):
    """In a child process (tests/aoti_package.py): a package of plain torch layers first, then the three layer ops'
    package (aoti_layers). Skipped, with the reason, only where the plain package fails too: on the H200 machines'
    torch 2.11.0+cu130 AOTInductor's loader crashes on any CUDA package (session 66, call 2)."""
    import json
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p))
    proc = subprocess.run([sys.executable, os.path.join(here, "aoti_package.py"), "cuda", str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=900)
    steps = [json.loads(line)["step"] for line in proc.stdout.splitlines() if line.startswith("{")]
    if "plain" not in steps:
        how = f"crashed, signal {-proc.returncode}" if proc.returncode < 0 else f"exit status {proc.returncode}"
        error = [line for line in proc.stderr.splitlines() if "Error" in line or "error" in line][-1:]
        pytest.skip(f"AOTInductor cannot run a CUDA package of plain torch layers here ({how}) {error}")
    assert proc.returncode == 0 and steps == ["plain", "layers"], proc.stderr[-4000:]
