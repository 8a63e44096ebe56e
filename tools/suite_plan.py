"""What tools/gpu_suite.py runs: the kernels it builds ahead, the test tasks (files and shards) with the seconds each
took last time, and which kernels each test file needs before it may start (the suite's own per-file record).

Data, not scheduling: gpu_suite.py reads this module and decides what runs when.
"""
from __future__ import annotations

import fnmatch
import hashlib
import importlib
import json
import sys
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT, ROOT / "tests", ROOT / "tools"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

#: The kernels the suite's tests loaded in the last whole run (a kernel list, runtime/kernel_list.py): the default sets
#: miss some (session 58: 9 built on first use inside the tests, one test file 5 minutes long for it).
LOADED_LIST = ROOT / "tools" / "suite_kernels_loaded.txt"

#: Per test file, the kernels its test processes loaded in the last whole run ({"files": {file: [names]}}): a file
#: starts while the pool still builds once its kernels are in the cache; a file without a record waits for the whole
#: pool. Written by gpu_suite.py into OUT/kernels_by_file.json; refresh from there when the tests change.
BY_FILE = ROOT / "tools" / "suite_kernels_by_file.json"

#: Seconds of pytest a slow file took, shards summed, and the shards it is split into, so the longest runs start first
#: and none holds the suite up. Measured in session 59's whole run (4 H200s, 2 processes per GPU; the weight-only,
#: quant-ops and mixed-input files beside the kernel pool, the others alone after it: tools/results/h200-2026-11-29/
#: session59/call3/results_so_far.md), sharded to about 150 s or less where a file has enough tests.
SLOW_FILES = {
    "test_weight_only_mixed_gpu.py": (1518, 12), "test_wo_variants_gpu.py": (1355, 10),
    "test_quant_ops_gpu.py": (618, 5), "test_weight_only_gpu.py": (468, 4), "test_pdl_conv_mixed_gpu.py": (258, 2),
    "test_blockwise_gpu.py": (254, 2), "test_conv_wo_gpu.py": (190, 2), "test_conv_int8_gpu.py": (181, 2),
    "test_conv_int8_sm80_on_sm90_gpu.py": (171, 2), "test_conv_gpu.py": (151, 3),
    "test_ops_gpu.py": (140, 1),  # 60-90 s of it built a kernel on first use, built ahead from now on
    "test_block_gemv_gpu.py": (105, 2), "test_llama_gpu.py": (92, 1), "test_pdl_blockwise_gpu.py": (83, 1),
    "test_conv_chain_gpu.py": (67, 1), "test_every_default_kernel_gpu.py": (50, 2),
    # session 65 call 1b: 88-91 s a shard (Inductor in a child process); session 66 added the ops, export, AOTI tests
    "test_compile_first_gpu.py": (300, 3),  # session 66 call 3: 65 + 68 + 161 s
    "test_multi_gpu_gpu.py": (100, 1),  # session 66 calls 3-4: 88 s, 61 s
}
QUICK_FILE = (30, 1)  # every other file took 11-30 s there


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


def test_files() -> List[str]:
    return sorted(p.name for p in (ROOT / "tests").glob("test_*_gpu.py"))


def estimate(name: str, count: int) -> float:
    """Seconds one shard of test file `name` (of `count`) is expected to take."""
    return SLOW_FILES.get(name, QUICK_FILE)[0] / count


def test_tasks() -> List[Tuple[str, Tuple[str, int, int]]]:
    """[(task name, (file, shard index, shard count))], slowest (per shard) first."""
    tasks = []
    for name in test_files():
        count = SLOW_FILES.get(name, QUICK_FILE)[1]
        for index in range(count):
            tasks.append((estimate(name, count), task_name(name, index, count), (name, index, count)))
    return [(task, spec) for _, task, spec in sorted(tasks, key=lambda t: (-t[0], t[1]))]


def task_name(name: str, index: int, count: int) -> str:
    """"test_x_gpu.py", or "test_x_gpu.py.1of4" for a shard: the name of its log (.log for .py) and marker."""
    return name if count == 1 else f"{name}.{index}of{count}"


def file_of(task: str) -> str:
    """The test file a task name runs ("test_x_gpu.py.1of4" -> "test_x_gpu.py")."""
    return task.split(".py", 1)[0] + ".py"


def read_by_file(path: Path = BY_FILE) -> Dict[str, List[str]]:
    """{test file: the kernels it loaded last time}; {} when there is no record."""
    if not path.exists():
        return {}
    return {name: sorted(names) for name, names in json.loads(path.read_text())["files"].items()}


def by_file_json(by_task: Dict[str, List[str]], note: str) -> str:
    """The per-file record's text from per-task lists (a file's shards merged), deterministic."""
    files: Dict[str, set] = {}
    for task, names in by_task.items():
        files.setdefault(file_of(task), set()).update(names)
    body = {"note": note, "files": {name: sorted(files[name]) for name in sorted(files)}}
    return json.dumps(body, indent=1, sort_keys=True) + "\n"


def build_order(kernels, by_file: Dict[str, List[str]]):
    """`kernels` (config, source) reordered so the kernels of recorded files come first, in the order their files'
    tasks start (slowest first), then the rest; committed sources before ones to emit within each group (emission
    runs in the pool's thread while nvcc already works)."""
    rank: Dict[str, int] = {}
    for position, (_, (name, _, _)) in enumerate(test_tasks()):
        for kernel in by_file.get(name, ()):
            rank.setdefault(kernel, position)
    last = len(rank) + 10 ** 6
    return sorted(kernels, key=lambda item: (rank.get(item[0].name, last), item[1] is None))


def select_tasks(tasks, patterns):
    """The tasks whose test file matches one of `patterns` (fnmatch, e.g. "test_conv*"; ".py" optional); all of them
    when `patterns` is empty. A pattern that matches no test file is a ValueError (a typo would run nothing)."""
    if not patterns:
        return list(tasks)
    files = test_files()
    for pattern in patterns:
        if not any(_matches(name, pattern) for name in files):
            raise ValueError(f"--files {pattern!r} matches no tests/*_gpu.py file")
    return [(task, spec) for task, spec in tasks if any(_matches(spec[0], p) for p in patterns)]


def _matches(name: str, pattern: str) -> bool:
    return fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(name, pattern + ".py")


def fixture_kernels(name: str) -> List[str]:
    """The kernels test file `name` builds itself, all at once in its module fixture, whatever its tests then load:
    what its `family_configs()` returns (an SM80 / SM89 default set run on SM90, tests/gpu_helpers.py
    family_on_sm90). A run of that file alone builds them in the pool, ahead, rather than in the test (session 60: 24
    bias-free zero-point SM80 GEMMs that the per-file record does not name, because only
    tests/test_every_default_kernel_gpu.py loads them). Only a file that defines it is imported."""
    path = ROOT / "tests" / name
    if "\ndef family_configs(" not in path.read_text():
        return []
    return sorted(cfg.name for cfg in importlib.import_module(path.stem).family_configs())


def select_kernels(kernels, files, by_file: Dict[str, List[str]]):
    """The pool for a run of the test `files` only: the kernels their records name and their fixtures build
    (`fixture_kernels`; the suite's list entry, or the committed source, for each), when every one of them has a
    record; else every kernel of `kernels`."""
    if any(name not in by_file for name in files):
        return list(kernels)
    from cutlass_gemm.kernels.families import config_from_name, family_of
    listed = {cfg.name: (cfg, source) for cfg, source in kernels}
    out = []
    for name in sorted({k for f in files for k in by_file[f] + fixture_kernels(f)}):
        if name in listed:
            out.append(listed[name])
            continue
        cfg = config_from_name(name)
        path = ROOT / "generated" / family_of(cfg).generated_subdir(cfg) / f"{name}.cu"
        out.append((cfg, path.read_text() if path.exists() else None))
    return out


def pool_marker_name(kernels) -> str:
    """The state file that marks this pool built: keyed by its kernel names, so that a run of a few files (a smaller
    pool) does not mark the whole suite's pool built in the same state folder."""
    digest = hashlib.sha256("\n".join(sorted(cfg.name for cfg, _ in kernels)).encode()).hexdigest()[:12]
    return f"kernels-{digest}.done"
