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
def _op_cases(device: str = "cpu"):
    """(name, fn, make(m) -> args whose dim 0 is the batch) for each public op, tensors on `device`."""
    import torch

    import cutlass_gemm as cg
    from cutlass_gemm import ops
    from cutlass_gemm.quant import prepack, quantize_weight_only
    torch.manual_seed(0)
    k, n = 256, 136
    on = lambda t: t.to(device)  # noqa: E731
    w8 = on(torch.randint(-127, 127, (n, k), dtype=torch.int8))
    ws, bias = on(torch.rand(1, n) * 0.01), on(torch.randn(n).bfloat16())
    adj = w8.sum(1, dtype=torch.int32).reshape(1, n)
    w_fp8 = on((torch.randn(n, k) * 0.1).to(torch.float8_e4m3fn))
    sb_fp8, sb_int8 = on(torch.rand((n + 127) // 128, k // 128)), on(torch.rand(n, k // 128))
    packed = prepack(quantize_weight_only(torch.randn(128, k), bits=4, group_size=128), device=device)
    x = lambda m: (on(torch.randn(m, k).bfloat16()),)  # noqa: E731
    q8 = lambda m, *more: (on(torch.randint(-127, 127, (m, k), dtype=torch.int8)),  # noqa: E731
                           on(torch.rand(m, 1))) + more
    scale, gamma = on(torch.tensor([0.02])), on(torch.ones(k).bfloat16())
    return [
        ("quantize_per_token", lambda a: cg.quantize_per_token(a, torch.int8), x),
        ("quantize_per_token_asym", cg.quantize_per_token_asym, x),
        ("quantize_per_tensor", lambda a: cg.quantize_per_tensor(a, torch.float8_e4m3fn), x),
        ("quantize_static", lambda a: cg.quantize_static(a, scale, torch.int8), x),
        ("quantize_per_group", lambda a: cg.quantize_per_group(a, 128, torch.int8), x),
        ("rms_norm_quantize", lambda a: cg.rms_norm_quantize(a, gamma, 1e-6, torch.int8), x),
        ("scaled_mm", lambda a, s: cg.scaled_mm(a, w8.t(), s, ws, torch.bfloat16, bias, activation="relu"), q8),
        ("scaled_mm_azp", lambda a, s, z: cg.scaled_mm_azp(a, w8.t(), s, ws, torch.bfloat16, adj, z, bias),
         lambda m: q8(m, on(torch.randint(-5, 5, (m, 1), dtype=torch.int32)))),
        ("w8a8_linear", lambda a: cg.w8a8_linear(a, w8, ws, bias, act="dynamic_asym", azp_adj=adj), x),
        ("scaled_mm_blockwise_int8", lambda a, s: cg.scaled_mm_blockwise_int8(a, w8, s, sb_int8, bias),
         lambda m: (on(torch.randint(-127, 127, (m, k), dtype=torch.int8)), on(torch.rand(m, k // 128)))),
        ("scaled_mm_blockwise", lambda a, s: cg.scaled_mm_blockwise(a, w_fp8.t(), s, sb_fp8, bias),
         lambda m: (on((torch.randn(m, k) * 0.1).to(torch.float8_e4m3fn)), on(torch.rand(m, k // 128)))),
        ("weight_only_linear", lambda a: ops.weight_only_linear(a, packed), x),
    ]


def compile_op_once(case: int, device: str, backend: str, same) -> None:
    """Compiles public op `case` with its batch dimension marked dynamic (every input that carries it) and calls it
    at three batch sizes: one graph (a guard narrowing the batch would fail the compile), outputs `same` as eager."""
    import torch
    cases = _op_cases(device)
    assert len(cases) == 12
    name, fn, make = cases[case]
    torch._dynamo.reset()
    before = torch._dynamo.utils.counters["stats"]["unique_graphs"]
    compiled = torch.compile(fn, fullgraph=True, backend=backend)
    for m in (5, 37, 130):
        args = make(m)
        for a in args:
            torch._dynamo.mark_dynamic(a, 0)
        got, want = compiled(*args), fn(*args)
        got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert (g is None and w is None) or (g.shape == w.shape and g.dtype == w.dtype and same(g, w)), name
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] - before == 1, name


@pytest.mark.parametrize("case", range(12))
def test_ops_compile_once_for_a_marked_dynamic_batch(case):
    """Each public op compiled (aot_eager) with its batch marked dynamic: one graph for three sizes, equal bits."""
    import torch
    compile_op_once(case, "cpu", "aot_eager", torch.equal)


# ------------------------------------------------------------------------------------ torch.export
LAYER_OP = {"w8a8-int8": "w8a8_linear", "w8a8-int8-asym": "w8a8_linear", "w8a8-fp8": "w8a8_linear",
            "fp8-block128": "block_linear", "w8a8-int8-block128": "block_linear", "w4a16": "weight_only_layer",
            "w8a16": "weight_only_layer"}


def export_layers(scheme: str, device: str, same) -> None:
    """torch.export of a quantized MLP (moved to `device` after quantization) with the batch a Dim: the exported
    program holds one layer op per linear layer (nothing of the row rules), and runs two other batch sizes to outputs
    `same` as the eager model's."""
    import torch
    from torch import nn

    import cutlass_gemm.nn as cnn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 256)).to(torch.bfloat16)
    cnn.quantize_model(model, scheme)
    model = model.to(device)
    batch = torch.export.Dim("batch", min=1, max=4096)
    example = torch.randn(8, 256, dtype=torch.bfloat16, device=device)
    ep = torch.export.export(model, (example,), dynamic_shapes=({0: batch},))
    targets = [str(n.target) for n in ep.graph.nodes if n.op == "call_function" and "cutlass_gemm" in str(n.target)]
    assert targets == [f"cutlass_gemm.{LAYER_OP[scheme]}.default"] * 2, targets
    run = ep.module()
    for m in (37, 300):
        x = torch.randn(m, 256, dtype=torch.bfloat16, device=device)
        with torch.no_grad():
            got, want = run(x), model(x)
        assert got.shape == want.shape and got.dtype == want.dtype and same(got, want), (scheme, m)


@pytest.mark.parametrize("scheme", sorted(LAYER_OP))
def test_export_with_a_dynamic_batch_keeps_one_op_per_layer(scheme):
    import torch
    export_layers(scheme, "cpu", torch.equal)


# ------------------------------------------------------------------------------------ AOTInductor
def aoti_layers(device: str, same, tmp_path) -> None:
    """An MLP of the three layer ops (Int8Linear, WeightOnlyLinear int4, Fp8BlockLinear) exported with a dynamic
    batch and compiled ahead of time by AOTInductor into a package: loaded back in this process (where the
    cutlass_gemm ops are registered: the package calls them through the dispatcher), it runs two batch sizes to
    outputs `same` as the eager model's."""
    import torch
    from torch import nn

    import cutlass_gemm.nn as cnn
    torch.manual_seed(0)
    lin = [nn.Linear(256, 512).to(torch.bfloat16), nn.Linear(512, 256).to(torch.bfloat16),
           nn.Linear(256, 136).to(torch.bfloat16)]
    model = nn.Sequential(cnn.Int8Linear.from_float(lin[0]), nn.ReLU(),
                          cnn.WeightOnlyLinear.from_float(lin[1], bits=4, group_size=128),
                          cnn.Fp8BlockLinear.from_float(lin[2])).to(device)
    batch = torch.export.Dim("batch", min=1, max=4096)
    ep = torch.export.export(model, (torch.randn(8, 256, dtype=torch.bfloat16, device=device),),
                             dynamic_shapes=({0: batch},))
    ops = sorted(str(n.target) for n in ep.graph.nodes if n.op == "call_function" and "cutlass_gemm" in str(n.target))
    assert ops == ["cutlass_gemm.block_linear.default", "cutlass_gemm.w8a8_linear.default",
                   "cutlass_gemm.weight_only_layer.default"], ops
    path = torch._inductor.aoti_compile_and_package(ep, package_path=str(tmp_path / "mlp.pt2"))
    run = torch._inductor.aoti_load_package(path)
    for m in (37, 300):
        x = torch.randn(m, 256, dtype=torch.bfloat16, device=device)
        with torch.no_grad():
            got, want = run(x), model(x)
        assert got.shape == want.shape and got.dtype == want.dtype and same(got, want), m


def test_aoti_package_of_the_layers_runs_a_dynamic_batch(tmp_path):
    import torch
    aoti_layers("cpu", torch.equal, tmp_path)
