"""The generator is deterministic, keeps generated/ in sync, and its manifest round-trips."""
import filecmp
import hashlib
import itertools
import json
from pathlib import Path

import pytest

from cutlass_gemm.kernels import heuristics
from cutlass_gemm.kernels.config import KernelConfig, OUTPUT_DTYPES, VARIANTS
from cutlass_gemm.kernels.generate import MANIFEST, generate, read_manifest

ROOT = Path(__file__).resolve().parents[1]
SMALL_SET = [heuristics.default_configs(90)[0], heuristics.default_configs(80)[-1]]


def _tree_bytes(root: Path):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_runs_write_identical_bytes(tmp_path):
    generate(SMALL_SET, tmp_path / "one")
    generate(SMALL_SET, tmp_path / "two")
    one, two = _tree_bytes(tmp_path / "one"), _tree_bytes(tmp_path / "two")
    assert one == two
    assert len(one) == 4  # one source and one manifest per SM


def test_output_has_no_timestamps_or_absolute_paths(tmp_path):
    generate(SMALL_SET[:1], tmp_path)
    text = next((tmp_path / "sm90").glob("*.cu")).read_text()
    assert str(tmp_path) not in text and str(Path.home()) not in text and "site-packages" not in text
    assert "2026" not in text  # no dates


def test_unchanged_files_are_not_rewritten_and_stale_ones_removed(tmp_path):
    two = heuristics.default_configs(90)[:2]
    paths = generate(two, tmp_path)
    src = paths[0]
    stamp = src.stat().st_mtime_ns
    generate(two[:1], tmp_path)
    assert src.stat().st_mtime_ns == stamp
    assert not paths[1].exists()  # listed by the previous manifest, no longer in the set
    assert set(read_manifest(tmp_path / "sm90")) == {two[0].name}


def test_prune_deletes_only_files_the_generator_owns(tmp_path):
    """`generate(prune=True)` / `tools/generate_kernels.py --out DIR` must not delete a user's files."""
    sm_dir = tmp_path / "sm90"
    sm_dir.mkdir()
    foreign = {"notes.txt": "mine", "sm90_old_kernel.cu": "// mine", "my_kernel.cu": "// mine",
               "other.json": "{}"}
    for name, text in foreign.items():
        (sm_dir / name).write_text(text)
    (sm_dir / "sub").mkdir()
    generate(SMALL_SET[:1], tmp_path, prune=True)
    for name, text in foreign.items():
        assert (sm_dir / name).read_text() == text
    assert (sm_dir / "sub").is_dir()
    # a manifest that lists names which are not kernel names (or paths) deletes nothing either
    manifest = json.loads((sm_dir / MANIFEST).read_text())
    manifest["kernels"]["../../notes"] = manifest["kernels"]["my_kernel"] = {}
    (sm_dir / MANIFEST).write_text(json.dumps(manifest))
    generate(SMALL_SET[:1], tmp_path, prune=True)
    assert (sm_dir / "my_kernel.cu").exists() and (sm_dir / "notes.txt").exists()


def test_manifest_round_trips_configs_and_hashes(tmp_path):
    paths = generate(SMALL_SET, tmp_path)
    for sm_dir in (tmp_path / "sm90", tmp_path / "sm80"):
        configs = read_manifest(sm_dir)
        data = json.loads((sm_dir / MANIFEST).read_text())
        for name, cfg in configs.items():
            assert cfg.name == name and KernelConfig.from_name(name) == cfg
            source = (sm_dir / f"{name}.cu").read_bytes()
            assert data["kernels"][name]["sha256"] == hashlib.sha256(source).hexdigest()
    assert {p.stem for p in paths} == {c.name for c in SMALL_SET}


@pytest.mark.parametrize("sm", heuristics.DEFAULT_SMS)
def test_committed_generated_sources_match_the_generator(sm, tmp_path):
    """CI's drift check: regenerate the default set into a temp dir and compare with generated/."""
    generate(heuristics.default_configs(sm), tmp_path)
    committed, fresh = ROOT / "generated" / f"sm{sm}", tmp_path / f"sm{sm}"
    assert sorted(p.name for p in committed.iterdir()) == sorted(p.name for p in fresh.iterdir()), \
        "generated/ lists other kernels than the generator emits: run tools/generate_kernels.py"
    cmp = filecmp.dircmp(committed, fresh)
    different = [n for n in cmp.common_files if (committed / n).read_bytes() != (fresh / n).read_bytes()]
    assert not different, f"stale generated sources {different}: run tools/generate_kernels.py --sm {sm}"


def test_default_set_is_exactly_what_the_selection_table_uses():
    for sm in heuristics.DEFAULT_SMS:
        configs = set(heuristics.default_configs(sm))
        used = {heuristics.make_config(sm, v, o, choice, a_dtype=dt, scale_a=sa, scale_b=sb)
                for choice in heuristics.table_tiles(sm) for o in OUTPUT_DTYPES
                for dt in heuristics.INPUT_DTYPES_BY_SM[sm]
                for v in (VARIANTS if dt == "int8" else heuristics.FP8_VARIANTS)
                for sa, sb in heuristics.SCALE_KINDS[dt]}
        # plus the stream-K rows' kernels for the common call only (heuristics.split_configs)
        assert configs == used | set(heuristics.split_configs(sm))
        assert len(heuristics.split_configs(sm)) <= 8
        for m in (1, 16, 64, 65, 128, 256, 257, 512, 4096):
            for n in (0, 136, 4096, 8192, 14336):
                for dt in heuristics.INPUT_DTYPES_BY_SM[sm]:
                    chosen = heuristics.make_config(sm, "scaled_bias", "bf16", heuristics.choose_tile(sm, m, n, dt),
                                                    a_dtype=dt)
                    assert chosen in configs, chosen.name
        manifest = read_manifest(ROOT / "generated" / f"sm{sm}")
        assert set(manifest.values()) == configs


def test_prebuilt_set_serves_the_common_call_at_every_m_and_fits_two_waves_of_16_jobs():
    """Every tile the table picks for the common call (N known or not) is prebuilt; at most 20 kernels (two waves of
    16 nvcc jobs: four SM90 tiles since session 50)."""
    for sm in heuristics.DEFAULT_SMS:
        prebuilt = heuristics.prebuilt_configs(sm)
        assert set(prebuilt) <= set(heuristics.default_configs(sm)) and len(prebuilt) <= 20
        for m, n in itertools.product((1, 16, 64, 65, 128, 129, 256, 257, 512, 1024, 1025, 8192),
                                      (0, 136, 4096, 8192, 28672)):
            choice = heuristics.choose_tile(sm, m, n)
            for dt in heuristics.INPUT_DTYPES_BY_SM[sm]:
                # the zero-point kernel of bias-free layers (LLMs); zero points with a bias build on first use
                for v in ("scaled", "scaled_bias") + (("scaled_azp_per_token_nobias",) if dt == "int8" else ()):
                    assert heuristics.make_config(sm, v, "bf16", choice, a_dtype=dt) in prebuilt, (sm, m, dt, v)
        assert not any(c.out_dtype == "f16" or c.scale_a == "tensor" for c in prebuilt)  # built on first use


def test_selection_table_is_ordered_and_unbounded_last():
    for sm, rows in heuristics.SELECTION.items():
        bounds = [b for b, _ in rows]
        assert bounds[-1] is None
        assert bounds[:-1] == sorted(bounds[:-1])


def test_narrow_problems_take_the_narrow_tile_only_above_the_last_row():
    """heuristics.NARROW: the 256x128 tile cuts 512 x 4096 into 64 CTAs (fewer than the 100 the rule
    asks), 512 x 8192 into 128; N unknown (0) never switches; M <= 256 rows are untouched."""
    big = heuristics.SELECTION[90][-1][1]
    least, narrow = heuristics.NARROW[90]
    assert heuristics.choose_tile(90, 2048, 1024) == narrow  # 8 x 8 CTAs of the 256-row tile
    assert heuristics.choose_tile(90, 2048, 8192) == big
    assert heuristics.choose_tile(90, 2048, 0) == big
    assert heuristics.choose_tile(90, 256, 136) == heuristics.SELECTION[90][1][1]
    assert heuristics.choose_tile(90, 8192, 8192) == big
    assert narrow in heuristics.table_tiles(90) and least == 100


# (M, N, K, tile) where the faster tile led by more than 3% in session 51's forced-tile layer runs (H200, int8 and e4m3
# alike, tools/results/h200-2026-11-29/session51/call2/out/band_tiles.log): "64" = 64 x 128 c2x1, "128" = 128 x 128,
# "256" = 256 x 128 c1x2.
MEASURED_WINNERS = [
    (256, 10240, 8192, "64"), (256, 4096, 14336, "64"), (256, 8192, 8192, "128"), (256, 16384, 8192, "128"),
    (256, 8192, 28672, "128"), (256, 14336, 4096, "128"), (256, 7168, 2048, "128"), (256, 24576, 2048, "128"),
    (512, 8192, 8192, "256"), (1024, 8192, 8192, "256"), (1024, 28672, 8192, "256"), (384, 10240, 8192, "128"),
    (512, 10240, 8192, "128"), (640, 10240, 8192, "256"), (768, 10240, 8192, "256"), (384, 16384, 8192, "128"),
    (768, 16384, 8192, "256"), (640, 8192, 28672, "128"), (384, 4096, 14336, "128"), (640, 4096, 14336, "256"),
    (1024, 4096, 14336, "256"), (512, 8192, 14336, "256"), (640, 8192, 14336, "128"), (384, 14336, 4096, "128"),
    (640, 12288, 4096, "128"), (640, 28672, 4096, "128"), (640, 7168, 2048, "128"), (384, 24576, 2048, "128"),
]


@pytest.mark.parametrize("m,n,k,want", MEASURED_WINNERS)
def test_wave_rules_pick_the_measured_faster_tile(m, n, k, want):
    """heuristics.WAVES (session 51): at 129..256 rows the 64 x 128 c2x1 tile against the 128 x 128 one, at 257..1024
    rows from K = 8192 the 128 x 128 tile against the 256 x 128 c1x2 one, by the cost of their waves; every call here
    had a winner by more than 3% on the H200, and the padded rows the layers run select it for both input types."""
    tiles = {"64": (64, 128, 128), "128": (128, 128, 128), "256": (256, 128, 128)}
    for ab in ("int8", "e4m3"):
        rows = heuristics.padded_rows(90, m, n, ab, k=k)
        unit = tiles[want][0] if want != "64" else 128  # the 64-row tile runs in 2 x 1 clusters
        assert rows == -(-m // unit) * unit, (rows, m)  # as the winner was measured: M in whole tiles of it
        assert heuristics.choose_tile(90, rows, n, ab, k).tile == tiles[want]


def test_wave_rules_need_n_and_k_and_keep_their_bands():
    """No rule without N; the 256-row tile only from K = 8192 (K unknown or 4096: the 128 x 128 row keeps 257..1024);
    the rules' tiles are in the table (built ahead) and outside their bands nothing changes."""
    small64, t128 = heuristics.SELECTION[90][1][1], heuristics.SELECTION[90][2][1]
    big = heuristics.SELECTION[90][-1][1]
    assert heuristics.choose_tile(90, 256, 0) == small64 and heuristics.choose_tile(90, 200, 8192) == t128
    assert heuristics.choose_tile(90, 1024, 8192, "int8", 8192) == big
    assert all(heuristics.choose_tile(90, m, n, "int8", k) == t128
               for m in (257, 512, 1024) for n in (0, 1024, 8192, 28672) for k in (0, 4096, 6144))
    assert heuristics.choose_tile(90, 128, 28672, "int8", 8192) == small64  # below 129 rows: the row's tile
    assert heuristics.choose_tile(90, 2048, 8192, "int8", 8192) == big
    assert {r.large for r in heuristics.WAVES[90]} <= set(heuristics.table_tiles(90))
    assert all(heuristics.choose_tile(90, m, n) == heuristics.choose_tile(90, m, n, "int8", 8192)
               for m in (1, 16, 64, 100, 2048, 4096) for n in (1024, 8192))


def test_tool_writes_named_kernels_of_every_family_into_their_folders(tmp_path):
    """`tools/generate_kernels.py --name` without a family flag: each name parsed by its family
    (families.config_from_name), its source written where that family's are, nothing else touched; a bad name is a
    usage error naming it."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("generate_kernels", ROOT / "tools" / "generate_kernels.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    names = {"sm90": "sm90_e4m3_bf16_scaled_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8",
             "sm90_blockwise": "sm90_blockwise_s8_bf16_sfak_t256x128x128_c1x2x1_cooperative_persistent_s0_atm",
             "sm90_mixed": "sm90_mixed_bf16_int4_sym_t128x128x64_c1x1x1_cooperative_s0_streamk",
             "sm90_conv": "sm90_conv2d_fprop_int8_bf16_relu6_t128x128x64_c1x1x1_s0"}
    (tmp_path / "sm90_conv").mkdir()
    (tmp_path / "sm90_conv" / "mine.cu").write_text("// a user's file")
    argv = ["--out", str(tmp_path)] + [a for n in names.values() for a in ("--name", n)]
    assert tool.main(argv) == 0
    for sub, name in names.items():
        assert (tmp_path / sub / f"{name}.cu").read_text() == (ROOT / "generated" / sub / f"{name}.cu").read_text()
    assert (tmp_path / "sm90_conv" / "mine.cu").read_text() == "// a user's file"
    with pytest.raises(SystemExit):
        tool.main(["--out", str(tmp_path), "--name", names["sm90_blockwise"], "--name", "sm90_not_a_kernel"])
    with pytest.raises(SystemExit):  # --activation is the GEMM family's: not silently dropped for the others
        tool.main(["--out", str(tmp_path), "--name", names["sm90_mixed"], "--activation", "relu"])
