#!/usr/bin/env python3
"""Session 13: does the split build compile the same machine code as the single nvcc run it replaces?

For each kernel: the source of commit HEAD_TREE (single pass; its launcher instantiates CUTLASS's device_kernel<>)
compiled with -cubin, against this tree's source compiled as the split build's device pass (-DCG_DEVICE_PASS -cubin).
Compared: the kernel's .text section bytes (the machine code), its .nv.constant0 size (the parameter block) and its
.nv.info attributes. Runs on the CPU machine (no disassembler needed).

  python compare_cubins.py HEAD_TREE OUT_DIR [--jobs N]
"""
import argparse
import concurrent.futures as cf
import os
import struct
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parents[5]

NAMES = [
    "sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8",
    "sm90_e4m3_bf16_scaled_bias_tensor_tensor_t256x128x128_c1x2x1_cooperative_s0_a16x16x8",
    "sm90_int8_bf16_scaled_azp_nobias_tensor_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8",
    "sm90_mixed_bf16_int4_sym_t128x128x64_c1x1x1_cooperative_s0",
    "sm90_conv2d_fprop_int8_bf16_relu6_t128x128x128_c1x1x1_s0",
    "sm90_blockwise_e4m3_bf16_gelu_tanh_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0",
]


def emit(tree: Path, name: str) -> str:
    """The source of `name` as the tree at `tree` emits it (a subprocess: each tree imports its own package)."""
    code = ("import sys, importlib; from cutlass_gemm.kernels.families import family_of; n = sys.argv[1]; "
            "mod, cls = next(v for k, v in [('sm90_mixed', ('mixed_input', 'MixedInputConfig')), "
            "('sm90_conv2d', ('conv2d', 'Conv2dConfig')), ('sm90_blockwise', ('blockwise', 'BlockwiseConfig')), "
            "('', ('config', 'KernelConfig'))] if n.startswith(k)); "
            "c = getattr(importlib.import_module('cutlass_gemm.kernels.' + mod), cls).from_name(n); "
            "sys.stdout.write(family_of(c).emit(c))")
    return subprocess.run([sys.executable, "-c", code, name], cwd=tree, env=dict(os.environ, PYTHONPATH=str(tree)),
                          check=True, capture_output=True, text=True).stdout


def sections(cubin: bytes) -> dict:
    """{name: bytes} of an ELF64 little-endian file."""
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]
    strtab = heads[shstrndx]
    names = cubin[strtab[4]:strtab[4] + strtab[5]]
    out = {}
    for h in heads:
        name = names[h[0]:names.index(b"\0", h[0])].decode()
        out[name] = cubin[h[4]:h[4] + h[5]] if h[1] != 8 else b"\0" * h[5]  # SHT_NOBITS
    return out


def kernel_sections(cubin: bytes) -> dict:
    """{'.text': ..., '.nv.info': ..., '.nv.constant0': ...} of the one kernel in the cubin."""
    secs = sections(cubin)
    kernels = [n[len(".text."):] for n in secs if n.startswith(".text.")]
    assert len(kernels) == 1, kernels
    k = kernels[0]
    return {kind: secs.get(f"{kind}.{k}", b"") for kind in (".text", ".nv.info", ".nv.constant0")}


def compile_cubin(text: str, work: Path, extra) -> bytes:
    from cutlass_gemm.kernels.emit import cutlass_include_dirs
    from cutlass_gemm.runtime.nvcc import compile_flags, find_nvcc
    work.mkdir(parents=True, exist_ok=True)
    (work / "kernel.cu").write_text(text)
    flags = [f for f in compile_flags(90) if f not in ("-shared", "-cudart=shared")]
    cmd = [find_nvcc(), *flags, *[f"-I{d}" for d in cutlass_include_dirs()], *extra, "-cubin", "kernel.cu", "-o",
           "kernel.cubin"]
    subprocess.run(cmd, cwd=work, check=True, capture_output=True)
    return (work / "kernel.cubin").read_bytes()


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("head_tree", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    sys.path.insert(0, str(ROOT))
    jobs = {}
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        for name in NAMES:
            old_src, new_src = emit(args.head_tree, name), emit(ROOT, name)
            jobs[name] = (pool.submit(compile_cubin, old_src, args.out / name / "old", []),
                          pool.submit(compile_cubin, new_src, args.out / name / "new", ["-DCG_DEVICE_PASS"]))
        failed = 0
        for name, (old, new) in jobs.items():
            a, b = kernel_sections(old.result()), kernel_sections(new.result())
            same = {k: a[k] == b[k] for k in a}
            failed += not all(same.values())
            print(f"{name}: text {len(a['.text'])} vs {len(b['.text'])} bytes, "
                  + ", ".join(f"{k} {'same' if v else 'DIFFERENT'}" for k, v in same.items()))
    print(f"{len(NAMES) - failed} of {len(NAMES)} kernels: identical machine code, info and parameter block")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
