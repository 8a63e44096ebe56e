"""Installable packages of prebuilt kernels: the FlashInfer habit of shipping a JIT cache as a wheel.

`tools/package_kernels.py --sm 90` compiles a kernel set and writes the wheel
``cutlass_gemm_kernels_sm90``: a Python package whose ``kernels/`` folder holds the libraries with
their metadata, laid out as in the kernel cache. With it installed, `build.lookup` finds a kernel there
when the user's cache has none, after the same checks as for a cached one (size and sha256 against the
metadata, the same compile flags, the current source), so the ops run on a machine without nvcc. The
package is read only: nothing is quarantined, rebuilt or rewritten in it.
"""
from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from typing import Tuple

#: The import name of the package holding the kernels of one SM family.
PACKAGE_PREFIX = "cutlass_gemm_kernels_sm"


def package_name(sm: int) -> str:
    return f"{PACKAGE_PREFIX}{sm}"


@functools.lru_cache(maxsize=None)
def kernel_dirs(sm: int) -> Tuple[Path, ...]:
    """The ``kernels/`` folders of the installed prebuilt package for `sm` (empty when none is
    installed). Found without importing it, once per process."""
    try:
        spec = importlib.util.find_spec(package_name(sm))
    except (ImportError, ValueError):
        return ()
    if spec is None or not spec.submodule_search_locations:
        return ()
    return tuple(Path(p) / "kernels" for p in spec.submodule_search_locations if (Path(p) / "kernels").is_dir())


def owns(path: Path) -> bool:
    """Whether `path` lies in a prebuilt package (read only: never quarantined or rewritten)."""
    path = Path(path)
    return path.parent.name == "kernels" and path.parent.parent.name.startswith(PACKAGE_PREFIX)
