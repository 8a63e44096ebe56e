"""The per-block int8 GEMM kernel's own source (runtime/csrc/bi8_gemm.cuh), compiled as host C++ and run by the
emulator in tests/wo_emu/bi8_emu.cpp (one OS thread per CUDA thread; ldmatrix / mma.sync m16n8k32 s8 /
cp.async emulated from the PTX ISA; barrier and .aligned convergence checked), against the float64
reference: the CTA shapes the launcher picks by M and a 2-stage one, both block sizes, fp16/bf16, bias,
activations, M / N / K tails (K % 128 == 64 with B = 64), strided scales, a padded A row stride, split-K with
the splits arriving in either order, cp.async copies landing at issue or only at their wait. Needs g++
(C++20) and the CUDA headers, no GPU. Tolerance as in the GPU tests (test_blockint8_gpu.py)."""
import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

HERE = Path(__file__).resolve().parent
CUDA_INCLUDE = Path("/usr/local/cuda/include")
ACTS = {None: 0, "relu": 1, "relu6": 2, "gelu_tanh": 3, "silu": 4}


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    if shutil.which("g++") is None or not (CUDA_INCLUDE / "cuda_fp16.h").exists():
        pytest.skip("needs g++ and the CUDA headers")
    so = tmp_path_factory.mktemp("bi8_emu") / "bi8_emu.so"
    cmd = ["g++", "-std=c++20", "-O1", "-shared", "-fPIC", "-pthread", "-DCG_WO_EMULATE", f"-I{CUDA_INCLUDE}", "-w",
           str(HERE / "wo_emu" / "bi8_emu.cpp"), "-o", str(so)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        pytest.fail(f"emulator build failed:\n{proc.stderr[-4000:]}")
    lib = ctypes.CDLL(str(so))
    lib.bi8_emu_run.restype = ctypes.c_int
    lib.bi8_emu_run.argtypes = ([ctypes.c_int] * 5 + [ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p, ctypes.c_long]
                                + [ctypes.c_void_p, ctypes.c_long, ctypes.c_long] * 2 + [ctypes.c_void_p] * 2
                                + [ctypes.c_int] * 5)
    return lib


def _operands(m, n, k, block, seed):
    g = torch.Generator().manual_seed(seed)
    a = torch.randint(-127, 128, (m, k), generator=g, dtype=torch.int8)
    b = torch.randint(-127, 128, (n, k), generator=g, dtype=torch.int8)
    sa = torch.rand(m, k // block, generator=g) * 1e-2 + 1e-3
    sb = torch.rand(n, k // block, generator=g) * 1e-3 + 1e-4
    sb[::7, 0] *= 1e4  # outlier blocks
    sa[::3, -1] *= 1e-4
    return a, b, sa, sb


def _run(lib, cfg, a, b, sa, sb, bias, block, out_dtype, act=None, splits=1, eager=True, reverse=False, lda=None):
    m, k = a.shape
    n = b.shape[0]
    a_s = a if lda is None else torch.nn.functional.pad(a, (0, lda - k))
    out = torch.full((m, n), float("nan"), dtype=out_dtype)
    rc = lib.bi8_emu_run(cfg, int(out_dtype == torch.bfloat16), block, int(eager), int(reverse),
                         a_s.data_ptr(), a_s.stride(0), b.data_ptr(), b.stride(0),
                         sa.data_ptr(), sa.stride(0), sa.stride(1), sb.data_ptr(), sb.stride(0), sb.stride(1),
                         None if bias is None else bias.data_ptr(), out.data_ptr(), m, n, k, ACTS[act], splits)
    assert rc == 0, f"emulator returned {rc} (3: split-K counters not reset, 4: out of bounds, 5: divergence)"
    return out


def _check(y, a, b, sa, sb, bias, block, act, what):
    m, k = a.shape
    pre = torch.zeros(m, b.shape[0], dtype=torch.float64)
    absum = torch.zeros_like(pre)
    for kb in range(k // block):
        sl = slice(kb * block, (kb + 1) * block)
        t = (a[:, sl].double() @ b[:, sl].double().t()) * sa[:, kb:kb + 1].double() * sb[:, kb].double()[None]
        pre += t
        absum += t.abs()
    if bias is not None:
        pre += bias.double()
    f = {None: lambda v: v, "relu": torch.relu, "relu6": lambda v: v.clamp(0, 6),
         "gelu_tanh": lambda v: 0.5 * v * (1 + torch.tanh(0.7978845608028654 * (v + 0.044715 * v ** 3))),
         "silu": lambda v: v * torch.sigmoid(v)}
    ref = f[act](pre)
    u = 2 ** -7 if y.dtype == torch.bfloat16 else 2 ** -10
    tol = u * ref.abs() + 2e-6 * absum + 1e-3
    bad = ~((y.double() - ref).abs() <= tol)
    assert not bad.any(), f"{what}: {int(bad.sum())} of {bad.numel()} off, first {bad.nonzero()[0].tolist()}"


# (cfg, m, n, k, block): cfg 0 = 16 x 64 (M <= 16), 1 = 64 x 128, 2 = 128 x 128, 3 = 16 x 32 with 2 stages
CASES = [(0, 1, 72, 384, 128), (0, 5, 100, 192, 64), (0, 16, 64, 640, 64), (3, 3, 40, 512, 128),
         (1, 17, 136, 256, 128), (1, 64, 72, 192, 64), (2, 130, 136, 256, 128), (2, 65, 24, 192, 64)]


@pytest.mark.parametrize("cfg,m,n,k,block", CASES)
def test_emulated_kernel_matches_float64(emu, cfg, m, n, k, block):
    a, b, sa, sb = _operands(m, n, k, block, seed=cfg * 100 + m + n + k)
    out_dtype = torch.bfloat16 if (m + n) % 2 else torch.float16
    bias = (torch.randn(n, generator=torch.Generator().manual_seed(m)) * 0.1).to(out_dtype) if m % 2 else None
    y = _run(emu, cfg, a, b, sa, sb, bias, block, out_dtype, lda=k + 32 if m % 3 == 0 else None)
    _check(y, a, b, sa, sb, bias, block, None, f"cfg {cfg} {m}x{n}x{k} B{block}")


@pytest.mark.parametrize("act", list(ACTS))
def test_emulated_activations_transposed_scales(emu, act):
    m, n, k, block = 9, 64, 256, 64
    a, b, sa, sb = _operands(m, n, k, block, seed=7)
    sb = sb * 300  # outputs of order 1..10, where the activations differ (bf16 output: no overflow)
    sb_t = sb.t().contiguous().t()  # a (K/B, N) table read through its strides
    bias = torch.randn(n).bfloat16()
    y = _run(emu, 0, a, b, sa, sb_t, bias, block, torch.bfloat16, act=act)
    _check(y, a, b, sa, sb, bias, block, act, f"act {act}")


@pytest.mark.parametrize("eager,reverse", [(True, False), (False, True)])
def test_emulated_split_k_is_ordered_and_resets_counters(emu, eager, reverse):
    m, n, k, block = 6, 128, 1408, 128  # 11 stages of 128
    a, b, sa, sb = _operands(m, n, k, block, seed=9)
    one = _run(emu, 0, a, b, sa, sb, None, block, torch.bfloat16)
    _check(one, a, b, sa, sb, None, block, None, "no split")
    for splits in (2, 3, 11):
        y = _run(emu, 0, a, b, sa, sb, None, block, torch.bfloat16, splits=splits, eager=eager, reverse=reverse)
        _check(y, a, b, sa, sb, None, block, None, f"splits {splits}")
        again = _run(emu, 0, a, b, sa, sb, None, block, torch.bfloat16, splits=splits, eager=eager, reverse=not reverse)
        assert torch.equal(y, again), "split-K must add the partials in split order whatever the arrival order"


def test_emulated_deferred_copies_large_tile(emu):
    m, n, k, block = 140, 130, 576, 64  # K % 128 == 64: the last stage holds one block
    a, b, sa, sb = _operands(m, n, k, block, seed=13)
    y = _run(emu, 2, a, b, sa, sb, None, block, torch.float16, eager=False)
    _check(y, a, b, sa, sb, None, block, None, "deferred copies")
