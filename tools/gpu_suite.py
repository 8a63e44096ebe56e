#!/usr/bin/env python3
"""The whole GPU test suite from an empty kernel cache, over as many device calls as it takes.

  python tools/gpu_suite.py OUT [--state DIR] [--deadline SECONDS] [--jobs N] [--per-gpu N] [--list]

Tasks, in order: the torch extension (built beside everything else), every kernel the suite can be known to use
(one pool of N nvcc jobs over the SM90 default set, the blockwise, mixed-input and conv sets from their committed
sources in generated/, the SM80 and SM89 families with sm_90 code, and the extra kernels the activation, stream-K and conv
tests list), then every tests/*_gpu.py file: one pytest process per file, or per shard of a slow file
(CUTLASS_GEMM_TEST_SHARD, tests/conftest.py), --per-gpu processes at once on each visible GPU, slowest first. A call stops starting tasks when its deadline
(seconds from the call's start, default 570) is near; a finished task is marked in --state (default
/tmp/cutlass_gemm_suite, which lives as long as the device machine stays warm), so the next call continues where
this one stopped; on a fresh machine everything runs again (built kernels are cache hits only on a warm machine).
Logs go to OUT, one per task, and `suite.md` sums them, ending with the kernels the tests built on first use (ones suite_kernels() should list) and how many of the kernels built ahead no test loaded (every test process records what it loads into STATE/loaded/TASK.txt; OUT gets kernels_loaded.txt and kernels_by_task.md). `--list` prints the kernels and test files and exits.
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
from queue import Queue

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tools")]
T0 = time.monotonic()


def suite_kernels():
    """(config, source or None) of every kernel to build ahead: committed sources where generated/ has them."""
    from cutlass_gemm.kernels import blockwise_heuristics as blockwise, conv2d, heuristics, mixed_input
    from cutlass_gemm.kernels.config import KernelConfig
    from cutlass_gemm.kernels.families import config_from_name, family_of
    from cutlass_gemm.runtime.kernel_list import read_list
    import test_activation_gpu
    import test_streamk_gpu
    from conv_kernels_needed import needed

    configs = [c for sm in (90, 80, 89) for c in heuristics.default_configs(sm)]
    configs += [KernelConfig.from_name(n) for n in test_activation_gpu.KERNELS]
    configs += list(test_streamk_gpu.KERNELS)
    configs += list(blockwise.default_configs()) + list(mixed_input.default_configs())
    configs += list(mixed_input.default_configs(80))
    configs += list(conv2d.default_configs()) + list(conv2d.default_configs(80))
    configs += [conv2d.Conv2dConfig.from_name(n) for n in sorted(needed("tests"))]
    configs += [config_from_name(n) for n in read_list(LOADED_LIST)]  # what the tests loaded last time
    seen, out = set(), []
    for cfg in configs:
        if cfg.name in seen:
            continue
        seen.add(cfg.name)
        path = ROOT / "generated" / family_of(cfg).generated_subdir(cfg) / f"{cfg.name}.cu"
        out.append((cfg, path.read_text() if path.exists() else None))
    return out


#: The kernels the suite's tests loaded in the last whole run (a kernel list, runtime/kernel_list.py): the default sets
#: above miss some (session 58: 9 built on first use inside the tests, one test file 5 minutes long for it).
LOADED_LIST = ROOT / "tools" / "suite_kernels_loaded.txt"


def test_files():
    return sorted(p.name for p in (ROOT / "tests").glob("test_*_gpu.py"))


#: Seconds of pytest each slow file took on a prebuilt cache, two processes per GPU on 4 H100s (session 27 call 3,
#: shards summed), and the shards it is split into, so the longest runs start first and none holds the suite up.
SLOW_FILES = {
    "test_wo_variants_gpu.py": (231, 4), "test_weight_only_mixed_gpu.py": (222, 4), "test_quant_ops_gpu.py": (185, 4),
    "test_weight_only_gpu.py": (154, 3), "test_conv_gpu.py": (126, 3), "test_block_gemv_gpu.py": (89, 2),
    "test_blockwise_gpu.py": (80, 2),
}
QUICK_FILE = (40, 1)  # every other file took 10-41 s there


def test_tasks():
    """[(task name, (file, shard index, shard count))], slowest (per shard) first."""
    tasks = []
    for name in test_files():
        seconds, count = SLOW_FILES.get(name, QUICK_FILE)
        for index in range(count):
            tasks.append((seconds / count, task_name(name, index, count), (name, index, count)))
    return [(task, spec) for _, task, spec in sorted(tasks, key=lambda t: (-t[0], t[1]))]


def task_name(name: str, index: int, count: int) -> str:
    """"test_x_gpu.py", or "test_x_gpu.py.1of4" for a shard: the name of its log (.log for .py) and marker."""
    return name if count == 1 else f"{name}.{index}of{count}"


def cache_libraries():
    """Kernel libraries in the kernel cache, as sm../NAME (the key dropped), sorted."""
    from cutlass_gemm.runtime import build
    root = build.cache_root()
    return sorted({f"{p.parent.name}/{p.name.rsplit('-', 1)[0]}" for p in root.glob("sm*/*.so")})


def marker(state: Path, task: str, what: str = "done") -> Path:
    """The file that marks `task` done (passed; not run again) or ran (to its end, passed or failed)."""
    return state / f"{task}.{what}"


def gpu_slots(per_gpu: int):
    import torch
    return [g for g in range(max(1, torch.cuda.device_count())) for _ in range(per_gpu)]


def run_tests(args, note) -> None:
    """Each test task not yet marked done, in its own pytest process pinned to one GPU (CUDA_VISIBLE_DEVICES),
    len(slots) at once; a task marks itself done when pytest returns 0 (or 5: nothing collected)."""
    slots = Queue()
    for gpu in gpu_slots(args.per_gpu):
        slots.put(gpu)

    def one(task, spec):
        name, index, count = spec
        gpu = slots.get()
        try:
            limit = left(args.deadline) - 5
            if limit < 60:
                return f"stopped before {task}: {left(args.deadline):.0f} s left; run again on this machine"
            # every test process adds the kernels it loads to one list (merged under a lock): what the suite really
            # uses, against the suite_kernels() it built ahead
            env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(gpu),
                       CUTLASS_GEMM_RECORD_KERNELS=str(task_loaded_list(args, task)))
            if count > 1:
                env["CUTLASS_GEMM_TEST_SHARD"] = f"{index}/{count}"
            log_path = args.out / (task.replace(".py", "", 1) + ".log")
            cmd = [sys.executable, "-m", "pytest", "-m", "gpu", "-q", "-rfEs", "--durations=10",
                   "-p", "no:cacheprovider", f"tests/{name}"]
            t0 = time.monotonic()
            try:
                proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=open(log_path, "w"),
                                      stderr=subprocess.STDOUT, timeout=limit)
            except subprocess.TimeoutExpired:
                return f"{task}: cut at {limit:.0f} s (not marked done); run again on this machine"
            lines = [line for line in log_path.read_text().splitlines() if line.strip()]
            if proc.returncode in (0, 5):  # 5: nothing collected (every test deselected or skipped)
                marker(args.state, task).touch()
            marker(args.state, task, "ran").touch()  # ran to its end, passed or not: the summary may come
            return (f"{task} rc={proc.returncode}: {(lines or ['(no output)'])[-1]} "
                    f"[gpu {gpu}, {time.monotonic() - t0:.0f} s]")
        finally:
            slots.put(gpu)

    todo = [(task, spec) for task, spec in test_tasks() if not marker(args.state, task).exists()]
    with ThreadPoolExecutor(max_workers=slots.qsize()) as pool:
        futures = {pool.submit(one, task, spec): task for task, spec in todo}
        for fut in as_completed(futures):
            try:
                note(fut.result())
            except Exception as exc:  # the runner's own fault: reported, the task stays not done
                note(f"{futures[fut]}: runner failed: {exc!r}")


def task_loaded_list(args, task: str) -> Path:
    """The kernel list one task's test process records into (runtime/kernel_list.py), in the state folder (so that
    it spans every call of a run): which kernels each test file needs, for a later run to schedule by."""
    return args.state / "loaded" / f"{task}.txt"


def merge_loaded(args) -> tuple:
    """(every kernel the tasks loaded, {task: its kernels}); both written to OUT (kernels_loaded.txt,
    kernels_by_task.md)."""
    from cutlass_gemm.runtime.kernel_list import read_list, write_list
    by_task = {p.stem: read_list(p) for p in sorted((args.state / "loaded").glob("*.txt"))}
    used = sorted({name for names in by_task.values() for name in names})
    write_list(args.out / "kernels_loaded.txt", used, merge=False,
               header="The kernels the GPU test suite loaded (tools/gpu_suite.py): the source of "
                      "tools/suite_kernels_loaded.txt")
    rows = [f"| {task} | {len(names)} | {' '.join(names)} |" for task, names in sorted(by_task.items())]
    (args.out / "kernels_by_task.md").write_text("| task | kernels | names |\n|---|---|---|\n" + "\n".join(rows) + "\n")
    return used, by_task


def left(deadline: float) -> float:
    return deadline - (time.monotonic() - T0)


def build_kernels(kernels, jobs: int, deadline: float, log) -> bool:
    """Emit the sources generated/ lacks (one at a time: emission is not thread-safe), then compile with `jobs` at
    once; stops submitting when the deadline is near. True when every kernel is built."""
    from cutlass_gemm.kernels.families import family_of
    from cutlass_gemm.runtime import build
    # Kernels with committed sources first; the others are emitted here, in this thread (emission is not
    # thread-safe), while the pool already compiles.
    todo = sorted(kernels, key=lambda item: item[1] is None)
    done, failed = 0, []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {}
        queue = list(todo)
        while queue or futures:
            while queue and len(futures) < jobs and left(deadline) > 90:  # ~one nvcc run must still fit
                cfg, source = queue.pop(0)
                try:
                    source = source if source is not None else family_of(cfg).emit(cfg)
                except Exception as exc:
                    failed.append(cfg.name)
                    log.write(f"FAILED  {cfg.name} (emission): {exc}\n")
                    continue
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
    ap.add_argument("--per-gpu", type=int, default=2, help="test processes at once on each GPU")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    os.environ.setdefault("CUTLASS_GEMM_SM80_ARCHS", "80,90")  # the SM80 family runs on the H100 from sm_90 code
    os.environ.setdefault("CUTLASS_GEMM_SM89_ARCHS", "89,90")  # so does the SM89 fp8 family
    kernels = suite_kernels()
    if args.list:
        print("\n".join(c.name for c, _ in kernels))
        print("\n".join(task for task, _ in test_tasks()))
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
    listed = args.state / "libraries_before_tests.txt"
    if not listed.exists():
        listed.write_text("\n".join(cache_libraries()))
    run_tests(args, note)
    # The summary once every task has run to its end (a failed one too: it is run again on the next call, but the
    # coverage lines below should not wait for it to pass).
    if any(not marker(args.state, task, "ran").exists() for task, _ in test_tasks()):
        return 0
    before = set(listed.read_text().split())
    built = [name for name in cache_libraries() if name not in before]
    # Kernels the tests built on first use: the next suite_kernels() should list them (session 27: 7 unnamed).
    note(f"kernels the tests built on first use: {len(built)}" + "".join(f"\n  {name}" for name in built))
    used, by_task = merge_loaded(args)
    if by_task:
        unused = [cfg.name for cfg, _ in kernels if cfg.name not in set(used)]
        note(f"kernels the tests loaded: {len(used)} (kernels_loaded.txt, by task: kernels_by_task.md); "
             f"built ahead and never loaded: {len(unused)} of {len(kernels)}")
    last = {}  # each file's latest result line (a rerun on a later call replaces the earlier one)
    for line in (args.out / "suite.md").read_text().splitlines():
        m = re.match(r"(test_\w+\.py(?:\.\d+of\d+)?) rc=", line)
        if m:
            last[m.group(1)] = line
    counts = {}
    for line in last.values():
        for n, what in re.findall(r"(\d+) (passed|failed|skipped|errors?)", line):
            counts[what] = counts.get(what, 0) + int(n)
    note(f"all tasks done: {len(last)} test tasks, {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
