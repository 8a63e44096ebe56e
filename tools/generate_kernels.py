#!/usr/bin/env python3
"""Regenerate the kernel sources for target SMs and, with --compile, build them with nvcc.

  python tools/generate_kernels.py --sm 90                      # refresh generated/sm90
  python tools/generate_kernels.py --sm 90 --compile            # ...and build the prebuilt kernels (15)
  python tools/generate_kernels.py --sm 90 --compile --all      # ...or every generated kernel (130)
  python tools/generate_kernels.py --sm 90 --variant scaled_bias --out /tmp/gen --compile
  python tools/generate_kernels.py --sm 90 --activation relu --out /tmp/gen --compile   # relu kernels (prebuilt part)
  python tools/generate_kernels.py --out /tmp/gen --compile --name KERNEL_NAME [--name ...]   # exactly these (any family)
  python tools/generate_kernels.py --out /tmp/gen --compile --list kernels.txt   # the kernels a list file names
  python tools/generate_kernels.py --mixed [--compile]          # the SM90 weight-only mixed-input set (56)
  python tools/generate_kernels.py --conv [--compile] [--resnet]  # the SM90 int8 conv2d set (54; a ResNet-50's 24)
  python tools/generate_kernels.py --blockwise [--compile]      # the SM90 blockwise-scaled fp8 set

Compiled kernels are shared libraries (one kernel + its C-ABI launcher; the cubin inside) placed in
the kernel cache ($CUTLASS_GEMM_CACHE_DIR, default ~/.cache/cutlass_gemm), where the ops find them
after checking each against its recorded size and sha256. nvcc runs are limited by
$CUTLASS_GEMM_BUILD_TIMEOUT and waits for another process's build by $CUTLASS_GEMM_LOCK_TIMEOUT (seconds).
Works without a GPU.
"""
import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cutlass_gemm.kernels import heuristics  # noqa: E402
from cutlass_gemm.runtime import build, kernel_list  # noqa: E402
from cutlass_gemm.kernels.config import ACTIVATIONS, VARIANTS, KernelConfig  # noqa: E402
from cutlass_gemm.kernels.generate import generate  # noqa: E402
from cutlass_gemm.kernels.families import config_from_name, family_of  # noqa: E402
from cutlass_gemm.errors import BuildError  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sm", type=int, action="append", choices=heuristics.DEFAULT_SMS,
                   help="target SM (repeatable; default: all of %s)" % (heuristics.DEFAULT_SMS,))
    p.add_argument("--variant", action="append", choices=VARIANTS, help="only these epilogue variants")
    p.add_argument("--activation", action="append", choices=ACTIVATIONS[1:],
                   help="the selected kernels with these epilogue activations instead of without (they are not "
                        "part of the default set: pass --out DIR; they are built on first use otherwise)")
    p.add_argument("--name", action="append", default=[],
                   help="exactly these kernels, by name (repeatable; any config of any family, e.g. an activation "
                        "kernel; names of other families than the scaled GEMMs need no family flag); with --compile "
                        "every one is compiled")
    p.add_argument("--list", type=Path, action="append", default=[], metavar="FILE",
                   help="the kernels a list file names (repeatable; one name per line, # comments: what "
                        "$CUTLASS_GEMM_RECORD_KERNELS records, runtime/kernel_list.py), as if each were a --name")
    p.add_argument("--out", type=Path, default=ROOT / "generated", help="output folder (default: generated/)")
    p.add_argument("--compile", action="store_true",
                   help="compile the prebuilt part of the set into the kernel cache (bf16 out, per-token x "
                        "per-channel; the rest is built on first use)")
    p.add_argument("--all", action="store_true", help="with --compile: compile every generated kernel")
    p.add_argument("--jobs", type=int, default=build.default_jobs(),
                   help="parallel nvcc processes (default: the CPUs this process may use, %(default)s here)")
    p.add_argument("--extension", action="store_true",
                   help="also build the torch extension (C++ fast path + quantization kernels; needs CUDA torch "
                        "and a GPU: it is built for the GPUs it sees), in a thread beside the emission and the nvcc "
                        "jobs of any family (a device call's build in one command)")
    p.add_argument("--mixed", action="store_true",
                   help="the weight-only mixed-input family instead (generated/sm90_mixed, with --sm 80 the W8A16 "
                        "upcast kernels in generated/sm80_mixed; --compile builds "
                        "every kernel of it, or the --name ones)")
    p.add_argument("--conv", action="store_true",
                   help="the int8 implicit-GEMM conv2d family instead (generated/sm90_conv, with --sm 80 "
                        "generated/sm80_conv; --compile builds every kernel of it, the --name ones, or with --resnet "
                        "the 24 (SM80: 12) a bf16 ResNet-50 and its int8 chain select)")
    p.add_argument("--resnet", action="store_true", help="with --conv --compile: only the ResNet-50 (bf16) kernels")
    p.add_argument("--blockwise", action="store_true",
                   help="the SM90 blockwise-scaled fp8 family instead (generated/sm90_blockwise; --compile builds "
                        "every kernel of it, or the --name ones)")
    p.add_argument("--limit", type=int, default=0, help="compile only the first N kernels (smoke tests)")
    p.add_argument("--cache-dir", type=Path, help="kernel cache folder (overrides $%s)" % build.CACHE_ENV)
    args = p.parse_args(argv)
    if args.cache_dir:
        os.environ[build.CACHE_ENV] = str(args.cache_dir)
    for path in args.list:
        try:
            args.name += [n for n in kernel_list.read_list(path) if n not in args.name]
        except ValueError as exc:
            p.error(str(exc))

    ext = _ExtensionBuild() if args.extension else None
    rc = _run(args, p)
    if ext is not None:
        ok = ext.finish()
        rc = rc if ok or args.compile else max(rc, 1)  # a failed extension fails a call that built nothing else
    return rc


def _run(args, p) -> int:
    """The family's sources (and with --compile, its kernels)."""
    if args.mixed:
        return _mixed(args, p)
    if args.conv:
        return _conv(args, p)
    if args.blockwise:
        return _blockwise(args, p)
    if any([_family(n, p) != "gemm" for n in args.name]):  # every name parsed first: a bad one is a usage error
        return _named(args, p)
    sms = args.sm or list(heuristics.DEFAULT_SMS)
    variants = tuple(args.variant or VARIANTS)
    try:
        named = [KernelConfig.from_name(n) for n in args.name]
    except ValueError as exc:
        p.error(str(exc))
    configs = named or [c for sm in sms for c in heuristics.default_configs(sm, variants)]
    prebuilt = named or [c for sm in sms for c in heuristics.prebuilt_configs(sm, variants)]
    if args.activation:
        configs, prebuilt = ([c.replace(activation=a) for c in cs for a in args.activation] for cs in (configs, prebuilt))
    t0 = time.perf_counter()
    try:  # prune removes only sources the previous manifest lists: other files in --out DIR stay
        paths = generate(configs, args.out, prune=args.variant is None and not args.activation and not named)
    except BuildError as exc:  # emission failed: the message names the kernel and the cause
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"generated {len(paths)} kernel sources under {args.out} in {time.perf_counter() - t0:.1f} s")
    if not args.compile:
        return 0

    todo = configs if args.all else prebuilt
    todo = todo[: args.limit] if args.limit else todo
    sources = {c.name: (args.out / f"sm{c.sm}" / f"{c.name}.cu").read_text() for c in todo}
    return _compile(todo, sources, args.jobs)


class _ExtensionBuild:
    """extension.build_extension() in a daemon thread from construction (its nvcc / ninja processes run beside the
    kernels' nvcc jobs, as a device call's two background builds did); finish() waits and reports."""

    def __init__(self):
        import threading
        self.t0, self.error = time.perf_counter(), None
        self.thread = threading.Thread(target=self._build, name="extension-build", daemon=True)
        self.thread.start()

    def _build(self):
        from cutlass_gemm.runtime import extension
        try:
            extension.build_extension()
        except Exception as exc:  # a CPU-only torch or no GPU: said by finish(), not fatal to the kernels
            self.error = exc

    def finish(self) -> bool:
        self.thread.join()
        if self.error is not None:
            print(f"error: the torch extension was not built: {self.error}", file=sys.stderr)
            return False
        print(f"torch extension ready in {time.perf_counter() - self.t0:.0f} s")
        return True


def _family(name: str, p) -> str:
    try:
        return family_of(config_from_name(name)).name
    except ValueError as exc:
        p.error(str(exc))


def _named(args, p) -> int:
    """--name of several families (no family flag): each kernel's source written into its family's folder under
    --out (nothing pruned), then with --compile all of them built together."""
    from cutlass_gemm.kernels import generate as gen
    if args.activation or args.variant:
        p.error("--activation / --variant apply to the scaled-GEMM family; name the kernels of other families exactly")
    writers = {"gemm": gen.generate, "mixed_input": gen.generate_mixed, "conv2d": gen.generate_conv,
               "blockwise": gen.generate_blockwise}
    configs = [config_from_name(n) for n in args.name]
    for fam, writer in writers.items():
        mine = [c for c in configs if family_of(c).name == fam]
        if mine:
            writer(mine, args.out, prune=False)
    print(f"generated {len(configs)} kernel sources under {args.out}")
    if not args.compile:
        return 0
    todo = configs[: args.limit] if args.limit else configs
    sources = {c.name: (args.out / family_of(c).generated_subdir(c) / f"{c.name}.cu").read_text() for c in todo}
    return _compile(todo, sources, args.jobs)


def _mixed(args, p) -> int:
    """--mixed: generate (and with --compile build) the mixed-input family; --name picks exact kernels."""
    from cutlass_gemm.kernels.generate import generate_mixed
    from cutlass_gemm.kernels.mixed_input import MIXED_SMS, MixedInputConfig, default_configs
    sms = args.sm or [90]
    if not set(sms) <= set(MIXED_SMS):
        p.error(f"--mixed --sm takes {MIXED_SMS}, got {sms}")
    try:
        configs = [MixedInputConfig.from_name(n) for n in args.name] or [c for sm in sms for c in default_configs(sm)]
    except ValueError as exc:
        p.error(str(exc))
    paths = generate_mixed(configs, args.out, prune=not args.name)
    folders = sorted({c.generated_subdir for c in configs})
    print(f"generated {len(paths)} mixed-input kernel sources under {args.out} ({', '.join(folders)})")
    if not args.compile:
        return 0
    todo = configs[: args.limit] if args.limit else configs
    sources = {c.name: (args.out / c.generated_subdir / f"{c.name}.cu").read_text() for c in todo}
    return _compile(todo, sources, args.jobs)


def _conv(args, p) -> int:
    """--conv: generate (and with --compile build) the conv2d family; --name picks exact kernels."""
    from cutlass_gemm.kernels.conv2d import CONV_SMS, Conv2dConfig, default_configs, resnet_configs
    from cutlass_gemm.kernels.generate import generate_conv
    try:
        named = [Conv2dConfig.from_name(n) for n in args.name]
    except ValueError as exc:
        p.error(str(exc))
    sms = args.sm or [90]
    if not set(sms) <= set(CONV_SMS):
        p.error(f"--conv --sm takes {CONV_SMS}, got {sms}")
    configs = named or [c for sm in sms for c in default_configs(sm)]
    paths = generate_conv(configs, args.out, prune=not named)
    folders = sorted({c.generated_subdir for c in configs})
    print(f"generated {len(paths)} conv2d kernel sources under {args.out} ({', '.join(folders)})")
    if not args.compile:
        return 0
    todo = named or ([c for sm in sms for c in resnet_configs(sm=sm)] if args.resnet else configs)
    todo = todo[: args.limit] if args.limit else todo
    sources = {c.name: (args.out / c.generated_subdir / f"{c.name}.cu").read_text() for c in todo}
    return _compile(todo, sources, args.jobs)


def _blockwise(args, p) -> int:
    """--blockwise: generate (and with --compile build) the blockwise family; --name picks exact kernels."""
    from cutlass_gemm.kernels.blockwise import GENERATED_SUBDIR, BlockwiseConfig
    from cutlass_gemm.kernels.blockwise_heuristics import default_configs
    from cutlass_gemm.kernels.generate import generate_blockwise
    try:
        configs = [BlockwiseConfig.from_name(n) for n in args.name] or default_configs()
    except ValueError as exc:
        p.error(str(exc))
    paths = generate_blockwise(configs, args.out, prune=not args.name)
    print(f"generated {len(paths)} blockwise kernel sources under {args.out / GENERATED_SUBDIR}")
    if not args.compile:
        return 0
    todo = configs[: args.limit] if args.limit else configs
    sources = {c.name: (args.out / GENERATED_SUBDIR / f"{c.name}.cu").read_text() for c in todo}
    return _compile(todo, sources, args.jobs)


def _compile(todo, sources, jobs) -> int:
    report = kernel_list.prebuild(todo, jobs, sources)  # one pool of nvcc jobs, every failure reported
    print(f"compiled {len(todo) - len(report.failed)}/{len(todo)} kernels in {report.seconds:.1f} s "
          f"into {build.cache_root()}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
