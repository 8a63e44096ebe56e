"""Session 12: host cost of one cuBLASLt matmul call through this library's ctypes binding against NVIDIA's
nvmath-python Cython binding (nvmath.bindings.cublasLt, 1.0.0), the issue-11 question. One process, H100: the same
plan (handle, matmul descriptor, layouts, algorithm, workspace) made once by cutlass_gemm.cublaslt.int8_matmul, then
per call (wall clock over back-to-back calls, tools/bench_common.wall_time_us):
  public      cutlass_gemm.cublaslt.int8_matmul(a, b)  (validation, plan lookup, output allocation, launch)
  ours        matmul._launch(plan, ...)  (our per-call path: stream, workspace, scalars, ctypes call, status)
  raw ctypes  the cublasLtMatmul ctypes function on prebuilt arguments (the binding layer alone)
  nvmath      nvmath.bindings.cublasLt.matmul on the same pointers as Python ints (its binding layer alone)
  nvmath+     nvmath's call with our per-call work around it (stream, workspace, scalar, status check)
and torch._int_mm for reference; every output checked equal to torch._int_mm. Also the import time and the size of
the installed package. Usage: python nvmath_host.py OUT_DIR (nvmath-python on sys.path)."""
import ctypes
import json
import subprocess
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, "tools")
from bench_common import gpu_time_us, stamp, wall_time_us  # noqa: E402
from cutlass_gemm.cublaslt import matmul as mm  # noqa: E402
from cutlass_gemm.cublaslt import _lib  # noqa: E402

OUT = Path(sys.argv[1])


def main():
    t0 = time.perf_counter()
    from nvmath.bindings import cublasLt as nvlt
    import_s = time.perf_counter() - t0
    import nvmath
    res = {"nvmath_version": getattr(nvmath, "__version__", "?"), "nvmath_import_s": round(import_s, 3),
           "cublasLt_version_ours": int(_lib.lib().cublasLtGetVersion()), "cublasLt_version_nvmath": int(nvlt.get_version())}
    res["nvmath_installed_MB"] = round(int(subprocess.run(["du", "-sb", str(Path(nvmath.__file__).parent)],
                                                          capture_output=True, text=True).stdout.split()[0]) / 2**20, 1)
    rows = {}
    for m, n, k in ((32, 256, 256), (32, 4096, 4096)):
        g = torch.Generator(device="cuda").manual_seed(m)
        a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda", generator=g)
        b = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda", generator=g)
        seen = []
        orig = mm._launch

        def spy(*args, **kw):
            seen.append((args, kw))
            return orig(*args, **kw)
        mm._launch = spy
        ref = mm.int8_matmul(a, b)
        mm._launch = orig
        import inspect
        bound = inspect.signature(orig).bind(*seen[-1][0], **seen[-1][1]).arguments
        plan, device, h, a_ptr, b_ptr, d_ptr = (bound[x] for x in ("plan", "device", "h", "a_ptr", "b_ptr", "d_ptr"))
        want = torch._int_mm(a, b.t())
        assert torch.equal(ref, want)
        out = torch.empty_like(ref)
        stream = mm.stream_ptr(device)
        ws = mm.workspace(device, stream)
        one, zero = ctypes.c_int32(1), ctypes.c_int32(0)
        fn = _lib.lib().cublasLtMatmul
        cargs = (ctypes.c_void_p(h), plan.desc.as_parameter, ctypes.byref(one), ctypes.c_void_p(a_ptr),
                 plan.a_layout.as_parameter, ctypes.c_void_p(b_ptr), plan.b_layout.as_parameter, ctypes.byref(zero),
                 ctypes.c_void_p(out.data_ptr()), plan.d_layout.as_parameter, ctypes.c_void_p(out.data_ptr()),
                 plan.d_layout.as_parameter, ctypes.byref(plan.result.algo), ctypes.c_void_p(ws.data_ptr()),
                 mm.WORKSPACE_BYTES, ctypes.c_void_p(stream))
        iv = lambda p: int(p.value)  # noqa: E731
        nargs = (int(h), iv(plan.desc.as_parameter), ctypes.addressof(one), a_ptr, iv(plan.a_layout.as_parameter), b_ptr,
                 iv(plan.b_layout.as_parameter), ctypes.addressof(zero), out.data_ptr(), iv(plan.d_layout.as_parameter),
                 out.data_ptr(), iv(plan.d_layout.as_parameter), ctypes.addressof(plan.result.algo), ws.data_ptr(),
                 mm.WORKSPACE_BYTES, stream)
        checks = {}
        for name, call in (("raw ctypes", lambda: fn(*cargs)), ("nvmath", lambda: nvlt.matmul(*nargs))):
            out.fill_(7)
            rc = call()
            torch.cuda.synchronize()
            checks[name] = {"status": None if rc is None else int(rc), "equal": bool(torch.equal(out, want))}

        def nvmath_plus():  # nvmath's call with the per-call work our _launch does around its ctypes call
            st = mm.stream_ptr(device)
            w = mm.workspace(device, st)
            s1, s0 = ctypes.c_int32(1), ctypes.c_int32(0)
            nvlt.matmul(int(h), nargs[1], ctypes.addressof(s1), a_ptr, nargs[4], b_ptr, nargs[6], ctypes.addressof(s0),
                        d_ptr, nargs[9], d_ptr, nargs[9], nargs[12], w.data_ptr(), mm.WORKSPACE_BYTES, st)
        paths = {
            "torch._int_mm (allocates)": lambda: torch._int_mm(a, b.t()),
            "public cutlass_gemm.cublaslt.int8_matmul (allocates)": lambda: mm.int8_matmul(a, b),
            "ours: matmul._launch (per-call work + ctypes)": lambda: orig(**bound),
            "raw ctypes cublasLtMatmul, prebuilt arguments": lambda: fn(*cargs),
            "nvmath.bindings.cublasLt.matmul, prebuilt ints": lambda: nvlt.matmul(*nargs),
            "nvmath + the same per-call work": nvmath_plus,
        }
        times = {}
        for rnd in range(5):  # rounds, order fixed; medians of rounds (the first round runs cold)
            for name, f in paths.items():
                times.setdefault(name, []).append(wall_time_us(f, calls=2000, reps=5, warmup=50))
        rows[f"{m}x{n}x{k}"] = {"checks": checks, "gpu_us": round(gpu_time_us(lambda: fn(*cargs)), 2),
                                "wall_us_per_call": {k2: round(sorted(v)[2], 2) for k2, v in times.items()},
                                "rounds": {k2: [round(x, 2) for x in v] for k2, v in times.items()}}
        print(json.dumps({f"{m}x{n}x{k}": rows[f"{m}x{n}x{k}"]}, indent=1), flush=True)
    text = json.dumps({**stamp(), **res, "rows": rows}, indent=1)
    (OUT / "nvmath_host.json").write_text(text + "\n")
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
