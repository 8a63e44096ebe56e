"""Kernel lists (runtime/kernel_list.py): parsing, merged atomic writes, recording at exit, the prebuild pool, and
tools/demo_kernels.txt against the selection rules that pick its kernels. CPU only."""
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.kernels import heuristics, mixed_input
from cutlass_gemm.kernels.families import config_from_name
from cutlass_gemm.ops import wo_heuristics
from cutlass_gemm.runtime import build, kernel_list, loader

ROOT = Path(__file__).resolve().parents[1]
GEMM = "sm90_int8_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8"
CONV = "sm90_conv2d_fprop_int8_f16_t128x128x128_c1x1x1_s0"
MIXED = "sm90_mixed_f16_int4_sym_t128x128x64_c1x1x1_cooperative_s0"


def test_parse_list_skips_comments_and_blanks_and_repeats_in_order():
    text = f"# header\n\n{CONV}\n  {GEMM}   # trailing comment\n{CONV}\n"
    assert kernel_list.parse_list(text) == [CONV, GEMM]


def test_parse_list_names_the_file_and_line_of_a_bad_name():
    with pytest.raises(InvalidArgumentError, match=r"kernels\.txt:3:") as info:
        kernel_list.parse_list(f"{GEMM}\n# ok\nsm90_not_a_kernel\n", "kernels.txt")
    assert info.value.argument == "path"


def test_read_list_of_a_missing_file_is_a_typed_error(tmp_path):
    with pytest.raises(InvalidArgumentError, match="cannot read the kernel list"):
        kernel_list.read_list(tmp_path / "absent.txt")


def test_write_list_merges_sorted_keeps_the_header_and_rewrites_only_on_change(tmp_path):
    path = tmp_path / "sub" / "k.txt"
    assert kernel_list.write_list(path, [MIXED, GEMM], header="first line\nsecond") == sorted([MIXED, GEMM])
    assert path.read_text() == f"# first line\n# second\n{GEMM}\n{MIXED}\n"
    stamp = path.stat().st_mtime_ns, path.stat().st_ino
    assert kernel_list.write_list(path, [GEMM], header="ignored on merge") == sorted([MIXED, GEMM])
    assert (path.stat().st_mtime_ns, path.stat().st_ino) == stamp  # same text: not rewritten
    kernel_list.write_list(path, [CONV])
    assert path.read_text() == f"# first line\n# second\n{CONV}\n{GEMM}\n{MIXED}\n"
    kernel_list.write_list(path, [CONV], header="fresh", merge=False)
    assert path.read_text() == f"# fresh\n{CONV}\n"
    assert not list(path.parent.glob("*.lock")) and not list(path.parent.glob(".tmp-*"))  # nothing left beside it


def test_write_list_checks_every_name_before_touching_the_file(tmp_path):
    path = tmp_path / "k.txt"
    kernel_list.write_list(path, [GEMM])
    before = path.read_text()
    with pytest.raises(InvalidArgumentError):
        kernel_list.write_list(path, [CONV, "sm90_bogus"])
    assert path.read_text() == before


def test_loaded_names_are_the_loader_registry_sorted(monkeypatch):
    fake = {config_from_name(n): object() for n in (MIXED, GEMM, CONV)}
    monkeypatch.setattr(loader, "_loaded", fake)
    assert kernel_list.loaded_names() == sorted([MIXED, GEMM, CONV])


_RECORDER = """
import sys
from cutlass_gemm.kernels.families import config_from_name
from cutlass_gemm.runtime import loader
for name in sys.argv[1:]:
    loader._loaded[config_from_name(name)] = object()
"""


def _record(path, *names):
    env = dict(os.environ, **{kernel_list.RECORD_ENV: str(path)})
    return subprocess.Popen([sys.executable, "-c", _RECORDER, *names], env=env, cwd=ROOT)


def test_the_environment_variable_records_each_process_into_one_list(tmp_path):
    path = tmp_path / "recorded.txt"
    procs = [_record(path, GEMM, CONV), _record(path, MIXED), _record(path, CONV)]  # at once: a merge under a lock
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    assert kernel_list.read_list(path) == sorted([GEMM, CONV, MIXED])
    assert path.read_text().startswith("# kernels recorded by CUTLASS_GEMM_RECORD_KERNELS")


def test_a_process_that_loads_nothing_writes_no_list(tmp_path):
    path = tmp_path / "recorded.txt"
    assert _record(path).wait(timeout=120) == 0
    assert not path.exists()


def test_prebuild_builds_each_kernel_once_in_parallel_and_reports_every_outcome(monkeypatch):
    calls, state, lock = [], {"now": 0, "peak": 0}, threading.Lock()
    names = [CONV, GEMM, MIXED, "sm90_conv2d_fprop_int8_f16_t128x128x64_c1x1x1_s0",
             "sm90_conv2d_fprop_int8_f16_t64x128x128_c1x1x1_s0"]

    def fake_build(cfg, source=None, announce=None):
        with lock:
            calls.append((cfg.name, source))
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.2)
        with lock:
            state["now"] -= 1
        if cfg.name == MIXED:
            raise RuntimeError("nvcc said no")
        return Path("/nowhere"), (0.0 if cfg.name == GEMM else 12.5)

    monkeypatch.setattr(build, "build", fake_build)
    monkeypatch.setattr(build, "lookup", lambda cfg, source=None: None)  # nothing the loader would find yet
    report = kernel_list.prebuild(names + [GEMM], jobs=3, sources={CONV: "// the committed text"}, progress=False)
    assert sorted(n for n, _ in calls) == sorted(names)  # the repeat is built once
    assert dict(calls)[CONV] == "// the committed text" and dict(calls)[GEMM] is None
    assert state["peak"] == 3
    assert report.cached == [GEMM]
    assert [n for n, _ in report.built] == sorted(set(names) - {GEMM, MIXED})
    assert report.failed == [(MIXED, "nvcc said no")] and not report.ok
    assert f"FAILED {MIXED}: nvcc said no" in str(report)


@pytest.mark.parametrize("packaged", [True, False])
def test_prebuild_leaves_what_the_loader_already_finds_unless_told_otherwise(monkeypatch, packaged):
    built = []
    monkeypatch.setattr(build, "build", lambda cfg, source=None, announce=None: built.append(cfg.name) or
                        (Path("/nowhere"), 9.0))
    # MIXED: in an installed package of prebuilt kernels (or the cache): what build.lookup answers for it
    monkeypatch.setattr(build, "lookup", lambda cfg, source=None: Path("/pkg/k.so") if cfg.name == MIXED else None)
    report = kernel_list.prebuild([MIXED, GEMM], jobs=2, progress=False, packaged=packaged)
    if packaged:
        assert built == [GEMM] and report.cached == [MIXED]
    else:  # tools/package_kernels.py: everything compiled into its own cache
        assert sorted(built) == sorted([MIXED, GEMM]) and report.cached == []


def test_demo_prebuilds_the_listed_kernels_of_the_gpu_kernel_family_only(monkeypatch, tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import demo
    finally:
        sys.path.remove(str(ROOT / "tools"))
    from cutlass_gemm.ops import gemm
    from cutlass_gemm.runtime import extension
    listed = tmp_path / "k.txt"
    sm80 = heuristics.prebuilt_configs(80)[0].name
    listed.write_text(f"{GEMM}\n{sm80}\n{CONV}\n")
    asked = []
    monkeypatch.setattr(demo.torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(extension, "load", lambda: object())
    monkeypatch.setattr(kernel_list, "prebuild", lambda names, jobs: asked.append(list(names)) or
                        kernel_list.PrebuildReport())
    for sm, want in ((90, [GEMM, CONV]), (80, [sm80])):
        monkeypatch.setattr(gemm, "kernel_sm", lambda index, sm=sm: sm)
        assert demo.prebuild(listed, 2) is True
        assert asked.pop() == want


def test_generate_kernels_list_option_generates_the_listed_sources(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import generate_kernels
    finally:
        sys.path.remove(str(ROOT / "tools"))
    listed = tmp_path / "k.txt"
    listed.write_text(f"# two families\n{CONV}\n{GEMM}\n")
    assert generate_kernels.main(["--out", str(tmp_path / "gen"), "--list", str(listed)]) == 0
    assert (tmp_path / "gen" / "sm90_conv" / f"{CONV}.cu").is_file()
    assert (tmp_path / "gen" / "sm90" / f"{GEMM}.cu").is_file()
    listed.write_text("sm90_bogus\n")
    with pytest.raises(SystemExit) as info:
        generate_kernels.main(["--out", str(tmp_path / "gen"), "--list", str(listed)])
    assert info.value.code == 2


# ---- tools/demo_kernels.txt: what the demo prebuilds, against the rules that select its kernels ----------------
def _demo_list():
    return set(kernel_list.read_list(ROOT / "tools" / "demo_kernels.txt"))


def test_demo_list_holds_the_demo_gemm_kernel():
    # tools/demo.py's first call: scaled_mm 1000 x 4096 x 4096, int8, bias, bf16 out, per-token x per-channel
    choice = heuristics.choose_tile(90, 1000, 4096, "int8", 4096)
    assert heuristics.make_config(90, "scaled_bias", "bf16", choice).name in _demo_list()


def test_demo_list_holds_the_int8_resnet_conv_kernels():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from conv_kernels_needed import needed
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert needed("resnet") <= _demo_list()  # the fp16 ResNet-50's k x k / strided convs at batch 32


def test_demo_list_holds_the_weight_only_resnet_mixed_kernels():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from resnet50 import RESNET50_CONVS
    finally:
        sys.path.remove(str(ROOT / "tools"))
    want = set()
    for _, ci, co, k, s, hw in RESNET50_CONVS:  # stride-1 1x1 convs: the weight-only GEMM; large M: mixed-input
        for batch in (1, 32):
            m = batch * hw * hw
            for bits, group in ((4, 128 if ci % 128 == 0 else 64), (8, None)):
                if (k, s) == (1, 1) and m >= wo_heuristics.mixed_from(bits, co, ci):
                    want.add(mixed_input.select_config("f16", bits, False, m, co, ci, group).name)
    assert want and want <= _demo_list()


def test_demo_list_names_only_kernels_of_known_families():
    families = {type(config_from_name(n)).__name__ for n in _demo_list()}
    assert families == {"KernelConfig", "Conv2dConfig", "MixedInputConfig", "BlockwiseConfig"}


def test_emission_runs_one_kernel_at_a_time_while_builds_run_side_by_side(monkeypatch):
    # prebuild's threads (and JIT builds of concurrent callers) may all need a source emitted; the emitters drive
    # cutlass_cppgen, which is not thread-safe, so build._emit serializes them.
    state, lock = {"now": 0, "peak": 0}, threading.Lock()

    class Family:
        def emit(self, cfg):
            with lock:
                state["now"] += 1
                state["peak"] = max(state["peak"], state["now"])
            time.sleep(0.05)
            with lock:
                state["now"] -= 1
            return f"// {cfg.name}"

    monkeypatch.setattr(build, "family_of", lambda cfg: Family())
    cfgs = [config_from_name(n) for n in (CONV, GEMM, MIXED)] * 2
    threads = [threading.Thread(target=build._emit, args=(c,)) for c in cfgs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert state["peak"] == 1


def test_generate_kernels_builds_the_extension_beside_the_kernels(tmp_path, monkeypatch):
    """--extension starts the extension's build in a thread before the family's work, so the two overlap (a device
    call's build in one command), and any family flag gets it; a failed extension fails a call that compiles nothing."""
    import threading
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import generate_kernels
    finally:
        sys.path.remove(str(ROOT / "tools"))
    from cutlass_gemm.runtime import extension
    started, release = threading.Event(), threading.Event()
    seen = []

    def fake_build(verbose=False):
        started.set()
        assert release.wait(10)

    def fake_run(args, p):
        assert started.wait(10)  # the extension's build is under way while the kernels' work runs
        seen.append((args.mixed, args.compile))
        release.set()
        return 0

    monkeypatch.setattr(extension, "build_extension", fake_build)
    monkeypatch.setattr(generate_kernels, "_run", fake_run)
    assert generate_kernels.main(["--out", str(tmp_path), "--extension", "--mixed", "--compile"]) == 0
    assert seen == [(True, True)]

    def failing(verbose=False):
        raise RuntimeError("no GPU")
    monkeypatch.setattr(extension, "build_extension", failing)
    monkeypatch.setattr(generate_kernels, "_run", lambda args, p: 0)
    assert generate_kernels.main(["--out", str(tmp_path), "--extension"]) == 1
    assert generate_kernels.main(["--out", str(tmp_path), "--extension", "--compile"]) == 0
