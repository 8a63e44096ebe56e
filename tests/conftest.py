import os

import pytest


def _cuda_available() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


def _shard():
    """(index, count) from CUTLASS_GEMM_TEST_SHARD="i/n", or None: tools/gpu_suite.py splits a slow file over
    several processes (and GPUs) with it; item k runs in shard k % n, so every item runs in exactly one."""
    text = os.environ.get("CUTLASS_GEMM_TEST_SHARD", "").strip()
    if not text:
        return None
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise pytest.UsageError(f"CUTLASS_GEMM_TEST_SHARD={text!r}: expected 'i/n' with 0 <= i < n") from None
    if not 0 <= index < count:
        raise pytest.UsageError(f"CUTLASS_GEMM_TEST_SHARD={text!r}: expected 'i/n' with 0 <= i < n")
    return index, count


def pytest_collection_modifyitems(config, items):
    shard = _shard()
    if shard is not None:
        index, count = shard
        keep = [item for k, item in enumerate(items) if k % count == index]
        config.hook.pytest_deselected(items=[item for k, item in enumerate(items) if k % count != index])
        items[:] = keep
    if _cuda_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU; run `pytest -m gpu` on a GPU machine")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
