"""torch.compile before any eager call, with a batch that changes (tests/compile_first.py runs in a fresh process):
every quantize_model scheme's layers trace under fullgraph=True without loading the extension at trace time, and
their graphs carry no guard on the batch, the rows or the image sides (the layers' calls are one op each, whose
implementation picks rows, tiles and copies when it runs). CPU, aot_eager; the GPU twin is test_compile_first_gpu.py."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def run_child(device: str, backend: str, mode: str, timeout: int = 900) -> dict:
    """compile_first.py's JSON line from a fresh interpreter (the compile must come before any eager call)."""
    root = os.path.dirname(HERE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p))
    proc = subprocess.run([sys.executable, os.path.join(HERE, "compile_first.py"), device, backend, mode], env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("mode,graphs", [("default", 2), ("marked", 1)])
def test_compiled_first_with_a_changing_batch_matches_eager(mode, graphs):
    out = run_child("cpu", "aot_eager", mode)
    rows = out["results"]
    assert len(rows) == 48  # 12 outputs (9 schemes, 3 with convolutions) x 4 calls
    bad = [r for r in rows if not (r["shape_ok"] and r["finite"] and r["rel_err"] == 0.0)]
    assert not bad, bad[:5]  # the same float references run compiled and eager on the CPU: equal bits
    # default: the first sizes, then one graph with them symbolic; marked: symbolic from the start
    assert out["graphs"] == graphs, out["graphs"]


# ------------------------------------------------------------------------------------ the layers' ops
def _layer_op_cases():
    """(op, args, opcheck utils) of each layer's op, its arguments as the layer passes them (CPU)."""
    import torch
    from torch import nn

    import cutlass_gemm.nn as cnn
    torch.manual_seed(0)
    lin = nn.Linear(256, 96).to(torch.bfloat16)
    x = torch.randn(3, 5, 256, dtype=torch.bfloat16)
    ops = torch.ops.cutlass_gemm
    all_utils = ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")
    cases = []
    for act in ("dynamic", "dynamic_asym"):
        layer = cnn.Int8Linear.from_float(lin, act=act, activation="relu")
        b = layer._buffers
        cases.append((ops.w8a8_linear.default, (x, b["weight"], b["weight_scale"], b["bias"], act, None, None,
                                                b.get("azp_adj"), torch.bfloat16, "relu"), all_utils))
    cal = cnn.Fp8Linear.from_float(lin, act="static", calibration_data=[x])._buffers
    cases.append((ops.w8a8_linear.default, (x.float(), cal["weight"], cal["weight_scale"], cal["bias"], "static",
                                            cal["input_scale"], None, None, torch.bfloat16, "none"), all_utils[1:]))
    blk = cnn.Int8BlockLinear.from_float(lin, block_size=64)._buffers
    cases.append((ops.block_linear.default, (x, blk["weight"], blk["weight_scale"], blk["bias"], torch.bfloat16,
                                             "silu", 64, False), all_utils))
    fp8 = cnn.Fp8BlockLinear.from_float(nn.Linear(256, 136).to(torch.bfloat16))._buffers
    # test_schema perturbs the inputs with `mul`, which CPU float8 tensors do not implement
    cases.append((ops.block_linear.default, (x, fp8["weight"], fp8["weight_scale"], fp8["bias"], torch.bfloat16,
                                             "none", 128, True), all_utils[1:]))
    wo = cnn.WeightOnlyLinear.from_float(lin, bits=4, group_size=128)._buffers
    cases.append((ops.weight_only_layer.default, (x, wo["qweight"], wo["scales"], None, wo["bias"], None, None, None,
                                                  None, None, None, 4, 128, 96, torch.bfloat16), all_utils))
    nhwc = torch.randn(2, 5, 3, 64, dtype=torch.bfloat16)
    cases.append((ops.quantize_static_nhwc.default, (nhwc, torch.tensor([0.02])), all_utils))
    return cases


def test_layer_ops_pass_opcheck():
    import torch
    cases = _layer_op_cases()
    assert len(cases) == 7
    for op, args, utils in cases:
        torch.library.opcheck(op, args, test_utils=utils)


# ------------------------------------------------------------------------------------ the ops, batch marked dynamic
def _op_cases():
    """(name, fn, make(m) -> args whose dim 0 is the batch) for each public op, CPU tensors."""
    import torch

    import cutlass_gemm as cg
    from cutlass_gemm import ops
    from cutlass_gemm.quant import prepack, quantize_weight_only
    torch.manual_seed(0)
    k, n = 256, 136
    w8 = torch.randint(-127, 127, (n, k), dtype=torch.int8)
    ws, bias = torch.rand(1, n) * 0.01, torch.randn(n).bfloat16()
    adj = w8.sum(1, dtype=torch.int32).reshape(1, n)
    w_fp8 = (torch.randn(n, k) * 0.1).to(torch.float8_e4m3fn)
    sb_fp8, sb_int8 = torch.rand((n + 127) // 128, k // 128), torch.rand(n, k // 128)
    packed = prepack(quantize_weight_only(torch.randn(128, k), bits=4, group_size=128))
    x = lambda m: (torch.randn(m, k).bfloat16(),)  # noqa: E731
    q8 = lambda m, *more: (torch.randint(-127, 127, (m, k), dtype=torch.int8), torch.rand(m, 1)) + more  # noqa: E731
    return [
        ("quantize_per_token", lambda a: cg.quantize_per_token(a, torch.int8), x),
        ("quantize_per_token_asym", cg.quantize_per_token_asym, x),
        ("quantize_per_tensor", lambda a: cg.quantize_per_tensor(a, torch.float8_e4m3fn), x),
        ("quantize_static", lambda a: cg.quantize_static(a, torch.tensor([0.02]), torch.int8), x),
        ("quantize_per_group", lambda a: cg.quantize_per_group(a, 128, torch.int8), x),
        ("rms_norm_quantize", lambda a: cg.rms_norm_quantize(a, torch.ones(k).bfloat16(), 1e-6, torch.int8), x),
        ("scaled_mm", lambda a, s: cg.scaled_mm(a, w8.t(), s, ws, torch.bfloat16, bias, activation="relu"), q8),
        ("scaled_mm_azp", lambda a, s, z: cg.scaled_mm_azp(a, w8.t(), s, ws, torch.bfloat16, adj, z, bias),
         lambda m: q8(m, torch.randint(-5, 5, (m, 1), dtype=torch.int32))),
        ("w8a8_linear", lambda a: cg.w8a8_linear(a, w8, ws, bias, act="dynamic_asym", azp_adj=adj), x),
        ("scaled_mm_blockwise_int8", lambda a, s: cg.scaled_mm_blockwise_int8(a, w8, s, sb_int8, bias),
         lambda m: (torch.randint(-127, 127, (m, k), dtype=torch.int8), torch.rand(m, k // 128))),
        ("scaled_mm_blockwise", lambda a, s: cg.scaled_mm_blockwise(a, w_fp8.t(), s, sb_fp8, bias),
         lambda m: ((torch.randn(m, k) * 0.1).to(torch.float8_e4m3fn), torch.rand(m, k // 128))),
        ("weight_only_linear", lambda a: ops.weight_only_linear(a, packed), x),
    ]


@pytest.mark.parametrize("case", range(12))
def test_ops_compile_once_for_a_marked_dynamic_batch(case):
    """Each public op compiled with its batch dimension marked dynamic (every input that carries it): one graph for
    three batch sizes (a guard narrowing the batch would fail the compile), equal to the eager call."""
    import torch
    cases = _op_cases()
    assert len(cases) == 12
    name, fn, make = cases[case]
    torch._dynamo.reset()
    before = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    compiled = torch.compile(fn, fullgraph=True, backend="aot_eager")
    for m in (5, 37, 130):
        args = make(m)
        for a in args:
            torch._dynamo.mark_dynamic(a, 0)
        got, want = compiled(*args), fn(*args)
        got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert (g is None and w is None) or torch.equal(g, w), name
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] - before == 1, name


# ------------------------------------------------------------------------------------ torch.export
LAYER_OP = {"w8a8-int8": "w8a8_linear", "w8a8-int8-asym": "w8a8_linear", "w8a8-fp8": "w8a8_linear",
            "fp8-block128": "block_linear", "w8a8-int8-block128": "block_linear", "w4a16": "weight_only_layer",
            "w8a16": "weight_only_layer"}


@pytest.mark.parametrize("scheme", sorted(LAYER_OP))
def test_export_with_a_dynamic_batch_keeps_one_op_per_layer(scheme):
    """torch.export of a quantized MLP with the batch a Dim: the exported program holds one layer op per linear layer
    (nothing of the row rules), and runs another batch size to the eager model's bits."""
    import torch
    from torch import nn

    import cutlass_gemm.nn as cnn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 256)).to(torch.bfloat16)
    cnn.quantize_model(model, scheme)
    batch = torch.export.Dim("batch", min=1, max=4096)
    ep = torch.export.export(model, (torch.randn(8, 256, dtype=torch.bfloat16),), dynamic_shapes=({0: batch},))
    targets = [str(n.target) for n in ep.graph.nodes if n.op == "call_function" and "cutlass_gemm" in str(n.target)]
    assert targets == [f"cutlass_gemm.{LAYER_OP[scheme]}.default"] * 2, targets
    x = torch.randn(37, 256, dtype=torch.bfloat16)
    assert torch.equal(ep.module()(x), model(x))
