"""tools/gpu_suite.py's test plan and the test-shard option of tests/conftest.py (CPU only)."""
import os
import re
import subprocess
import sys
from pathlib import Path

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
    args = types.SimpleNamespace(state=tmp_path / "state", out=tmp_path / "out")
    args.out.mkdir()
    names = read_list(gpu_suite.LOADED_LIST)[:5]
    write_list(gpu_suite.task_loaded_list(args, "test_a_gpu.py"), names[:3])
    write_list(gpu_suite.task_loaded_list(args, "test_b_gpu.py.0of2"), names[2:])
    used, by_task = gpu_suite.merge_loaded(args)
    assert used == sorted(names) == read_list(args.out / "kernels_loaded.txt")
    assert by_task == {"test_a_gpu.py": sorted(names[:3]), "test_b_gpu.py.0of2": sorted(names[2:])}
    table = (args.out / "kernels_by_task.md").read_text()
    assert "| test_a_gpu.py | 3 |" in table and "| test_b_gpu.py.0of2 | 3 |" in table


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
