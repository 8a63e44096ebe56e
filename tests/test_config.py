import pytest

from cutlass_gemm.kernels.config import KernelConfig, VARIANTS


def sm90(**kw):
    base = dict(sm=90, tile=(128, 128, 128), cluster=(1, 2, 1), schedule="pingpong")
    base.update(kw)
    return KernelConfig(**base)


def sm80(**kw):
    base = dict(sm=80, tile=(128, 128, 64), schedule="multistage", stages=5)
    base.update(kw)
    return KernelConfig(**base)


@pytest.mark.parametrize("cfg", [
    sm90(), sm90(variant="scaled_azp_per_token", out_dtype="f16", scale_a="tensor"),
    sm90(a_dtype="e4m3", variant="scaled", scale_b="tensor", schedule="cooperative", cluster=(2, 1, 1)),
    sm80(), sm80(variant="scaled_azp", tile=(32, 128, 128), stages=4),
    KernelConfig(sm=89, a_dtype="e4m3", tile=(128, 128, 128), schedule="multistage", stages=3),
])
def test_name_round_trips(cfg):
    assert KernelConfig.from_name(cfg.name) == cfg
    assert KernelConfig.from_dict(cfg.to_dict()) == cfg
    assert cfg.name == KernelConfig.from_name(cfg.name).name


def test_name_is_deterministic_and_readable():
    cfg = sm90(variant="scaled_bias")
    assert cfg.name == "sm90_int8_bf16_scaled_bias_token_channel_t128x128x128_c1x2x1_pingpong_s0_a16x16x8"


def test_every_variant_has_a_distinct_name():
    names = {sm90(variant=v).name for v in VARIANTS}
    assert len(names) == len(VARIANTS)


def test_from_name_rejects_garbage():
    with pytest.raises(ValueError, match="not a cutlass_gemm kernel name"):
        KernelConfig.from_name("sm90_int8_whatever")


@pytest.mark.parametrize("kw, field", [
    (dict(sm=75), "sm"),
    (dict(sm=80, a_dtype="e4m3", tile=(128, 128, 128), schedule="multistage", stages=3, cluster=(1, 1, 1)), "a_dtype"),
    (dict(a_dtype="int4"), "a_dtype"),
    (dict(out_dtype="f32"), "out_dtype"),
    (dict(variant="scaled_gelu"), "variant"),
    (dict(a_dtype="e4m3", variant="scaled_azp"), "variant"),
    (dict(scale_a="channel"), "scale_a"),
    (dict(scale_b="token"), "scale_b"),
    (dict(align_a=3), "align_a"),
    (dict(align_a=8), "align_a"),
    (dict(align_out=32), "align_out"),
    (dict(schedule="cooperative", tile=(64, 128, 128)), "tile"),
    (dict(tile=(32, 128, 128)), "tile"),
    (dict(tile=(128, 100, 128)), "tile"),
    (dict(tile=(128, 128, 96)), "tile"),
    (dict(cluster=(3, 1, 1)), "cluster"),
    (dict(cluster=(1, 1, 2)), "cluster"),
    (dict(schedule="multistage"), "schedule"),
    (dict(stages=1), "stages"),
])
def test_invalid_sm90_configs_name_the_field(kw, field):
    with pytest.raises(ValueError, match=rf"KernelConfig\.{field}:"):
        sm90(**kw)


@pytest.mark.parametrize("kw, field", [
    (dict(cluster=(2, 1, 1)), "cluster"),
    (dict(schedule="pingpong"), "schedule"),
    (dict(stages=0), "stages"),
    (dict(tile=(48, 128, 64)), "tile"),
])
def test_invalid_sm80_configs_name_the_field(kw, field):
    with pytest.raises(ValueError, match=rf"KernelConfig\.{field}:"):
        sm80(**kw)


def test_configs_are_frozen_and_hashable():
    cfg = sm90()
    with pytest.raises(Exception):
        cfg.sm = 80
    assert len({cfg, sm90(), sm90(out_dtype="f16")}) == 2


def test_cache_key_covers_what_changes_the_binary():
    cfg = sm90()
    base = dict(cutlass_version="4.2.0.0", nvcc_version="13.0.88", flags=("-O3",))
    key = cfg.cache_key(**base)
    assert key == cfg.cache_key(**base)
    assert key != cfg.cache_key(**{**base, "nvcc_version": "13.1.0"})
    assert key != cfg.cache_key(**{**base, "cutlass_version": "4.3.0.0"})
    assert key != cfg.cache_key(**{**base, "flags": ("-O2",)})
    assert key != sm90(out_dtype="f16").cache_key(**base)
    import cutlass_gemm.kernels.config as config_mod
    old = config_mod.GENERATOR_VERSION
    try:
        config_mod.GENERATOR_VERSION = old + "x"
        assert key != cfg.cache_key(**base)
    finally:
        config_mod.GENERATOR_VERSION = old
