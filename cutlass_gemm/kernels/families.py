"""Kernel families: what the shared build / cache / load path needs to know of each, one row per family.

A config names its family with a class attribute `family` (KernelConfig: "gemm", the scaled GEMMs;
MixedInputConfig: "mixed_input", the SM90 weight-only GEMM; Conv2dConfig: "conv2d", the SM90 int8
implicit-GEMM convolution; BlockwiseConfig: "blockwise", the SM90 blockwise-scaled fp8 GEMM). Everything
family-specific that the
runtime needs is here, so runtime/build.py and runtime/loader.py hold no per-family branches:

- the emitter (module and function, looked up at call time: a test that patches the function is heard),
- the generator version and the modules whose text shapes the emitted source (the build records'
  fingerprint: editing one family's emitter leaves the other family's cached records valid),
- the folder of its committed sources under generated/ (with its own manifest).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple

_BASE_FILES = ("emit.py", "emit_evt.py", "emit_streamk.py", "epilogues.py", "config.py", "_cuda_compat.py")


@dataclass(frozen=True)
class Family:
    name: str
    emitter: Tuple[str, str]          # (module under cutlass_gemm.kernels, function name)
    version: Tuple[str, str]          # (module, name of its generator-version constant)
    generator_files: Tuple[str, ...]  # modules under cutlass_gemm/kernels/ hashed into the fingerprint
    subdir: Optional[Callable[[object], str]] = None  # folder under generated/; default sm<NN>

    def _attr(self, ref: Tuple[str, str]):
        return getattr(importlib.import_module(f"{__package__}.{ref[0]}"), ref[1])

    def emit(self, cfg) -> str:
        """The kernel source of `cfg` (BuildError naming the kernel on failure)."""
        return self._attr(self.emitter)(cfg)

    def generator_version(self) -> str:
        return self._attr(self.version)

    def generated_subdir(self, cfg) -> str:
        return self.subdir(cfg) if self.subdir else f"sm{cfg.sm}"


FAMILIES: Dict[str, Family] = {
    "gemm": Family("gemm", ("emit", "emit_source"), ("config", "GENERATOR_VERSION"), _BASE_FILES),
    "mixed_input": Family("mixed_input", ("emit_mixed", "emit_mixed_source"),
                          ("mixed_input", "MIXED_GENERATOR_VERSION"),
                          _BASE_FILES + ("mixed_input.py", "emit_mixed.py", "emit_mixed80.py"),
                          subdir=lambda cfg: cfg.generated_subdir),
    "conv2d": Family("conv2d", ("emit_conv", "emit_conv_source"), ("conv2d", "CONV_GENERATOR_VERSION"),
                     _BASE_FILES + ("conv2d.py", "emit_conv.py", "emit_conv80.py", "cxx/conv80_visitor.hpp"),
                     subdir=lambda cfg: cfg.generated_subdir),
    "blockwise": Family("blockwise", ("emit_blockwise", "emit_blockwise_source"),
                        ("blockwise", "BLOCKWISE_GENERATOR_VERSION"),
                        _BASE_FILES + ("blockwise.py", "emit_blockwise.py"),
                        subdir=lambda cfg: cfg.generated_subdir),
}


def family_of(cfg=None) -> Family:
    """The family of config `cfg` (None: the scaled-GEMM family)."""
    return FAMILIES[getattr(cfg, "family", "gemm")]


def config_from_name(name: str):
    """The config a kernel name of any family spells (KernelConfig, MixedInputConfig, Conv2dConfig or
    BlockwiseConfig; ValueError naming it otherwise). Each family's names carry its tag after the SM."""
    tags = (("_blockwise_", "blockwise", "BlockwiseConfig"), ("_mixed_", "mixed_input", "MixedInputConfig"),
            ("_conv2d_", "conv2d", "Conv2dConfig"))
    for tag, module, cls in tags:
        if tag in name:
            return getattr(importlib.import_module(f"{__package__}.{module}"), cls).from_name(name)
    return importlib.import_module(f"{__package__}.config").KernelConfig.from_name(name)
