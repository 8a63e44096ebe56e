#!/usr/bin/env python3
"""The whole GPU test suite from an empty kernel cache, over as many device calls as it takes.

  python tools/gpu_suite.py OUT [--state DIR] [--deadline SECONDS] [--jobs N] [--list]

Tasks, in order: the torch extension (built beside everything else), every kernel the suite can be known to use
(one pool of N nvcc jobs over the SM90 default set, the blockwise, mixed-input and conv sets from their committed
sources in generated/, the SM80 family with sm_90 code, and the extra kernels the activation, stream-K and conv
tests list), then every tests/*_gpu.py file, one pytest process each. A call stops starting tasks when its deadline
(seconds from the call's start, default 570) is near; a finished task is marked in --state (default
/tmp/cutlass_gemm_suite, which lives as long as the device machine stays warm), so the next call continues where
this one stopped; on a fresh machine everything runs again (built kernels are cache hits only on a warm machine).
Logs go to OUT, one per task, and `suite.md` sums them. `--list` prints the kernels and test files and exits.
Session 13's resumable step.sh (tools/results/h100-2026-11-26/session13/full/) is where this comes from.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tools")]
T0 = time.monotonic()


def suite_kernels():
    """(config, source or None) of every kernel to build ahead: committed sources where generated/ has them."""
    from cutlass_gemm.kernels import blockwise, conv2d, heuristics, mixed_input
    from cutlass_gemm.kernels.config import KernelConfig
    from cutlass_gemm.kernels.families import family_of
    import test_activation_gpu
    import test_streamk_gpu
    from conv_kernels_needed import needed

    configs = list(heuristics.default_configs(90)) + list(heuristics.default_configs(80))
    configs += [KernelConfig.from_name(n) for n in test_activation_gpu.KERNELS]
    configs += list(test_streamk_gpu.KERNELS)
    configs += list(blockwise.default_configs()) + list(mixed_input.default_configs())
    configs += list(conv2d.default_configs()) + [conv2d.Conv2dConfig.from_name(n) for n in sorted(needed("tests"))]
    seen, out = set(), []
    for cfg in configs:
        if cfg.name in seen:
            continue
        seen.add(cfg.name)
        path = ROOT / "generated" / family_of(cfg).generated_subdir(cfg) / f"{cfg.name}.cu"
        out.append((cfg, path.read_text() if path.exists() else None))
    return out


def test_files():
    return sorted(p.name for p in (ROOT / "tests").glob("test_*_gpu.py"))


def left(deadline: float) -> float:
    return deadline - (time.monotonic() - T0)


def build_kernels(kernels, jobs: int, deadline: float, log) -> bool:
    """Emit the sources generated/ lacks (one at a time: emission is not thread-safe), then compile with `jobs` at
    once; stops submitting when the deadline is near. True when every kernel is built."""
    from cutlass_gemm.kernels.families import family_of
    from cutlass_gemm.runtime import build
    todo = []
    for cfg, source in kernels:
        todo.append((cfg, source if source is not None else family_of(cfg).emit(cfg)))
    done, failed = 0, []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {}
        queue = list(todo)
        while queue or futures:
            while queue and len(futures) < jobs and left(deadline) > 90:  # ~one nvcc run must still fit
                cfg, source = queue.pop(0)
                futures[pool.submit(build.build, cfg, source)] = cfg
            if not futures:
                break
            fut = next(as_completed(futures))
            cfg = futures.pop(fut)
            try:
                _, seconds = fut.result()
                done += 1
                log.write(f"{seconds:7.1f} s  {cfg.name}\n" if seconds else f" cached    {cfg.name}\n")
            except Exception as exc:  # every failure reported, the rest still built
                failed.append(cfg.name)
                log.write(f"FAILED  {cfg.name}: {exc}\n")
            log.flush()
    log.write(f"built {done} of {len(todo)} ({len(failed)} failed, {len(queue)} not started) "
              f"at {time.monotonic() - T0:.0f} s\n")
    return done == len(todo)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--state", type=Path, default=Path("/tmp/cutlass_gemm_suite"))
    ap.add_argument("--deadline", type=float, default=570.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    os.environ.setdefault("CUTLASS_GEMM_SM80_ARCHS", "80,90")  # the SM80 family runs on the H100 from sm_90 code
    kernels = suite_kernels()
    if args.list:
        print("\n".join(c.name for c, _ in kernels))
        print("\n".join(test_files()))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    args.state.mkdir(parents=True, exist_ok=True)
    report = open(args.out / "suite.md", "a")

    def note(line):
        print(line, flush=True)
        report.write(line + "\n")
        report.flush()

    ext = None
    if not (args.state / "extension.done").exists():
        ext = subprocess.Popen([sys.executable, "-c", "from cutlass_gemm.runtime import extension; "
                                "extension.build_extension()"], stdout=open(args.out / "extension.log", "w"),
                               stderr=subprocess.STDOUT, cwd=ROOT)
    if not (args.state / "kernels.done").exists():
        with open(args.out / "kernels.log", "a") as log:
            if build_kernels(kernels, args.jobs, args.deadline, log):
                (args.state / "kernels.done").touch()
        note(f"kernels: {open(args.out / 'kernels.log').read().splitlines()[-1]}")
    if ext is not None:
        try:
            rc = ext.wait(timeout=max(1.0, left(args.deadline)))
        except subprocess.TimeoutExpired:
            ext.kill()
            note("stopped: the extension was still building; run again on this machine")
            return 0
        note(f"extension rc={rc} at {time.monotonic() - T0:.0f} s")
        if rc == 0:
            (args.state / "extension.done").touch()
    if not (args.state / "kernels.done").exists():
        note("stopped: kernels not all built; run again on this machine")
        return 0
    for name in test_files():
        if (args.state / f"{name}.done").exists():
            continue
        limit = left(args.deadline) - 5
        if limit < 60:
            note(f"stopped before {name}: {left(args.deadline):.0f} s left; run again on this machine")
            return 0
        log_path = args.out / f"{name[:-3]}.log"
        cmd = [sys.executable, "-m", "pytest", "-m", "gpu", "-q", "-rfEs", "-p", "no:cacheprovider", f"tests/{name}"]
        try:
            proc = subprocess.run(cmd, cwd=ROOT, stdout=open(log_path, "w"), stderr=subprocess.STDOUT, timeout=limit)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            note(f"{name}: cut at {limit:.0f} s (not marked done); run again on this machine")
            return 0
        tail = [line for line in log_path.read_text().splitlines() if line.strip()][-1:] or ["(no output)"]
        note(f"{name} rc={rc}: {tail[0]}")
        if rc in (0, 5):  # 5: nothing collected (every test deselected or skipped at collection)
            (args.state / f"{name}.done").touch()
    last = {}  # each file's latest result line (a rerun on a later call replaces the earlier one)
    for line in (args.out / "suite.md").read_text().splitlines():
        m = re.match(r"(test_\w+\.py) rc=", line)
        if m:
            last[m.group(1)] = line
    counts = {}
    for line in last.values():
        for n, what in re.findall(r"(\d+) (passed|failed|skipped|errors?)", line):
            counts[what] = counts.get(what, 0) + int(n)
    note(f"all tasks done: {len(last)} files, {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
