"""Write the emitted sources of a kernel set into `generated/sm<NN>/` with a manifest.

Reproducible byte for byte: configs in name order, no timestamps or absolute paths, a file is
rewritten only when its text changed, and (with `prune`) the sources of kernels that the previous
manifest listed but the new set lacks are removed. Only files the generator owns (the manifest and
the `<kernel name>.cu` files its manifest lists) are ever deleted: anything else in the folder stays.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Dict, Iterable, List, Set

from .config import GENERATOR_VERSION, KernelConfig

MANIFEST = "manifest.json"


def _write_if_changed(path: Path, text: str) -> bool:
    if path.exists() and path.read_text() == text:
        return False
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    tmp.replace(path)
    return True


def manifest_text(entries: Dict[str, dict]) -> str:
    return json.dumps({"generator": GENERATOR_VERSION, "kernels": entries}, indent=1, sort_keys=True) + "\n"


def generate(configs: Iterable[KernelConfig], out_dir: Path, *, prune: bool = True) -> List[Path]:
    """Emit every config (all of one SM) into `out_dir/sm<NN>/`. Returns the paths written or kept."""
    from .emit import emit_source
    configs = sorted(set(configs), key=lambda c: c.name)
    by_sm: Dict[int, List[KernelConfig]] = {}
    for cfg in configs:
        by_sm.setdefault(cfg.sm, []).append(cfg)
    paths: List[Path] = []
    for sm, cfgs in sorted(by_sm.items()):
        sm_dir = Path(out_dir) / f"sm{sm}"
        sm_dir.mkdir(parents=True, exist_ok=True)
        entries = _emit_into(cfgs, sm_dir, emit_source, paths)
        previous = _manifest_names(sm_dir)
        if not prune:
            old = json.loads((sm_dir / MANIFEST).read_text())["kernels"] if previous else {}
            entries = {**{k: v for k, v in old.items() if k in previous}, **entries}
        _write_if_changed(sm_dir / MANIFEST, manifest_text(entries))
        if prune:
            for name in sorted(previous - set(entries)):
                stale = sm_dir / f"{name}.cu"
                if stale.is_file():
                    stale.unlink()
    return paths


def _emit_into(cfgs, folder: Path, emit_fn, paths: List[Path]) -> Dict[str, dict]:
    """Write `emit_fn(cfg)` as `folder/<name>.cu` for each config (only where the text changed), append the
    paths to `paths`, and return the manifest entries."""
    from .emit import cutlass_version
    entries = {}
    for cfg in cfgs:
        text = emit_fn(cfg)
        path = folder / f"{cfg.name}.cu"
        _write_if_changed(path, text)
        paths.append(path)
        entries[cfg.name] = {"config": cfg.to_dict(), "sha256": hashlib.sha256(text.encode()).hexdigest(),
                             "cutlass": cutlass_version()}
    return entries


def _manifest_names(sm_dir: Path) -> Set[str]:
    """Kernel names the existing manifest in `sm_dir` lists (empty when absent or not ours)."""
    try:
        data = json.loads((sm_dir / MANIFEST).read_text())
        names = set(data["kernels"])
    except (OSError, ValueError, KeyError, TypeError):
        return set()
    owned = set()
    for name in names:
        try:
            if isinstance(name, str) and KernelConfig.from_name(name).name == name:
                owned.add(name)
        except ValueError:
            pass
    return owned


def read_manifest(sm_dir: Path) -> Dict[str, KernelConfig]:
    data = json.loads((Path(sm_dir) / MANIFEST).read_text())
    return {name: KernelConfig.from_dict(e["config"]) for name, e in data["kernels"].items()}


def generate_mixed(configs: Iterable, out_dir: Path, *, prune: bool = True) -> List[Path]:
    """Emit mixed-input kernels (kernels/mixed_input.py) into `out_dir/sm90_mixed/` (SM80's: sm80_mixed/), each with its own manifest
    (the family's generator version), with the same rules as `generate`: name order, a file rewritten only
    when its text changed, and (with `prune`) sources the previous manifest listed and the set lacks removed."""
    from .emit_mixed import emit_mixed_source
    from .mixed_input import MIXED_GENERATOR_VERSION, MixedInputConfig
    return _by_subdir(configs, out_dir, emit_mixed_source, MIXED_GENERATOR_VERSION, MixedInputConfig, prune)


def _by_subdir(configs: Iterable, out_dir: Path, emit, version: str, config_cls, prune: bool) -> List[Path]:
    """_generate_family per folder of the configs given (one per SM: sm90_mixed / sm80_mixed, sm90_conv /
    sm80_conv); folders of SMs not given are not touched."""
    by_dir: Dict[str, list] = {}
    for cfg in configs:
        by_dir.setdefault(cfg.generated_subdir, []).append(cfg)
    return [path for sub in sorted(by_dir)
            for path in _generate_family(by_dir[sub], Path(out_dir) / sub, emit, version, config_cls, prune)]


def generate_conv(configs: Iterable, out_dir: Path, *, prune: bool = True) -> List[Path]:
    """Emit int8 implicit-GEMM conv2d kernels (kernels/conv2d.py) into `out_dir/sm90_conv/` and `out_dir/sm80_conv/`
    (each SM's folder with its own manifest; only the folders of the SMs given are touched), as generate_mixed."""
    from .conv2d import CONV_GENERATOR_VERSION, Conv2dConfig
    from .emit_conv import emit_conv_source
    return _by_subdir(configs, out_dir, emit_conv_source, CONV_GENERATOR_VERSION, Conv2dConfig, prune)


def generate_blockwise(configs: Iterable, out_dir: Path, *, prune: bool = True) -> List[Path]:
    """Emit blockwise-scaled fp8 kernels (kernels/blockwise.py) into `out_dir/sm90_blockwise/`, with the
    rules of `generate_mixed`."""
    from .blockwise import BLOCKWISE_GENERATOR_VERSION, GENERATED_SUBDIR, BlockwiseConfig
    from .emit_blockwise import emit_blockwise_source
    return _generate_family(configs, Path(out_dir) / GENERATED_SUBDIR, emit_blockwise_source,
                            BLOCKWISE_GENERATOR_VERSION, BlockwiseConfig, prune)


def _generate_family(configs: Iterable, sub: Path, emit, version: str, config_cls, prune: bool) -> List[Path]:
    """One family's folder under generated/ with its own manifest (see generate_mixed)."""
    configs = sorted(set(configs), key=lambda c: c.name)
    sub.mkdir(parents=True, exist_ok=True)
    paths: List[Path] = []
    entries = _emit_into(configs, sub, emit, paths)
    try:
        old = json.loads((sub / MANIFEST).read_text())["kernels"]
        previous = set(old)
    except (OSError, ValueError, KeyError, TypeError):
        old, previous = {}, set()
    if not prune:  # keep what the manifest listed (a --name run adds to the set, like generate())
        entries = {**{k: v for k, v in old.items() if k in previous}, **entries}
    text = json.dumps({"generator": version, "kernels": entries}, indent=1, sort_keys=True) + "\n"
    _write_if_changed(sub / MANIFEST, text)
    if prune:
        for name in sorted(previous - set(entries)):
            try:
                owned = config_cls.from_name(name).name == name
            except ValueError:
                owned = False
            if owned and (sub / f"{name}.cu").is_file():
                (sub / f"{name}.cu").unlink()
    return paths
