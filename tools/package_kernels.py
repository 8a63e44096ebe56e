#!/usr/bin/env python3
"""Build an installable wheel of prebuilt kernels (the FlashInfer jit-cache habit).

  python tools/package_kernels.py --sm 90                 # the prebuilt set (20 kernels) -> dist/
  python tools/package_kernels.py --sm 90 --all --jobs 16 # every generated SM90 kernel (72)
  python tools/package_kernels.py --sm 90 --list kernels.txt   # exactly the kernels a list names (any family)
  pip install dist/cutlass_gemm_kernels_sm90-*.whl        # then the ops find the kernels there

The kernels are compiled from the committed sources in generated/ (emitted when a source is missing)
into a private cache, then packed as the package ``cutlass_gemm_kernels_sm<NN>`` (its ``kernels/``
folder holds each library with its metadata). `cutlass_gemm.runtime.build.lookup` uses such a kernel
when the user's cache has none, after the usual checks (size and sha256, the same compile flags, the
current source), so a machine with the package installed runs the ops without nvcc. The wheel is
tagged py3-none-linux_x86_64; its version is the library's plus the nvcc release (e.g. 0.1.0+cu13.0).
`--list` takes a kernel list (runtime/kernel_list.py: what $CUTLASS_GEMM_RECORD_KERNELS records while a model runs),
so a deployment ships exactly the kernels its model loads, of every family (scaled GEMM, mixed-input, conv2d,
blockwise), and its machines need no nvcc.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cutlass_gemm  # noqa: E402
from cutlass_gemm.kernels import heuristics  # noqa: E402
from cutlass_gemm.kernels.config import VARIANTS  # noqa: E402
from cutlass_gemm.kernels.families import config_from_name, family_of  # noqa: E402
from cutlass_gemm.runtime import build, kernel_list, prebuilt  # noqa: E402

PYPROJECT = """[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "{dist}"
version = "{version}"
description = "Prebuilt cutlass_gemm kernels for SM{sm} ({count} kernels, nvcc {nvcc})"
requires-python = ">=3.10"
dependencies = ["cutlass_gemm=={base_version}"]

[tool.setuptools]
packages = ["{package}"]

[tool.setuptools.package-data]
{package} = ["kernels/*.so", "kernels/*.json"]
"""

# The libraries are Linux x86-64 binaries that do not depend on the Python version.
SETUP_CFG = """[bdist_wheel]
python_tag = py3
plat_name = linux_x86_64
"""

INIT = '''"""Prebuilt cutlass_gemm kernels for SM{sm}: {count} kernel libraries in kernels/, found by
cutlass_gemm.runtime.build.lookup. Built by tools/package_kernels.py with nvcc {nvcc}."""
KERNELS = {names!r}
'''


def _source(cfg):
    """The committed generated/ source of `cfg` (any family), or None: then the build emits it."""
    path = ROOT / "generated" / family_of(cfg).generated_subdir(cfg) / f"{cfg.name}.cu"
    return path.read_text() if path.is_file() else None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sm", type=int, required=True, choices=heuristics.DEFAULT_SMS, help="kernel family")
    p.add_argument("--all", action="store_true", help="every generated kernel, not just the prebuilt set")
    p.add_argument("--variant", action="append", choices=VARIANTS, help="only these epilogue variants")
    p.add_argument("--list", type=Path, action="append", default=[], metavar="FILE",
                   help="exactly the kernels these list files name (repeatable; instead of the scaled-GEMM sets)")
    p.add_argument("--limit", type=int, default=0, help="only the first N kernels (smoke tests)")
    p.add_argument("--jobs", type=int, default=build.default_jobs(), help="parallel nvcc processes (default %(default)s)")
    p.add_argument("--out", type=Path, default=ROOT / "dist", help="folder for the wheel (default dist/)")
    args = p.parse_args(argv)

    if args.list:
        if args.all or args.variant:
            p.error("--list names the kernels exactly: --all / --variant do not apply")
        try:
            names = list(dict.fromkeys(n for path in args.list for n in kernel_list.read_list(path)))
        except ValueError as exc:
            p.error(str(exc))
        configs = [config_from_name(n) for n in names]
        other = [c.name for c in configs if c.sm != args.sm]
        if other:
            p.error(f"--list names kernels of another SM than --sm {args.sm}: {', '.join(other)}")
    else:
        variants = tuple(args.variant or VARIANTS)
        configs = (heuristics.default_configs if args.all else heuristics.prebuilt_configs)(args.sm, variants)
    configs = configs[: args.limit] if args.limit else configs
    if not configs:
        p.error("no kernels to package")
    nvcc = build.nvcc_version()
    if nvcc is None:
        print("error: nvcc not found (set CUDA_HOME or put nvcc on PATH)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="cutlass_gemm_pkg_") as tmp:
        os.environ[build.CACHE_ENV] = str(Path(tmp) / "cache")  # a private cache: only these kernels
        report = kernel_list.prebuild(configs, args.jobs, {c.name: t for c in configs if (t := _source(c))},
                                      packaged=False)  # into the private cache, even what an installed wheel has
        if not report.ok:
            print(f"error: {report}", file=sys.stderr)
            return 1
        paths = [build.cache_entry(c).path for c in configs]
        print(f"compiled {len(paths)} kernels in {report.seconds:.0f} s with {args.jobs} jobs")

        package = prebuilt.package_name(args.sm)
        stage = Path(tmp) / "stage"
        kernels = stage / package / "kernels"
        kernels.mkdir(parents=True)
        for path in paths:
            shutil.copy2(path, kernels / path.name)
            shutil.copy2(path.with_suffix(".json"), kernels / path.with_suffix(".json").name)
        fields = dict(dist=package.replace("_", "-"), package=package, sm=args.sm, count=len(paths), nvcc=nvcc,
                      base_version=cutlass_gemm.__version__, version=f"{cutlass_gemm.__version__}+cu{nvcc}")
        (stage / "pyproject.toml").write_text(PYPROJECT.format(**fields))
        (stage / "setup.cfg").write_text(SETUP_CFG)
        (stage / package / "__init__.py").write_text(INIT.format(names=sorted(c.name for c in configs), **fields))
        args.out.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(args.out),
               str(stage)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"error: building the wheel failed:\n{proc.stdout}{proc.stderr}", file=sys.stderr)
            return 1
    wheels = sorted(args.out.glob(f"{package}-{fields['version']}-*.whl"), key=lambda w: w.stat().st_mtime)
    if not wheels:
        print(f"error: pip reported success but no wheel for {package} is in {args.out}", file=sys.stderr)
        return 1
    print(f"wrote {wheels[-1]} ({wheels[-1].stat().st_size / 1e3:.0f} KB, {len(paths)} kernels)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
