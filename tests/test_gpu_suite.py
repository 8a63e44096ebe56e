"""tools/gpu_suite.py's test plan and the test-shard option of tests/conftest.py (CPU only)."""
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import gpu_suite  # noqa: E402


def test_every_gpu_file_is_planned_and_every_shard_once():
    tasks = gpu_suite.test_tasks()
    names = [task for task, _ in tasks]
    assert len(names) == len(set(names))
    by_file = {}
    for task, (name, index, count) in tasks:
        by_file.setdefault(name, []).append((index, count))
    assert sorted(by_file) == gpu_suite.test_files()
    for name, shards in by_file.items():
        count = shards[0][1]
        assert sorted(shards) == [(i, count) for i in range(count)], name
    assert set(gpu_suite.SLOW_FILES) <= set(by_file), "a slow-file entry names no test file"


def test_slowest_shards_start_first():
    per_shard = [gpu_suite.SLOW_FILES.get(name, gpu_suite.QUICK_FILE) for _, (name, _, _) in gpu_suite.test_tasks()]
    seconds = [s / c for s, c in per_shard]
    assert seconds == sorted(seconds, reverse=True)


def test_markers_are_plain_file_names_and_distinct(tmp_path):
    tasks = [task for task, _ in gpu_suite.test_tasks()]
    paths = {gpu_suite.marker(tmp_path, task) for task in tasks}
    assert len(paths) == len(tasks)
    assert all(p.parent == tmp_path and re.fullmatch(r"[\w.]+\.done", p.name) for p in paths)
    ran = {gpu_suite.marker(tmp_path, task, "ran") for task in tasks}
    assert len(ran) == len(tasks) and not ran & paths


def test_the_kernels_the_tests_loaded_last_time_are_built_ahead():
    """The recorded list (tools/suite_kernels_loaded.txt) names kernels, each of which parses, and suite_kernels()
    holds every one of them beside the default sets, each once."""
    from cutlass_gemm.runtime.kernel_list import read_list
    recorded = read_list(gpu_suite.LOADED_LIST)
    names = [cfg.name for cfg, _ in gpu_suite.suite_kernels()]
    assert recorded and len(names) == len(set(names))
    assert set(recorded) <= set(names)


def test_per_task_kernel_records_merge(tmp_path):
    """Each task records into its own list under the state folder; the summary merges them (kernels_loaded.txt) and
    keeps which task loaded what (kernels_by_task.md)."""
    import types
    from cutlass_gemm.runtime.kernel_list import read_list, write_list
    args = types.SimpleNamespace(state=tmp_path / "state", out=tmp_path / "out", by_file=tmp_path / "by_file.json")
    args.out.mkdir()
    # the record the run read: a file this run does not run keeps its entry, one it runs is replaced, a file no
    # longer in tests/ is dropped
    names = read_list(gpu_suite.LOADED_LIST)[:5]
    kept_file = gpu_suite.test_files()[0]
    args.by_file.write_text(gpu_suite.by_file_json(
        {kept_file: names[4:], "test_a_gpu.py": names[4:], "test_gone_gpu.py": names[:1]}, ""))
    write_list(gpu_suite.task_loaded_list(args, "test_a_gpu.py"), names[:3])
    write_list(gpu_suite.task_loaded_list(args, "test_b_gpu.py.0of2"), names[2:])
    gpu_suite.marker(args.state, "test_c_gpu.py", "ran").touch()  # ran, loaded no kernel
    used, by_task = gpu_suite.merge_loaded(args)
    assert used == sorted(names) == read_list(args.out / "kernels_loaded.txt")
    assert by_task == {"test_a_gpu.py": sorted(names[:3]), "test_b_gpu.py.0of2": sorted(names[2:]),
                       "test_c_gpu.py": []}
    table = (args.out / "kernels_by_task.md").read_text()
    assert "| test_a_gpu.py | 3 |" in table and "| test_b_gpu.py.0of2 | 3 |" in table
    # the next run's per-file record: a file's shards merged, read back as it was written
    assert gpu_suite.read_by_file(args.out / "kernels_by_file.json") == {
        "test_a_gpu.py": sorted(names[:3]), "test_b_gpu.py": sorted(names[2:]), "test_c_gpu.py": [],
        kept_file: names[4:]}


def test_the_committed_per_file_record_names_test_files_and_kernels():
    from cutlass_gemm.kernels.families import config_from_name
    record = gpu_suite.read_by_file()
    assert record and set(record) <= set(gpu_suite.test_files())
    assert any(names == [] for names in record.values()), "files that load no kernel start right after the extension"
    for names in record.values():
        assert names == sorted(set(names)) and all(config_from_name(n).name == n for n in names)


def test_the_pool_builds_the_recorded_files_kernels_first():
    kernels = gpu_suite.suite_kernels()
    record = gpu_suite.read_by_file()
    order = [cfg.name for cfg, _ in gpu_suite.build_order(kernels, record)]
    assert sorted(order) == sorted(cfg.name for cfg, _ in kernels)
    wanted = {n for names in record.values() for n in names} & set(order)
    assert wanted and set(order[:len(wanted)]) == wanted


class _Pool:
    """A stand-in for the kernel pool: `built` grows on a timer, `running` until the last kernel."""

    def __init__(self, state, names, every):
        import threading
        self.built, self.complete, self._names = set(), False, list(names)
        self._state = state
        self._thread = threading.Thread(target=self._run, args=(every,), daemon=True)
        self._thread.start()

    def _run(self, every):
        for name in self._names:
            time.sleep(every)
            self.built.add(name)
        (self._state / "kernels.done").touch()
        self.complete = True

    @property
    def running(self):
        return self._thread.is_alive()


def _fake_suite(tmp_path, monkeypatch, tasks, seconds_left=600.0):
    """run_tests over `tasks` [(task, (file, i, n))] with pytest replaced by a recorder of start times."""
    import json
    import types
    args = types.SimpleNamespace(state=tmp_path / "state", out=tmp_path / "out", per_gpu=1,
                                 deadline=seconds_left + (time.monotonic() - gpu_suite.T0),
                                 by_file=tmp_path / "by_file.json", pool_marker="kernels.done")
    args.state.mkdir()
    args.out.mkdir()
    started = {}

    def fake_run(cmd, cwd, env, stdout, stderr, timeout):
        task = Path(env["CUTLASS_GEMM_RECORD_KERNELS"]).name[:-len(".txt")]
        started[task] = time.monotonic()
        stdout.write("1 passed in 0.01s\n")
        stdout.close()
        return types.SimpleNamespace(returncode=0)
    monkeypatch.setattr(gpu_suite.subprocess, "run", fake_run)
    monkeypatch.setattr(gpu_suite, "gpu_slots", lambda per_gpu: [0, 1])
    monkeypatch.setattr(gpu_suite, "test_tasks", lambda: tasks)
    monkeypatch.setattr(gpu_suite, "POLL", 0.02)
    return args, started, json


def test_a_recorded_file_starts_while_the_pool_builds_and_others_wait(tmp_path, monkeypatch):
    tasks = [("test_a_gpu.py", ("test_a_gpu.py", 0, 1)), ("test_b_gpu.py", ("test_b_gpu.py", 0, 1))]
    args, started, json = _fake_suite(tmp_path, monkeypatch, tasks)
    args.by_file.write_text(json.dumps({"note": "", "files": {"test_a_gpu.py": ["k1"]}}))
    pool = _Pool(args.state, ["k1", "k2", "k3"], every=0.3)
    lines = []
    ready = gpu_suite.readiness(args, pool, lambda: True, {"k1", "k2", "k3"})
    gpu_suite.run_tests(args, lambda line, result=False: lines.append(line), ready, lambda: pool.running)
    assert set(started) == {"test_a_gpu.py", "test_b_gpu.py"}
    # a started after k1 and before the pool ended; b only once every kernel was built
    assert started["test_a_gpu.py"] < started["test_b_gpu.py"]
    assert started["test_b_gpu.py"] - started["test_a_gpu.py"] > 0.4
    assert all(gpu_suite.marker(args.state, t).exists() for t, _ in tasks)
    assert sum(" rc=0: 1 passed" in line for line in lines) == 2


def test_nothing_starts_before_the_extension_and_a_task_that_cannot_end_in_time_is_not_started(tmp_path,
                                                                                                 monkeypatch):
    slow = ("test_wo_variants_gpu.py.0of8", ("test_wo_variants_gpu.py", 0, 8))
    quick = ("test_q_gpu.py", ("test_q_gpu.py", 0, 1))
    args, started, _ = _fake_suite(tmp_path, monkeypatch, [slow, quick], seconds_left=100.0)
    (args.state / "kernels.done").touch()
    calls = []

    def extension_ready():
        calls.append(1)
        return len(calls) > 3
    lines = []
    gpu_suite.run_tests(args, lambda line, result=False: lines.append(line),
                        gpu_suite.readiness(args, None, extension_ready, set()), lambda: len(calls) <= 3)
    # the slow shard (126 s expected) does not fit in 100 s; the quick one (40 s) does, once the extension is built
    assert list(started) == ["test_q_gpu.py"] and len(calls) > 3
    assert "not started on this call" in lines[-1] and slow[0] in lines[-1]
    assert not gpu_suite.marker(args.state, slow[0]).exists()


def _collected(shard):
    env = dict(os.environ)
    env.pop("CUTLASS_GEMM_TEST_SHARD", None)
    if shard is not None:
        env["CUTLASS_GEMM_TEST_SHARD"] = shard
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          "tests/test_gpu_suite.py"], cwd=ROOT, env=env, capture_output=True, text=True)
    return out.returncode, [line for line in out.stdout.splitlines() if "::" in line]


def test_shards_partition_a_file():
    rc, everything = _collected(None)
    assert rc == 0 and len(everything) > 3
    parts = [_collected(f"{i}/3") for i in range(3)]
    assert all(rc == 0 and items for rc, items in parts)
    joined = [item for _, items in parts for item in items]
    assert sorted(joined) == sorted(everything)


def test_a_bad_shard_is_a_usage_error():
    for bad in ("3/3", "x"):
        rc, _ = _collected(bad)
        assert rc == 4, bad  # pytest's usage-error exit code


def test_the_pools_nvcc_runs_below_the_tests_priority():
    """A process the pool's thread starts (nvcc) runs POOL_NICE lower than this thread (the extension's build and the
    test processes), and this thread keeps its own priority."""
    from concurrent.futures import ThreadPoolExecutor
    mine = os.nice(0)
    child = [sys.executable, "-c", "import os; print(os.nice(0))"]
    with ThreadPoolExecutor(max_workers=1, initializer=gpu_suite.background) as pool:
        seen = pool.submit(lambda: int(subprocess.run(child, capture_output=True, text=True).stdout)).result()
    assert seen == min(19, mine + gpu_suite.POOL_NICE)
    assert os.nice(0) == mine
    assert int(subprocess.run(child, capture_output=True, text=True).stdout) == mine


def test_a_run_of_a_few_files_builds_only_their_recorded_kernels():
    tasks = gpu_suite.test_tasks()
    conv = gpu_suite.select_tasks(tasks, ["test_conv_int8*"])
    assert {spec[0] for _, spec in conv} == {"test_conv_int8_gpu.py", "test_conv_int8_sm80_on_sm90_gpu.py"}
    assert gpu_suite.select_tasks(tasks, ["test_ops_gpu"]) == [t for t in tasks if t[1][0] == "test_ops_gpu.py"]
    assert gpu_suite.select_tasks(tasks, []) == tasks
    with pytest.raises(ValueError, match="test_nothing"):
        gpu_suite.select_tasks(tasks, ["test_nothing*"])
    kernels = gpu_suite.suite_kernels()
    record = gpu_suite.read_by_file()
    files = sorted({spec[0] for _, spec in conv})
    pool = gpu_suite.select_kernels(kernels, files, record)
    want = {k for f in files for k in record[f] + gpu_suite.fixture_kernels(f)}
    assert sorted(cfg.name for cfg, _ in pool) == sorted(want)
    assert all(source is not None for _, source in pool)  # the committed sources, as the whole pool has them
    # a file without a record: the whole pool; and the two pools are marked built apart in one state folder
    assert len(gpu_suite.select_kernels(kernels, files + ["test_new_gpu.py"], record)) == len(kernels)
    assert gpu_suite.pool_marker_name(pool) != gpu_suite.pool_marker_name(kernels)
    assert gpu_suite.pool_marker_name(pool) == gpu_suite.pool_marker_name(list(reversed(pool)))


def test_a_file_whose_fixture_builds_a_family_gets_all_of_it_in_its_pool():
    """tests/test_sm80_on_sm90_gpu.py's fixture builds every SM80 default GEMM; its record names only those its tests
    load (not the bias-free zero-point ones): the pool of a run of that file has them all, built ahead."""
    from cutlass_gemm.kernels import heuristics
    record = gpu_suite.read_by_file()
    family = {cfg.name for cfg in heuristics.default_configs(80)}
    assert not family <= set(record["test_sm80_on_sm90_gpu.py"])  # the case this covers
    pool = {cfg.name for cfg, _ in gpu_suite.select_kernels(gpu_suite.suite_kernels(), ["test_sm80_on_sm90_gpu.py"],
                                                            record)}
    assert family <= pool and set(record["test_sm80_on_sm90_gpu.py"]) <= pool
    assert gpu_suite.fixture_kernels("test_ops_gpu.py") == []
    # every family fixture declares what it builds (family_configs), so the pool of its file cannot miss it
    with_family = {f for f in gpu_suite.test_files() if "family_on_sm90(" in (ROOT / "tests" / f).read_text()}
    assert with_family == {f for f in gpu_suite.test_files() if gpu_suite.fixture_kernels(f)}
    assert len(with_family) == 4


def test_files_option_lists_the_smaller_pool(capsys):
    assert gpu_suite.main(["/tmp/unused", "--files", "test_ops_gpu.py", "--list"]) == 0
    lines = capsys.readouterr().out.split()
    assert lines[-1] == "test_ops_gpu.py" and not any(line.startswith("test_") for line in lines[:-1])
    assert set(lines[:-1]) == set(gpu_suite.read_by_file()["test_ops_gpu.py"])
    with pytest.raises(SystemExit):
        gpu_suite.main(["/tmp/unused", "--files", "test_typo*", "--list"])
