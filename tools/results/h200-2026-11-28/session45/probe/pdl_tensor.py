"""Session 45 probe: what a programmatic dependent launch is worth to the per-tensor scale GEMM kernels (generator 5:
their scalar read after the mainloop), and (corrected) to the persistent mixed-input kernels.

`chains`: 8 W8A8 layers of width N = K (each reading the last one's bf16 output; the extension's quant kernel, then
the GEMM) per scheme, M rows; one CUDA graph captured with the kernel libraries' programmatic launches on, one with
them off (runtime/loader.set_programmatic_launch while capturing; the extension's quant kernels stay as they are in
both), and the bf16 F.linear chain; the graphs' replays alternate for 15 rounds (each behind a sleep, events),
medians per layer. Schemes: Int8Linear static and dynamic_per_tensor (the int8 per-tensor x per-channel kernels, plain
before generator 5), Int8Linear dynamic (per-token kernels, programmatic since generator 4: the reference gain).
`gemm`: fp8 scaled_mm with both scales per-tensor (the tensor_tensor kernels) and with per-token x per-channel ones,
20 calls per graph on rotating weights, on vs off, torch._scaled_mm tensorwise beside.
`mixed`: session 44's mixed-input probe had its plain row wrong (it switched the launches off only while picking the
next layer, not while calling it): WeightOnlyLinear at 1024-4096 rows (cutlass_mixed backend), graphs on vs off.
"""
import json
import sys

import torch
import torch.nn.functional as F

sys.path[:0] = ["tools", "tools/results/h200-2026-11-28/session44/probe"]
from bench_common import L2_BYTES, copies_for  # noqa: E402
# session 44's helpers: graph_of(fn, calls, pdl) captures `calls` calls with the kernel libraries' programmatic
# launches on or off; alternate(graphs) times their replays in alternation (medians, us per replay)
from pdl_conv import alternate, graph_of  # noqa: E402

import cutlass_gemm  # noqa: E402
from cutlass_gemm.nn import Fp8Linear, Int8Linear, WeightOnlyLinear  # noqa: E402
from cutlass_gemm.ops import gemm, weight_only_backend  # noqa: E402


def chains(out):
    rows = []
    depth = 8
    for width in (4096, 8192):
        lins = []
        g = torch.Generator(device="cuda").manual_seed(0)
        for _ in range(depth):
            lin = torch.nn.Linear(width, width, device="cuda", dtype=torch.bfloat16)
            with torch.no_grad():
                lin.weight.copy_(torch.randn(width, width, generator=g, device="cuda") / width ** 0.5)
            lins.append(lin)
        for m in (32, 128, 512, 2048):
            x = torch.randn(m, width, device="cuda", generator=g).bfloat16()

            def run_of(layers):
                def run():
                    y = x
                    for layer in layers:
                        y = layer(y)
                    return y
                return run
            base = graph_of(run_of([lambda y, l=l: F.linear(y, l.weight, l.bias) for l in lins]), 1, True)
            for name, cls, act in (("int8 static", Int8Linear, "static"),
                                   ("int8 dynamic_per_tensor", Int8Linear, "dynamic_per_tensor"),
                                   ("int8 dynamic per-token", Int8Linear, "dynamic"),
                                   ("fp8 static", Fp8Linear, "static")):
                cal = [x] if act == "static" else None
                layers = [cls.from_float(l, act=act, calibration_data=cal) for l in lins]
                run = run_of(layers)
                want = run()
                on, off = graph_of(run, 1, True), graph_of(run, 1, False)
                t_on, t_off, t_bf = alternate([on, off, base])
                row = {"width": width, "m": m, "scheme": name, "pdl_us_per_layer": round(t_on / depth, 2),
                       "plain_us_per_layer": round(t_off / depth, 2), "bf16_us_per_layer": round(t_bf / depth, 2),
                       "plain_per_pdl": round(t_off / t_on, 4), "x_bf16_pdl": round(t_bf / t_on, 3),
                       "x_bf16_plain": round(t_bf / t_off, 3)}
                lib, sa, sb = gemm.select_kernel(90, "scaled_bias", "int8" if cls is Int8Linear else "e4m3", "bf16",
                                                 "token" if act == "dynamic" else "tensor", "channel", m, n=width)
                row["kernel"] = lib.config.name if m > 16 else "gemv"
                on.replay()
                torch.cuda.synchronize()
                row["graph_equals_eager"] = bool(torch.equal(run(), want))
                rows.append(row)
                print(json.dumps(row), flush=True)
                del layers, on, off
            del base
            torch.cuda.empty_cache()
    json.dump(rows, open(out, "w"), indent=1)


def gemm_rows(out):
    rows = []
    for m, n, k in [(128, 8192, 8192), (512, 8192, 8192), (2048, 8192, 8192), (4096, 4096, 4096), (512, 4096, 14336),
                    (2048, 28672, 4096)]:
        g = torch.Generator(device="cuda").manual_seed(1)
        copies = copies_for(n * k, target=4 * L2_BYTES, lo=2, hi=8)
        a = (torch.randn(m, k, device="cuda", generator=g)).to(torch.float8_e4m3fn)
        ws = [(torch.randn(n, k, device="cuda", generator=g)).to(torch.float8_e4m3fn) for _ in range(copies)]
        bias = torch.randn(n, device="cuda", generator=g).bfloat16()
        s1, s2 = torch.tensor([0.02], device="cuda"), torch.tensor([0.03], device="cuda")
        sa, sb = torch.rand(m, 1, device="cuda") * 0.02, torch.rand(1, n, device="cuda") * 0.02
        for kind, (x1, x2) in (("per-tensor", (s1, s2)), ("per-token x per-channel", (sa, sb))):
            def ours():
                for w in ws:
                    cutlass_gemm.scaled_mm(a, w.t(), x1, x2, torch.bfloat16, bias)

            def theirs():
                for w in ws:
                    torch._scaled_mm(a, w.t(), scale_a=x1, scale_b=x2, bias=bias, out_dtype=torch.bfloat16)
            calls = 20 // copies + 1
            on, off, th = graph_of(ours, calls, True), graph_of(ours, calls, False), graph_of(theirs, calls, True)
            t_on, t_off, t_th = (t / (calls * copies) for t in alternate([on, off, th]))
            row = {"m": m, "n": n, "k": k, "scales": kind, "pdl_us": round(t_on, 2), "plain_us": round(t_off, 2),
                   "torch_scaled_mm_us": round(t_th, 2), "plain_per_pdl": round(t_off / t_on, 4),
                   "x_torch_pdl": round(t_th / t_on, 3), "x_torch_plain": round(t_th / t_off, 3)}
            rows.append(row)
            print(json.dumps(row), flush=True)
            del on, off, th
        del ws
        torch.cuda.empty_cache()
    json.dump(rows, open(out, "w"), indent=1)


def mixed(out):
    rows = []
    for m, n, k in [(1024, 8192, 8192), (2048, 8192, 8192), (4096, 8192, 8192), (2048, 28672, 4096)]:
        x = torch.randn(m, k, device="cuda").bfloat16()
        lin = torch.nn.Linear(k, n, device="cuda", dtype=torch.bfloat16)
        for bits, group in ((4, 128), (8, None)):
            copies = copies_for(n * k * bits // 8, target=4 * L2_BYTES, lo=2, hi=12)
            lays = [WeightOnlyLinear.from_float(lin, bits=bits, group_size=group, large_m_backend="cutlass_mixed")
                    for _ in range(copies)]
            assert weight_only_backend(m, lays[0].packed, lays[0].packed_mixed) == "cutlass_mixed_sm90"

            def run():
                for lay in lays:
                    lay(x)
            calls = 12 // copies + 1
            on, off = graph_of(run, calls, True), graph_of(run, calls, False)
            t_on, t_off = (t / (calls * copies) for t in alternate([on, off]))
            rows.append({"m": m, "n": n, "k": k, "bits": bits, "pdl_us": round(t_on, 2), "plain_us": round(t_off, 2),
                         "plain_per_pdl": round(t_off / t_on, 4)})
            print(json.dumps(rows[-1]), flush=True)
            del lays, on, off
            torch.cuda.empty_cache()
    json.dump(rows, open(out, "w"), indent=1)


if __name__ == "__main__":
    {"chains": chains, "gemm": gemm_rows, "mixed": mixed}[sys.argv[1]](sys.argv[2])
