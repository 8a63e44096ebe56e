"""Helpers shared by tools/benchmark.py and tools/bench_e2e.py: stamping, GPU (sleep-queued or CUDA-graph) and
wall-clock timing, L2 rotation, the measured copy bandwidth, and writing CSV / Markdown / PNG results."""
import contextlib
import csv
import datetime
import json
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

L2_BYTES = 50 * 2**20


def stamp():
    return {"date": datetime.date.today().isoformat(), "device": torch.cuda.get_device_name(),
            "torch": torch.__version__, "cuda": torch.version.cuda}


@contextlib.contextmanager
def pdl_off():
    """Inside: the extension's decode kernels as plain launches (its PDL switch off, runtime/csrc/pdl.cuh), restored
    after. Yields False (and changes nothing) where the extension has no switch: the caller then skips its rows."""
    from cutlass_gemm.runtime import extension
    ext = extension.load()
    switch = getattr(ext, "pdl_set", None) if ext is not None else None
    if switch is None:
        yield False
        return
    before = switch(0)
    try:
        yield True
    finally:
        switch(before)


def plain_launch(fn):
    """`fn` with the kernel libraries' programmatic dependent launches off during each call (runtime/loader.py
    set_programmatic_launch; restored after), for a row beside the default launch in one process."""
    from cutlass_gemm.runtime import loader

    def run(*args, **kwargs):
        before = loader.set_programmatic_launch(False)
        try:
            return fn(*args, **kwargs)
        finally:
            loader.set_programmatic_launch(before)
    return run


#: A timing whose median batch is more than this many times its fastest is taken again (up to SETTLE_RETRIES times):
#: on the device machines a window of tens of ms in which everything runs 2-4x slower comes now and then (session 38
#: call 8: two of 27 alternating groups of one probe, every row of each, the fastest batch normal; the decode
#: benchmark's single rows of 39 / 183 / 88 us for a ~7 us call in sessions 37-38), and one such window can hold most
#: batches of one row.
SETTLE_SPREAD = 1.5
SETTLE_RETRIES = 2


def _settled_median(measure, what):
    """The median of `measure()`'s per-batch times, measured again while it exceeds SETTLE_SPREAD x their minimum
    (a disturbed window, named on stderr); the last median after SETTLE_RETRIES more tries."""
    for attempt in range(SETTLE_RETRIES + 1):
        times = measure()
        med = statistics.median(times)
        if med <= SETTLE_SPREAD * min(times) or attempt == SETTLE_RETRIES:
            return med
        print(f"  {what}: batches {min(times):.2f}..{max(times):.2f} us, median {med:.2f}: timed again",
              file=sys.stderr, flush=True)


def gpu_time_us(fn, batch=20, batches=7, warmup=3):
    """Median GPU time per call (us) over batches queued behind a sleep (again where the batches disagree:
    _settled_median)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()

    def measure():
        times = []
        for _ in range(batches):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(3_000_000)
            start.record()
            for _ in range(batch):
                fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e3 / batch)
        return times
    return _settled_median(measure, "gpu_time_us")


def alternating_time_us(fns, batch=20, rounds=9, warmup=3):
    """Median GPU time per call (us) of each of `fns`, timed in alternating batches: round r times a batch of
    fns[0], then one of fns[1], ... (each queued behind a sleep, events). A GPU under sustained load lowers its
    clock over seconds, so rows timed one after another (gpu_time_us) drift apart by several % at the largest
    shapes; here every function sees the same clock, which is what a ratio between them needs."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    torch.cuda.synchronize()
    times = [[] for _ in fns]
    for _ in range(rounds):
        for j, fn in enumerate(fns):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(3_000_000)
            start.record()
            for _ in range(batch):
                fn()
            end.record()
            end.synchronize()
            times[j].append(start.elapsed_time(end) * 1e3 / batch)
    return [statistics.median(t) for t in times]


def graph_time_us(fn, calls=20, replays=7, warmup=3):
    """Median GPU time per call (us) with no host cost in it: `calls` calls captured into one CUDA graph
    (warmed up on a side stream first, as capture requires), each replay queued behind a sleep and timed with
    events. What `fn` allocates comes from the graph's private pool, so its outputs stay valid across replays.
    Unlike `gpu_time_us` (a sleep then eager calls), a host slower than the kernel cannot drain the queue and
    turn the figure into the host's rate. Replays that disagree are timed again (_settled_median)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    graph.replay()  # the first replay uploads the graph
    torch.cuda.synchronize()

    def measure():
        times = []
        for _ in range(replays):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(1_000_000)  # the graph launch is queued before the GPU gets to it
            start.record()
            graph.replay()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e3 / calls)
        return times
    med = _settled_median(measure, "graph_time_us")
    del graph
    return med


def wall_time_us(fn, calls=200, reps=5, warmup=10):
    """Median over `reps` of the wall clock per call (us) of `calls` back-to-back calls, no sleep in front,
    synchronized before and after: host overhead included."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    per_rep = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        per_rep.append((time.perf_counter() - t0) * 1e6 / calls)
    return statistics.median(per_rep)


def copies_for(nbytes_each, target=4 * L2_BYTES, lo=1, hi=8):
    """How many copies of an operand of `nbytes_each` bytes to rotate so that together they exceed `target`
    (a multiple of L2), clamped to [lo, hi]."""
    return max(lo, min(hi, math.ceil(target / max(1, nbytes_each))))


def parse_shapes(text):
    """"MxNxK,MxNxK" -> [(m, n, k), ...]."""
    return [tuple(int(v) for v in s.lower().split("x")) for s in text.split(",") if s.strip()]


def cycler(items):
    """A zero-argument callable returning the items in turn (round robin)."""
    state = {"i": -1}

    def nxt():
        state["i"] = (state["i"] + 1) % len(items)
        return items[state["i"]]

    return nxt


def copy_bandwidth_gbps(nbytes=2**30):
    """Device-to-device copy bandwidth (GB/s, bytes read + written) of `dst.copy_(src)` on `nbytes`, median."""
    bufs = [torch.ones(nbytes, dtype=torch.uint8, device="cuda"), torch.empty(nbytes, dtype=torch.uint8, device="cuda")]
    try:
        us = gpu_time_us(lambda: bufs[1].copy_(bufs[0]), batch=3, batches=5, warmup=2)
    finally:
        bufs.clear()
        torch.cuda.empty_cache()
    return 2 * nbytes / us / 1e3


def fail(what, exc):
    """Report a benchmark row or shape that raised, and go on with the rest."""
    print(f"  FAILED {what}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)


def bench_shapes(shapes, bench_shape, failures):
    """Rows of `bench_shape(m, n, k)` over (M, N, K) `shapes`, under no_grad; a shape that raises is
    reported, recorded in `failures` and skipped; the allocator's cache is emptied between shapes."""
    rows = []
    for m, n, k in shapes:
        t0 = time.time()
        try:
            with torch.no_grad():
                rows += bench_shape(m, n, k)
        except Exception as exc:
            fail(f"shape {m}x{n}x{k}", exc)
            failures.append(f"{m}x{n}x{k} (whole shape): {type(exc).__name__}: {str(exc)[:200]}")
        torch.cuda.empty_cache()
        print(f"{m}x{n}x{k} done in {time.time() - t0:.1f} s", file=sys.stderr, flush=True)
    return rows


def write_results(out_dir, name, rows):
    if not rows:
        print(f"{name}: no rows to write", file=sys.stderr)
        return
    s = stamp()
    rows = [{"date": s["date"], "device": s["device"], **r} for r in rows]
    fields = list(dict.fromkeys(key for r in rows for key in r))
    path = Path(out_dir) / f"{name}.csv"
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)


def md_table(header, rows):
    """Markdown table lines from a header list and row lists."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def report(out_dir, name, lines):
    """Print the stamp and the Markdown lines on stdout and write them to <out>/<name>.md."""
    text = f"{json.dumps(stamp())}\n\n" + "\n".join(lines)
    print(text, flush=True)
    (Path(out_dir) / f"{name}.md").write_text(text + "\n")


def plot_panels(path, panels, title, xlabel, ylabel):
    """One line chart per panel, `panels` = {panel title: {series label: [(x, y), ...]}}, x on a log2 axis,
    saved as a PNG at `path`. Skipped with a note on stderr without matplotlib or on any plotting error."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.6), squeeze=False)
        for ax, (panel, series) in zip(axes[0], panels.items()):
            for label, pts in series.items():
                pts = sorted(pts)
                ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=label)
            ax.set_xscale("log", base=2)
            ax.set_title(panel)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
        axes[0][0].legend(fontsize=6)
        s = stamp()
        fig.suptitle(f"{title}, {s['device']}, {s['date']}")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
    except Exception as exc:
        print(f"plot skipped: {type(exc).__name__}: {exc}", file=sys.stderr)
