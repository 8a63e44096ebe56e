#!/usr/bin/env python3
"""The whole GPU test suite from an empty kernel cache, over as many device calls as it takes.

  python tools/gpu_suite.py OUT [--state DIR] [--deadline SECONDS] [--jobs N] [--per-gpu N] [--files PATTERN ...]
                               [--fresh] [--pack] [--list]

One pool of N nvcc jobs builds every kernel the suite can be known to use (tools/suite_plan.py: the SM90 default set,
the blockwise, mixed-input and conv sets from their committed sources in generated/, the SM80 and SM89 families with
sm_90 code, the extra kernels the tests list, and what the tests loaded last time), beside the torch extension. The test
tasks (every tests/*_gpu.py file: one pytest process per file, or per shard of a slow file, CUTLASS_GEMM_TEST_SHARD) run
--per-gpu at once on each visible GPU, slowest first, and they need not wait for the whole pool: a file whose kernels
the last run recorded (tools/suite_kernels_by_file.json) starts as soon as the extension and those kernels are built,
the pool building them first; a file without a record waits for the whole pool. A task that would not end before the
call's deadline (its expected seconds, suite_plan.SLOW_FILES) is not started; a finished one is marked in --state
(default /tmp/cutlass_gemm_suite, which lives as long as the device machine stays warm), so the next call continues
where this one stopped; on a fresh machine everything runs again (built kernels are cache hits only on a warm machine).
Logs go to OUT, one per task; `suite.md` sums them, and once every task has run, ends with the totals over all calls,
the kernels the tests built on first use and how many kernels built ahead no test loaded (every test process records
what it loads into STATE/loaded/TASK.txt; OUT gets kernels_loaded.txt, kernels_by_task.md and kernels_by_file.json, the
next run's record, the files this run ran replacing theirs in the record it read). `--files test_conv* ...` runs
only those test files and builds only the kernels their records name and their family fixtures build (a session that
changed one family checks it on a small machine); `--list` prints the kernels in build order and the tasks. Each call
first runs tools/device_setup.py: `--fresh` empties the kernel, inductor and state caches, the carried wheels (.whl/)
are installed when nvidia-cutlass does not import, OUT/machine.txt records the machine; `--pack` ends the call by
moving OUT's logs into OUT/logs.tgz.
Session 13's resumable step.sh (tools/results/h100-2026-11-26/session13/full/) is where this comes from.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, as_completed, wait
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tools")]
T0 = time.monotonic()
POLL = 2.0  # seconds between looks at the pool and the running tasks

from device_setup import cache_libraries, cache_line, pack_logs, setup  # noqa: E402
from suite_plan import (BY_FILE, LOADED_LIST, QUICK_FILE, SLOW_FILES, build_order, by_file_json,  # noqa: E402,F401
                        estimate, file_of, fixture_kernels, pool_marker_name, read_by_file, select_kernels,
                        select_tasks, suite_kernels, task_name, test_files, test_tasks)


def marker(state: Path, task: str, what: str = "done") -> Path:
    """The file that marks `task` done (passed; not run again) or ran (to its end, passed or failed)."""
    return state / f"{task}.{what}"


def gpu_slots(per_gpu: int):
    import torch
    # GPUs interleaved (0, 1, .., 0, 1, ..): the first tasks, the slowest, spread over every GPU
    return [g for _ in range(per_gpu) for g in range(max(1, torch.cuda.device_count()))]


def left(deadline: float) -> float:
    return deadline - (time.monotonic() - T0)


def fits(spec, deadline: float) -> bool:
    """Whether a task is expected to end before the call's deadline (a task cut there is lost work: it runs again
    from its start on the next call). 1.3x and 20 s of margin: the figures were taken on a quiet machine."""
    name, _, count = spec
    return left(deadline) - 10 > 1.3 * estimate(name, count) + 20


class Builder:
    """The kernel pool in a thread of its own, so that tests can start beside it: `built` holds every kernel known
    to be in the cache (built now or found there), `running` is false once the pool stopped (all built, or the
    deadline)."""

    def __init__(self, kernels, jobs: int, deadline: float, log_path: Path, done_marker: Path):
        self.kernels, self.jobs, self.deadline, self.log_path = kernels, jobs, deadline, log_path
        self.done_marker = done_marker
        self.built: set = set()
        self.complete = False
        self._thread = threading.Thread(target=self._run, name="kernel-pool", daemon=True)

    def start(self) -> "Builder":
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def join(self) -> None:
        self._thread.join()

    def _run(self) -> None:
        with open(self.log_path, "a") as log:
            try:
                if build_kernels(self.kernels, self.jobs, self.deadline, log, self.built):
                    self.done_marker.touch()  # before `complete`: a reader that sees it finds the marker
                    self.complete = True
            except Exception as exc:  # the pool's own fault: said, and the tests that wait on it are not started
                log.write(f"kernel pool failed: {exc!r}\n")


#: The nice value the pool's threads (and the nvcc processes they start) add to their own.
POOL_NICE = 10


def background() -> None:
    """Lower the calling thread's CPU priority by POOL_NICE (the pool's thread initializer). On Linux the nice value
    belongs to a thread and the processes it starts inherit it, so nvcc yields the CPU to the extension's build and to
    the test processes, which gate the tests and hold the GPUs (session 59: at equal priority beside 56 nvcc jobs the
    extension took 336 s, and no test could start before it; beside 28 niced jobs on 32 cores, 139 s; alone on 16
    cores in session 39, 109 s)."""
    try:
        os.nice(POOL_NICE)
    except OSError:  # not permitted: the pool runs at the same priority, slower tests but nothing wrong
        pass


def build_kernels(kernels, jobs: int, deadline: float, log, built: set) -> bool:
    """Emit the sources generated/ lacks (one at a time, in this thread: emission is not thread-safe) and compile
    with `jobs` at once, in the order given; adds each kernel's name to `built` once it is in the cache; stops
    submitting when the deadline is near. True when every kernel is built."""
    from cutlass_gemm.kernels.families import family_of
    from cutlass_gemm.runtime import build
    done, failed = 0, []
    with ThreadPoolExecutor(max_workers=jobs, initializer=background) as pool:
        futures = {}
        queue = list(kernels)
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
                built.add(cfg.name)
                log.write(f"{seconds:7.1f} s  {cfg.name}\n" if seconds else f" cached    {cfg.name}\n")
            except Exception as exc:  # every failure reported, the rest still built
                failed.append(cfg.name)
                log.write(f"FAILED  {cfg.name}: {exc}\n")
            log.flush()
    log.write(f"built {done} of {len(kernels)} ({len(failed)} failed, {len(queue)} not started) "
              f"at {time.monotonic() - T0:.0f} s\n")
    return done == len(kernels)


def readiness(args, builder, extension_ready, listed_names):
    """ready(file): the extension's build has ended, and either the whole pool is built (now or on an earlier call)
    or the file has a record whose listed kernels are all built. Kernels a record names outside the pool's list are
    not waited for (the test builds them on first use, under the cache's lock)."""
    record = read_by_file(args.by_file)

    def ready(name: str) -> bool:
        if not extension_ready():
            return False
        if (args.state / args.pool_marker).exists():
            return True
        needs = record.get(name)
        if needs is None or builder is None:
            return False
        return all(k in builder.built for k in needs if k in listed_names)
    return ready


def run_tests(args, note, ready, waiting) -> None:
    """Each test task not yet marked done, in its own pytest process pinned to one GPU (CUDA_VISIBLE_DEVICES),
    one per slot; a task starts once ready(file) holds and it fits before the deadline, slowest first, and marks
    itself done when pytest returns 0 (or 5: nothing collected). `waiting()`: whether a task not ready yet may become
    ready (the pool is still building)."""
    free = gpu_slots(args.per_gpu)
    all_gpus = ",".join(str(g) for g in sorted(set(free)))
    todo = [(task, spec) for task, spec in selected(args) if not marker(args.state, task).exists()]

    def one(task, spec, gpu):
        name, index, count = spec
        limit = left(args.deadline) - 5
        # every test process adds the kernels it loads to its task's list: what the suite really uses, per file
        # pinned to one GPU; CUTLASS_GEMM_ALL_GPUS names them all for a test that needs two (test_multi_gpu_gpu.py)
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(gpu), CUTLASS_GEMM_ALL_GPUS=all_gpus,
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
                f"[gpu {gpu}, started at {t0 - T0:.0f} s, {time.monotonic() - t0:.0f} s]")

    running = {}
    with ThreadPoolExecutor(max_workers=len(free)) as pool:
        while True:
            while free:
                pick = next(((t, s) for t, s in todo if ready(s[0]) and fits(s, args.deadline)), None)
                if pick is None:
                    break
                todo.remove(pick)
                gpu = free.pop(0)
                running[pool.submit(one, pick[0], pick[1], gpu)] = (pick[0], gpu)
            if not running and not (todo and waiting() and left(args.deadline) > 60):
                break
            if not running:  # every slot free, nothing ready yet: the pool is still building what they need
                time.sleep(POLL)
                continue
            done, _ = wait(list(running), timeout=POLL, return_when=FIRST_COMPLETED)
            for fut in done:
                task, gpu = running.pop(fut)
                free.append(gpu)
                try:
                    note(fut.result(), result=True)
                except Exception as exc:  # the runner's own fault: reported, the task stays not done
                    note(f"{task}: runner failed: {exc!r}")
    if todo:
        note(f"not started on this call ({left(args.deadline):.0f} s left): {len(todo)} tasks, "
             + " ".join(task for task, _ in todo))


def selected(args):
    """The test tasks of this run: every one, or those of the --files patterns."""
    return select_tasks(test_tasks(), getattr(args, "files", None) or [])


def task_loaded_list(args, task: str) -> Path:
    """The kernel list one task's test process records into (runtime/kernel_list.py), in the state folder (so that
    it spans every call of a run): which kernels each test file needs, for a later run to schedule by."""
    return args.state / "loaded" / f"{task}.txt"


def merge_loaded(args) -> tuple:
    """(every kernel the tasks loaded, {task: its kernels}); written to OUT: kernels_loaded.txt, kernels_by_task.md
    and kernels_by_file.json (the next run's tools/suite_kernels_by_file.json)."""
    from cutlass_gemm.runtime.kernel_list import read_list, write_list
    by_task = {p.name[:-len(".txt")]: read_list(p) for p in sorted((args.state / "loaded").glob("*.txt"))}
    for ran in args.state.glob("*.ran"):  # a task that ran and loaded nothing: its empty record lets it start early
        by_task.setdefault(ran.name[:-len(".ran")], [])
    by_task = dict(sorted(by_task.items()))
    used = sorted({name for names in by_task.values() for name in names})
    write_list(args.out / "kernels_loaded.txt", used, merge=False,
               header="The kernels the GPU test suite loaded (tools/gpu_suite.py): the source of "
                      "tools/suite_kernels_loaded.txt")
    rows = [f"| {task} | {len(names)} | {' '.join(names)} |" for task, names in sorted(by_task.items())]
    (args.out / "kernels_by_task.md").write_text("| task | kernels | names |\n|---|---|---|\n" + "\n".join(rows) + "\n")
    # the record the next run starts by: the files this run ran replace theirs in the one it read (a --files run
    # leaves the others as they were); files no longer in tests/ are dropped
    ran_files = {file_of(task) for task in by_task}
    kept = {name: names for name, names in read_by_file(getattr(args, "by_file", BY_FILE)).items()
            if name not in ran_files and name in set(test_files())}
    (args.out / "kernels_by_file.json").write_text(by_file_json(
        {**kept, **by_task}, "The kernels each GPU test file loaded (tools/gpu_suite.py, its shards merged): a file "
                             "starts while the kernel pool still builds once these are built (tools/suite_plan.py "
                             "BY_FILE)."))
    return used, by_task


def summary(args, kernels, tasks, note) -> None:
    """The closing lines, once every task has run to its end: totals over every call (each task's latest line),
    the kernels the tests built on first use, and which kernels built ahead no test loaded."""
    listed = {cfg.name for cfg, _ in kernels}
    built = [lib for lib in cache_libraries() if lib.split("/", 1)[1] not in listed]
    # Kernels the tests built on first use (in the cache, not in the pool's list): the next suite_kernels() should
    # list them (session 27: 7 unnamed; session 58: 9)
    note(f"kernels the tests built on first use: {len(built)}" + "".join(f"\n  {name}" for name in built))
    used, by_task = merge_loaded(args)
    if by_task:
        unused = [cfg.name for cfg, _ in kernels if cfg.name not in set(used)]
        note(f"kernels the tests loaded: {len(used)} (kernels_loaded.txt, by task: kernels_by_task.md, by file: "
             f"kernels_by_file.json); built ahead and never loaded: {len(unused)} of {len(kernels)}")
    last = {}  # each task's latest result line over every call (a rerun on a later call replaces the earlier one)
    results = args.state / "results.md"
    names = {task for task, _ in tasks}
    for line in (results.read_text().splitlines() if results.exists() else []):
        m = re.match(r"(test_\w+\.py(?:\.\d+of\d+)?) rc=", line)
        if m and m.group(1) in names:
            last[m.group(1)] = line
    counts = {}
    for line in last.values():
        for n, what in re.findall(r"(\d+) (passed|failed|skipped|errors?)", line):
            counts[what] = counts.get(what, 0) + int(n)
    note(f"all tasks done: {len(last)} test tasks, {counts}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--state", type=Path, default=Path("/tmp/cutlass_gemm_suite"))
    ap.add_argument("--deadline", type=float, default=570.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--per-gpu", type=int, default=2, help="test processes at once on each GPU")
    ap.add_argument("--by-file", type=Path, default=BY_FILE,
                    help="the per-file kernel record tests start by while the pool builds (a missing file: none)")
    ap.add_argument("--files", nargs="+", metavar="PATTERN",
                    help="only the test files these fnmatch patterns name (test_conv*, test_ops_gpu.py); the pool "
                         "then builds only the kernels their records name and their fixtures build (all of the suite's "
                         "when one has none)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--fresh", action="store_true", help="empty the kernel cache, torch's inductor cache and --state "
                    "first (a new user's machine); tools/device_setup.py")
    ap.add_argument("--wheels", type=Path, default=ROOT / ".whl", help="carried wheels, installed into /tmp when "
                    "nvidia-cutlass does not import")
    ap.add_argument("--pack", action="store_true", help="at the end, move OUT's logs into OUT/logs.tgz")
    args = ap.parse_args(argv)
    os.environ.setdefault("CUTLASS_GEMM_SM80_ARCHS", "80,90")  # the SM80 family runs on the H100 from sm_90 code
    os.environ.setdefault("CUTLASS_GEMM_SM89_ARCHS", "89,90")  # so does the SM89 fp8 family
    try:
        tasks = selected(args)
    except ValueError as exc:
        ap.error(str(exc))
    record = read_by_file(args.by_file)
    files = sorted({spec[0] for _, spec in tasks})
    kernels = build_order(select_kernels(suite_kernels(), files, record) if args.files else suite_kernels(), record)
    args.pool_marker = pool_marker_name(kernels)
    if args.list:
        print("\n".join(c.name for c, _ in kernels))
        print("\n".join(task for task, _ in tasks))
        return 0
    setup_lines = setup(args.out, args.fresh, args.state, args.wheels)  # before anything reads the cache or state
    args.state.mkdir(parents=True, exist_ok=True)
    report = open(args.out / "suite.md", "a")
    results = open(args.state / "results.md", "a")  # every call's result lines: the totals span the calls

    def note(line, result=False):
        print(line, flush=True)
        for f in (report, results) if result else (report,):
            f.write(line + "\n")
            f.flush()

    for line in setup_lines:
        note(line)
    try:
        return _run(args, tasks, kernels, note)
    finally:
        note(cache_line("after"))
        if args.pack:
            pack_logs(args.out)


def _run(args, tasks, kernels, note) -> int:
    """The call's work once set up: the extension and the pool beside the test tasks, then the summary."""
    ext = None
    if not (args.state / "extension.done").exists():
        ext = subprocess.Popen([sys.executable, "-c", "from cutlass_gemm.runtime import extension; "
                                "extension.build_extension()"], stdout=open(args.out / "extension.log", "w"),
                               stderr=subprocess.STDOUT, cwd=ROOT)
    builder = None
    if not (args.state / args.pool_marker).exists():
        builder = Builder(kernels, args.jobs, args.deadline, args.out / "kernels.log",
                          args.state / args.pool_marker).start()
    said = []

    def extension_ready() -> bool:
        """True once the extension's build has ended (a failed one too: it is said, the tests that need it fail and
        say why, and the next call builds it again)."""
        if ext is None:
            return True
        if ext.poll() is None:
            return False
        if not said:
            said.append(ext.returncode)
            note(f"extension rc={ext.returncode} at {time.monotonic() - T0:.0f} s")
            if ext.returncode == 0:
                (args.state / "extension.done").touch()
        return True

    def waiting() -> bool:
        return (builder is not None and builder.running) or (ext is not None and ext.poll() is None)

    names = {cfg.name for cfg, _ in kernels}
    run_tests(args, note, readiness(args, builder, extension_ready, names), waiting)
    if builder is not None:
        builder.join()
        note(f"kernels: {(args.out / 'kernels.log').read_text().splitlines()[-1]}")
        if builder.complete and any(not marker(args.state, t).exists() for t, _ in tasks):
            note("the pool finished as the call ended; run again on this machine for the tests left")
    if ext is not None and ext.poll() is None:
        ext.kill()
        note("stopped: the extension was still building; run again on this machine")
    if any(not marker(args.state, task, "ran").exists() for task, _ in tasks):
        return 0
    summary(args, kernels, tasks, note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
