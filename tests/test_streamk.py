"""Stream-K / split-K scheduler of the SM90 scaled-GEMM family, on the CPU: names and their round trip,
validation, the persistent kernels' names / dicts / sources unchanged, the SPLIT heuristic rows, the emitted
text, the workspace helper and the benchmark's choice syntax. GPU checks: tests/test_streamk_gpu.py."""
import importlib
import sys
from pathlib import Path

import pytest
import torch

from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.kernels import heuristics
from cutlass_gemm.kernels.config import MAX_SPLITS, KernelConfig
from cutlass_gemm.kernels.generate import read_manifest

ROOT = Path(__file__).resolve().parents[1]
GEN90 = ROOT / "generated" / "sm90"

#: The rows SPLIT held before the H100 sweep emptied it (session7/call3): the mechanism's tests install them.
CANDIDATE_ROWS = [
    heuristics.SplitRow(16, 8192, ("int8", "e4m3"), heuristics.DECODE_STREAMK),
    heuristics.SplitRow(16, 16384, ("e4m3",), heuristics.DECODE_STREAMK),
    heuristics.SplitRow(1024, 4096, ("e4m3",), heuristics.NARROW_STREAMK, min_m=257),
]


@pytest.fixture
def candidate_rows(monkeypatch):
    monkeypatch.setitem(heuristics.SPLIT, 90, list(CANDIDATE_ROWS))


def test_committed_split_table_has_no_stream_k_row_as_measured():
    """No stream-K / split-K kernel beat the data-parallel tiles on the H100: no call selects one, none is
    generated into the default set. The one row is e4m3's wide-layer tile (session12/call10): M <= 64 with
    N >= 12288 takes 64x128x256 pingpong; narrower N, int8 and larger M keep the table's tiles."""
    assert heuristics.SPLIT[90] == [heuristics.SplitRow(64, 1 << 31, ("e4m3",), heuristics.FP8_WIDE, min_n=12288)]
    assert [c.name for c in heuristics.split_configs(90)] == [
        "sm90_e4m3_bf16_scaled_bias_token_channel_t64x128x256_c1x1x1_pingpong_s0_a16x16x8",
        "sm90_e4m3_bf16_scaled_token_channel_t64x128x256_c1x1x1_pingpong_s0_a16x16x8"]
    assert all(c.scheduler == "persistent" for c in heuristics.default_configs(90))
    assert heuristics.choose_tile(90, 16, 8192, "int8") == heuristics.choose_tile(90, 16, 8192)
    assert heuristics.choose_tile(90, 16, 14336, "e4m3") == heuristics.FP8_WIDE
    assert heuristics.choose_tile(90, 64, 28672, "e4m3") == heuristics.FP8_WIDE
    for m, n, dtype in ((16, 8192, "e4m3"), (65, 14336, "e4m3"), (16, 14336, "int8")):
        assert heuristics.choose_tile(90, m, n, dtype) == heuristics.choose_tile(90, m, n), (m, n, dtype)


def coop(**kw) -> KernelConfig:
    base = dict(sm=90, a_dtype="int8", tile=(128, 64, 128), schedule="cooperative")
    base.update(kw)
    return KernelConfig(**base)


# ------------------------------------------------------------------------------------------ names
def test_persistent_names_and_dicts_are_unchanged():
    """The persistent default adds nothing to names or dicts: every committed kernel of before keeps its file."""
    name = "sm90_int8_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8"
    cfg = KernelConfig.from_name(name)
    assert cfg.scheduler == "persistent" and cfg.splits == 1 and cfg.name == name
    assert "scheduler" not in cfg.to_dict() and "splits" not in cfg.to_dict()
    assert (GEN90 / f"{name}.cu").is_file()


@pytest.mark.parametrize("scheduler,splits,tag", [("streamk", 1, "_cooperative_streamk_s0"),
                                                  ("splitk", 4, "_cooperative_splitk4_s0"),
                                                  ("splitk", 16, "_cooperative_splitk16_s0")])
def test_scheduler_names_round_trip(scheduler, splits, tag):
    cfg = coop(a_dtype="e4m3", variant="scaled", scheduler=scheduler, splits=splits)
    assert tag in cfg.name
    assert KernelConfig.from_name(cfg.name) == cfg
    d = cfg.to_dict()
    assert d["scheduler"] == scheduler and d["splits"] == splits
    assert KernelConfig.from_dict(d) == cfg
    assert cfg.cache_key(cutlass_version="4.2", nvcc_version="13.0", flags=()) != \
        cfg.replace(scheduler="persistent", splits=1).cache_key(cutlass_version="4.2", nvcc_version="13.0", flags=())


@pytest.mark.parametrize("bad", [
    "sm90_int8_bf16_scaled_token_channel_t128x64x128_c1x1x1_cooperative_splitk_s0_a16x16x8",     # no count
    "sm90_int8_bf16_scaled_token_channel_t128x64x128_c1x1x1_cooperative_streamk4_s0_a16x16x8",   # a count
    "sm90_int8_bf16_scaled_token_channel_t128x64x128_c1x1x1_cooperative_splitk04_s0_a16x16x8",   # not canonical
    "sm90_int8_bf16_scaled_token_channel_t128x64x128_c1x1x1_cooperative_persistent_s0_a16x16x8",  # default spelt
])
def test_non_canonical_scheduler_names_are_refused(bad):
    with pytest.raises(ValueError):
        KernelConfig.from_name(bad)


# ------------------------------------------------------------------------------------------ validation
@pytest.mark.parametrize("kw,field", [
    (dict(schedule="pingpong", tile=(64, 64, 128), scheduler="streamk"), "KernelConfig.scheduler"),
    (dict(schedule="pingpong", tile=(64, 64, 128), scheduler="splitk", splits=2), "KernelConfig.scheduler"),
    (dict(sm=80, schedule="multistage", tile=(128, 128, 64), stages=4, scheduler="streamk"), "KernelConfig.scheduler"),
    (dict(scheduler="splitk", splits=1), "KernelConfig.splits"),
    (dict(scheduler="splitk", splits=MAX_SPLITS + 1), "KernelConfig.splits"),
    (dict(scheduler="streamk", splits=4), "KernelConfig.splits"),
    (dict(splits=2), "KernelConfig.splits"),
    (dict(scheduler="dataparallel"), "KernelConfig.scheduler"),
])
def test_validation_names_the_field(kw, field):
    with pytest.raises(InvalidArgumentError) as info:
        coop(**kw)
    assert info.value.argument == field
    assert isinstance(info.value, ValueError)  # callers catching ValueError still do


# ------------------------------------------------------------------------------------------ heuristics
@pytest.mark.parametrize("m,n,a_dtype,want", [
    (16, 8192, "int8", heuristics.DECODE_STREAMK),    # issue 11: int8 decode at 78% of the copy floor
    (1, 4096, "int8", heuristics.DECODE_STREAMK),     # 1x4096x14336: 64 CTAs of 64x64 on 132 SMs
    (16, 8192, "e4m3", heuristics.DECODE_STREAMK),
    (16, 14336, "e4m3", heuristics.DECODE_STREAMK),   # fp8 16x14336x4096 at 1.01x _scaled_mm
    (512, 4096, "e4m3", heuristics.NARROW_STREAMK),   # fp8 512x4096x{4096,14336} at 0.90x / 0.95x
])
def test_split_rows_take_the_few_tile_shapes(m, n, a_dtype, want, candidate_rows):
    assert heuristics.choose_tile(90, m, n, a_dtype) == want
    cfg = heuristics.make_config(90, "scaled_bias", "bf16", want, a_dtype=a_dtype)
    assert cfg.scheduler in ("streamk", "splitk") and cfg.schedule == "cooperative"
    assert cfg in set(heuristics.default_configs(90))  # a row's kernels join the default set


@pytest.mark.parametrize("m,n,a_dtype", [
    (16, 14336, "int8"), (17, 8192, "int8"), (64, 4096, "e4m3"), (512, 4096, "int8"), (512, 8192, "e4m3"),
    (2048, 4096, "e4m3"), (16, 8192, ""), (16, 0, "int8"), (16, 512, "int8"), (1, 136, "e4m3"),
])
def test_other_shapes_keep_the_data_parallel_tiles(m, n, a_dtype, candidate_rows):
    choice = heuristics.choose_tile(90, m, n, a_dtype)
    assert choice.scheduler == "persistent"
    assert choice == heuristics.choose_tile(90, m, n)  # what the table gave before the SPLIT rows


def test_split_rows_are_data_and_every_choice_is_a_valid_kernel(candidate_rows):
    for row in heuristics.SPLIT[90]:
        assert 1 <= row.min_m <= row.max_m and 1 <= row.min_n <= row.max_n
        for dt in row.a_dtypes:
            heuristics.make_config(90, "scaled", "bf16", row.choice, a_dtype=dt)  # validates
    # a measured sweep edits a row: the choice follows
    row = heuristics.SPLIT[90][0]
    patched = heuristics.SplitRow(row.max_m, row.max_n, row.a_dtypes,
                                  heuristics.TileChoice((128, 64, 128), (1, 1, 1), "cooperative", 0, "splitk", 4))
    old = heuristics.SPLIT[90][0]
    heuristics.SPLIT[90][0] = patched
    try:
        assert heuristics.choose_tile(90, 16, 8192, "int8").splits == 4
    finally:
        heuristics.SPLIT[90][0] = old


def test_split_kernels_are_generated_but_not_prebuilt_and_not_autotuned(candidate_rows):
    from cutlass_gemm.runtime import autotune
    split = set(heuristics.split_configs(90))
    assert split and len(split) <= 8
    assert split <= set(heuristics.default_configs(90))
    assert not split & set(heuristics.prebuilt_configs(90))
    assert all(c.scheduler == "persistent" for c in heuristics.prebuilt_configs(90))
    assert all(c.scheduler == "persistent" for c in autotune.default_candidates(90))  # launched without workspace
    # the committed manifest (SPLIT empty) holds no split kernel
    assert all(c.scheduler == "persistent" for c in read_manifest(GEN90).values())


# ------------------------------------------------------------------------------------------ emission
def test_streamk_source_sets_the_scheduler():
    """Emits through cutlass_cppgen (about 15 s) the 128x64 stream-K int8 kernel the sweep timed."""
    pytest.importorskip("cutlass_library")
    from cutlass_gemm.kernels.emit import emit_source
    cfg = heuristics.make_config(90, "scaled_bias", "bf16", heuristics.DECODE_STREAMK)
    text = emit_source(cfg)
    # the scheduler is CUTLASS's stream-K one behind cutlass_gemm's tag (emit_streamk, tests/test_streamk_pdl.py)
    for piece in ("cg_streamk::Scheduler", "PersistentTileSchedulerSm90StreamK<TileShape, ClusterShape>",
                  "args.scheduler.decomposition_mode = DecompositionMode::StreamK",
                  "ReductionMode::Deterministic", "args.scheduler.splits = 1;",
                  "KernelTmaWarpSpecializedCooperative", "GemmKernel::initialize_workspace(args, workspace, stream",
                  "make_args(a, b, d, rows, n, k,", "params.epilogue.tma_store_d ="):  # (padded rows: test_rowpad.py)
        assert piece in text, piece
    # its cg_workspace_size sizes for the device's SM count, as the launch does
    ws = text[text.index("CG_EXPORT size_t cg_workspace_size"):text.index("CG_EXPORT int cg_launch")]
    assert "args.hw_info = cutlass::KernelHardwareInfo{device, setup.sm_count, setup.max_active_clusters};" in ws
    assert text.count("CG_EXPORT size_t cg_workspace_size") == 1


def test_committed_persistent_sources_have_no_stream_k():
    for name in ("sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8",
                 "sm90_e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8"):
        text = (GEN90 / f"{name}.cu").read_text()
        assert "StreamKScheduler" not in text and "args.scheduler" not in text


def test_splitk_emission_forces_the_split_count():
    """Emits through cutlass_cppgen (about 15 s): fp8 fast-accumulation cooperative with split-K 4."""
    pytest.importorskip("cutlass_library")  # (not cutlass_cppgen: importing it here would leave its sqlite cache in the cwd)
    from cutlass_gemm.kernels.emit import emit_source
    text = emit_source(coop(a_dtype="e4m3", variant="scaled", tile=(128, 128, 128), scheduler="splitk", splits=4))
    for piece in ("cg_streamk::Scheduler", "KernelTmaWarpSpecializedCooperativeFP8FastAccum",
                  "args.scheduler.splits = 4;", "DecompositionMode::SplitK", "//   scheduler = splitk",
                  "//   splits = 4"):
        assert piece in text, piece


# ------------------------------------------------------------------------------------------ runtime pieces
class _Lib:
    def __init__(self, nbytes):
        self.nbytes = nbytes
        self.asked = []

    def workspace_size(self, m, n, k):
        self.asked.append((m, n, k))
        return self.nbytes


def test_workspace_for_asks_the_kernel_with_k_and_allocates_bytes():
    from cutlass_gemm.ops.gemm import workspace_for
    lib = _Lib(0)
    assert workspace_for(lib, 16, 8192, 8192, torch.device("cpu")) == (None, None, 0)
    lib = _Lib(1000)
    ws, ptr, nbytes = workspace_for(lib, 16, 8192, 4096, torch.device("cpu"))
    assert lib.asked == [(16, 8192, 4096)] and nbytes == 1000
    assert ws.dtype is torch.uint8 and ws.numel() == 1000 and ptr == ws.data_ptr()


def test_fast_path_plans_carry_the_workspace_size_function():
    src = (ROOT / "cutlass_gemm" / "runtime" / "csrc" / "fast_path.cpp").read_text()
    assert "plan.workspace_size(rows, g.n, g.k)" in src and "g.m_padded > g.m ? g.m_padded : g.m" in src and "empty_dev({static_cast<int64_t>(ws_bytes)}" in src
    gemm_src = (ROOT / "cutlass_gemm" / "ops" / "gemm.py").read_text()
    assert "lib.workspace_address if needs_workspace else 0" in gemm_src


def _benchmark_module():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        return importlib.import_module("benchmark")
    finally:
        sys.path.pop(0)


def test_benchmark_choice_syntax_takes_the_scheduler():
    bench = _benchmark_module()
    assert bench.parse_choice("64x64x128/c1x1x1/pingpong") == heuristics.TileChoice((64, 64, 128), (1, 1, 1))
    assert bench.parse_choice("128x64x128/c1x1x1/cooperative/streamk") == heuristics.DECODE_STREAMK
    sk4 = bench.parse_choice("128x128x128/c1x2x1/cooperative/splitk4")
    assert (sk4.scheduler, sk4.splits, sk4.cluster) == ("splitk", 4, (1, 2, 1))
    assert "splitk4" in bench.choice_label(sk4)
    for bad in ("128x64x128/c1x1x1/cooperative/splitk", "128x64x128/c1x1x1/cooperative/fast", "128x64x128"):
        with pytest.raises(SystemExit):
            bench.parse_choice(bad)


def test_unavailable_split_kernel_falls_back_to_the_data_parallel_tile_with_a_warning(monkeypatch, candidate_rows):
    """A prebuilt package with CUTLASS_GEMM_JIT=0 holds no stream-K kernel: the table's data-parallel tile serves,
    said once (SchedulerFallbackWarning), and the stream-K kernel is not asked for again."""
    from cutlass_gemm.errors import KernelNotBuiltError
    from cutlass_gemm.ops import gemm as ops
    asked = []

    def get_kernel(cfg):
        asked.append(cfg)
        if cfg.scheduler != "persistent":
            raise KernelNotBuiltError(f"kernel {cfg.name} is not built")
        return ("lib", cfg)

    monkeypatch.setattr(ops, "_selected", {})
    monkeypatch.setattr(ops, "_split_unavailable", set())
    monkeypatch.setattr(ops.loader, "cached_kernel", lambda cfg: None)
    monkeypatch.setattr(ops.loader, "get_kernel", get_kernel)
    with pytest.warns(ops.SchedulerFallbackWarning, match="the table.s tile serves"):
        lib, sa, sb = ops.select_kernel(90, "scaled_bias", "int8", "bf16", "token", "channel", 16, n=8192)
    assert lib[1].scheduler == "persistent" and lib[1].tile == heuristics.choose_tile(90, 16, 8192).tile
    assert [c.scheduler for c in asked] == ["streamk", "persistent"]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = ops.select_kernel(90, "scaled_bias", "int8", "bf16", "token", "channel", 16, n=4096)
    assert again[0][1].scheduler == "persistent" and len(asked) == 2  # memoised: neither kernel asked again


def test_sweep_tool_lists_valid_kernels_and_choices():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        sweep = importlib.import_module("streamk_sweep")
    finally:
        sys.path.pop(0)
    bench = _benchmark_module()
    for which in ("decode", "mid"):
        for text in sweep.CHOICES[which]:
            assert sweep.parse_choice(text) == bench.parse_choice(text)
    names = sweep.sweep_names() + sweep.test_names()
    assert len(names) == len(set(names)) and len(names) <= 32  # two waves of 16 nvcc jobs
    assert all(KernelConfig.from_name(n).name == n for n in names)
    gpu_test = (ROOT / "tests" / "test_streamk_gpu.py").read_text()
    assert "splitk" in gpu_test and all(f'"{t}"' in gpu_test for t in ("splitk",))


@pytest.mark.parametrize("k", [0, 4096, 8192])
@pytest.mark.parametrize("n", [264, 2048, 2560, 4096, 8192, 10240, 14336, 28672])
@pytest.mark.parametrize("a_dtype", ["int8", "e4m3"])
def test_padded_rows_are_whole_tiles_of_their_own_kernel(n, a_dtype, k):
    """padded_rows: M itself outside PAD_ROWS (the GEMV's rows, large M, SM80); inside, the least multiple of the
    M tile x cluster M of the kernel that the padded M selects (K included: heuristics.WAVES), never fewer rows."""
    low, high = heuristics.PAD_ROWS[90]
    for m in range(1, 1100):
        rows = heuristics.padded_rows(90, m, n, a_dtype, k=k)
        assert rows >= m
        if not low <= m <= high:
            assert rows == m
            continue
        choice = heuristics.choose_tile(90, rows, n, a_dtype, k)
        unit = choice.tile[0] * choice.cluster[0]
        assert rows % unit == 0 and rows - m < unit, (m, rows, choice)
        assert heuristics.padded_rows(90, m, 0, a_dtype) >= m
    assert all(heuristics.padded_rows(80, m, n, a_dtype) == m for m in (17, 100, 260, 1000))
    # an epilogue activation keeps M <= 16 off the GEMV: those rows are still not padded (outside PAD_ROWS)
    assert heuristics.padded_rows(90, 16, n, a_dtype, activation="relu") == 16
