"""Autotune: winner selection, the on-disk table (persistence, failures, concurrency, determinism)."""
import json
import multiprocessing as mp
import os

import pytest

from cutlass_gemm.runtime import autotune, build
from cutlass_gemm.runtime.autotune import Autotuner
from cutlass_gemm.kernels.heuristics import TileChoice

DEV = "NVIDIA_H100_80GB_HBM3-sm90"
A = TileChoice((64, 64, 128), (1, 1, 1), "pingpong")
B = TileChoice((64, 128, 128), (2, 1, 1), "pingpong")
C = TileChoice((256, 128, 128), (1, 2, 1), "cooperative")
D = TileChoice((128, 128, 128), (1, 1, 1), "pingpong")  # the 1024-row row since session 50 (also NARROW and a WAVES tile)
S = TileChoice((128, 128, 64), schedule="multistage", stages=5)
PROBLEM = ("scaled", "int8", "bf16", 128, 4096, 4096)


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


class FakeTimer:
    def __init__(self, times):
        self.times, self.calls = times, []

    def __call__(self, choice):
        self.calls.append(choice)
        t = self.times[choice]
        if isinstance(t, Exception):
            raise t
        return t


def test_picks_the_fastest_and_stores_it(cache_dir):
    timer = FakeTimer({A: 30.0, B: 12.5, C: 20.0})
    tuner = Autotuner()
    assert tuner.lookup(DEV, *PROBLEM) is None
    assert tuner.best(DEV, *PROBLEM, [A, B, C], timer) == B
    assert timer.calls == [A, B, C]
    path = cache_dir / "autotune" / f"{DEV}.json"
    assert path.exists() and path.with_suffix(".lock").exists()
    entry = json.loads(path.read_text())["entries"]["scaled:int8:bf16:128x4096x4096"]
    assert entry == {"tile": [64, 128, 128], "cluster": [2, 1, 1], "schedule": "pingpong", "stages": 0,
                     "times_us": {"64x64x128-c1x1x1-pingpong": 30.0, "64x128x128-c2x1x1-pingpong": 12.5,
                                  "256x128x128-c1x2x1-cooperative": 20.0}}
    # in-process: no more timing
    assert tuner.best(DEV, *PROBLEM, [A, B, C], timer) == B and len(timer.calls) == 3
    assert tuner.lookup(DEV, *PROBLEM) == B
    # another shape is a separate entry
    assert tuner.best(DEV, "scaled", "int8", "bf16", 1, 4096, 4096, [A, B, C], FakeTimer({A: 1.0, B: 2.0, C: 3.0})) == A
    assert len(tuner.table(DEV)) == 2


def test_ties_go_to_the_first_candidate_and_duplicates_are_timed_once():
    timer = FakeTimer({A: 5.0, B: 5.0})
    assert Autotuner().best(DEV, *PROBLEM, [B, A, B], timer) == B
    assert timer.calls == [B, A]


def test_remembered_across_instances_without_timing():
    Autotuner().best(DEV, *PROBLEM, [A, B, S], FakeTimer({A: 3.0, B: 2.0, S: 1.0}))
    fresh = Autotuner()
    assert fresh.lookup(DEV, *PROBLEM) == S  # read back from the file, stages included

    def must_not_time(choice):
        raise AssertionError("timed a remembered shape")

    assert fresh.best(DEV, *PROBLEM, [A, B, S], must_not_time) == S
    assert autotune.get_autotuner().lookup(DEV, *PROBLEM) == S
    # other devices and other shapes are not confused with it
    assert fresh.lookup("NVIDIA_A100-SXM4-80GB-sm80", *PROBLEM) is None
    assert fresh.lookup(DEV, "scaled", "int8", "fp16", 128, 4096, 4096) is None


def test_winner_not_among_candidates_is_retimed():
    Autotuner().best(DEV, *PROBLEM, [A, B], FakeTimer({A: 3.0, B: 2.0}))
    timer = FakeTimer({A: 3.0, C: 4.0})
    tuner = Autotuner()
    assert tuner.best(DEV, *PROBLEM, [A, C], timer) == A
    assert timer.calls == [A, C]
    assert Autotuner().lookup(DEV, *PROBLEM) == A


def test_failing_candidates_are_skipped_and_recorded():
    timer = FakeTimer({A: RuntimeError("kernel not built"), B: 9.0, C: float("nan")})
    tuner = Autotuner()
    assert tuner.best(DEV, *PROBLEM, [A, B, C], timer) == B
    entry = Autotuner().table(DEV)["scaled:int8:bf16:128x4096x4096"]
    assert entry["times_us"] == {"64x64x128-c1x1x1-pingpong": None, "64x128x128-c2x1x1-pingpong": 9.0,
                                 "256x128x128-c1x2x1-cooperative": None}
    assert entry["failed"]["64x64x128-c1x1x1-pingpong"] == "RuntimeError: kernel not built"
    assert "nan" in entry["failed"]["256x128x128-c1x2x1-cooperative"]


def test_all_failing_raises_and_stores_nothing(cache_dir):
    timer = FakeTimer({A: RuntimeError("boom"), B: ValueError("bad")})
    tuner = Autotuner()
    with pytest.raises(RuntimeError, match="all 2 candidates failed.*boom.*bad"):
        tuner.best(DEV, *PROBLEM, [A, B], timer)
    assert tuner.lookup(DEV, *PROBLEM) is None
    assert not (cache_dir / "autotune" / f"{DEV}.json").exists()
    with pytest.raises(ValueError):
        tuner.best(DEV, *PROBLEM, [], timer)


def test_forget_clears_disk_and_memory():
    tuner = Autotuner()
    tuner.best(DEV, *PROBLEM, [A, B], FakeTimer({A: 1.0, B: 2.0}))
    other = "NVIDIA_A100-sm80"
    tuner.best(other, *PROBLEM, [S], FakeTimer({S: 1.0}))
    tuner.forget(DEV)
    assert tuner.lookup(DEV, *PROBLEM) is None and Autotuner().lookup(DEV, *PROBLEM) is None
    assert Autotuner().lookup(other, *PROBLEM) == S
    tuner.forget("never-tuned-sm90")  # no error


def test_device_keys_and_problem_keys_are_validated():
    assert autotune.make_device_key("NVIDIA H100 80GB HBM3", 90) == DEV
    assert autotune.make_device_key("NVIDIA A100-SXM4-80GB", 80) == "NVIDIA_A100-SXM4-80GB-sm80"
    tuner = Autotuner()
    for bad in ("../evil", "a/b", "", ".hidden"):
        with pytest.raises(ValueError):
            tuner.lookup(bad, *PROBLEM)
    with pytest.raises(ValueError):
        tuner.best(DEV, "sca:led", "int8", "bf16", 1, 2, 3, [A], FakeTimer({A: 1.0}))
    with pytest.raises(ValueError):
        tuner.best(DEV, "scaled", "int8", "bf16", 0, 2, 3, [A], FakeTimer({A: 1.0}))


def test_corrupt_or_foreign_file_is_ignored_and_replaced(cache_dir):
    path = cache_dir / "autotune" / f"{DEV}.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    tuner = Autotuner()
    assert tuner.lookup(DEV, *PROBLEM) is None
    assert tuner.best(DEV, *PROBLEM, [A], FakeTimer({A: 1.0})) == A
    assert json.loads(path.read_text())["format"] == autotune.FORMAT_VERSION
    path.write_text(json.dumps({"format": 999, "entries": {}}))
    assert Autotuner().lookup(DEV, *PROBLEM) is None


def test_file_bytes_are_deterministic(tmp_path, monkeypatch):
    def write(root, order):
        monkeypatch.setenv(build.CACHE_ENV, str(root))
        tuner = Autotuner()
        for m in order:
            tuner.best(DEV, "scaled", "int8", "bf16", m, 4096, 4096, [A, B, C],
                       FakeTimer({A: 3.0 + m, B: 2.0 / m, C: RuntimeError("x")}))
        return (root / "autotune" / f"{DEV}.json").read_bytes()

    one, two = write(tmp_path / "one", [1, 16, 256]), write(tmp_path / "two", [256, 1, 16])
    assert one == two
    assert one.endswith(b"\n") and json.loads(one)["device"] == DEV


def _concurrent_writer(cache: str, worker: int, barrier, count: int) -> None:
    os.environ[build.CACHE_ENV] = cache
    tuner = Autotuner()
    barrier.wait()
    for i in range(count):
        tuner.best(DEV, "scaled", "int8", "bf16", 1 + worker * 1000 + i, 4096, 4096, [A, B],
                   lambda c: 1.0 if c == (A if (worker + i) % 2 else B) else 2.0)


def test_concurrent_writers_lose_nothing(cache_dir):
    ctx = mp.get_context("spawn")
    barrier, count = ctx.Barrier(3), 12
    procs = [ctx.Process(target=_concurrent_writer, args=(str(cache_dir), w, barrier, count)) for w in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    tuner = Autotuner()
    table = tuner.table(DEV)
    assert len(table) == 3 * count
    for w in range(3):
        for i in range(count):
            assert tuner.lookup(DEV, "scaled", "int8", "bf16", 1 + w * 1000 + i, 4096, 4096) == \
                (A if (w + i) % 2 else B)
    leftovers = [p.name for p in (cache_dir / "autotune").iterdir() if p.name.startswith(".tmp-")]
    assert not leftovers


def test_bucket_m():
    assert [autotune.bucket_m(m) for m in (1, 2, 3, 4, 5, 63, 64, 65, 1000, 4096)] == \
        [1, 2, 4, 4, 8, 64, 64, 128, 1024, 4096]
    with pytest.raises(ValueError):
        autotune.bucket_m(0)


@pytest.mark.parametrize("value,expected", [
    ("1", True), ("true", True), ("TRUE", True), ("yes", True), ("On", True), (" on ", True),
    ("0", False), ("false", False), ("no", False), ("off", False), ("", False), ("2", False), (None, False),
])
def test_enabled_parsing(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv(autotune.AUTOTUNE_ENV, raising=False)
    else:
        monkeypatch.setenv(autotune.AUTOTUNE_ENV, value)
    assert autotune.enabled() is expected


def test_default_candidates_and_labels():
    assert autotune.default_candidates(90) == [A, B, D, C]  # table order
    assert len(autotune.default_candidates(80)) == 3
    assert autotune.candidate_label(S) == "128x128x64-c1x1x1-multistage-s5"
    labels = {autotune.candidate_label(c) for sm in (80, 90) for c in autotune.default_candidates(sm)}
    assert len(labels) == 7


@pytest.mark.gpu
def test_time_gpu_us_on_gpu():
    import torch
    a = torch.randn(2048, 2048, device="cuda")
    us = autotune.time_gpu_us(lambda: a @ a)
    assert 0 < us < 1e5
