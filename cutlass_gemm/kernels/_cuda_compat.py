"""cuda-python 13 dropped the `cuda.cuda`, `cuda.cudart` and `cuda.nvrtc` modules that `cutlass_cppgen`
imports; they were aliases of `cuda.bindings.driver`, `.runtime` and `.nvrtc`. Register those aliases,
once and only when the old modules are missing, before anything imports `cutlass_cppgen`."""
import importlib
import sys

_ALIASES = {"cuda.cuda": "driver", "cuda.cudart": "runtime", "cuda.nvrtc": "nvrtc"}
_done = False


def install() -> None:
    global _done
    if _done:
        return
    import cuda
    for old, new in _ALIASES.items():
        if old in sys.modules:
            continue
        try:
            importlib.import_module(old)
            continue  # an older cuda-python that still ships the module
        except ImportError:
            pass
        mod = importlib.import_module(f"cuda.bindings.{new}")
        sys.modules[old] = mod
        setattr(cuda, old.split(".")[1], mod)
    if not hasattr(cuda, "__version__"):
        import cuda.bindings
        cuda.__version__ = cuda.bindings.__version__
    _done = True
