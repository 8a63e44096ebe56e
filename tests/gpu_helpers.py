"""Shared GPU-test steps: a call that must not synchronise the host, a CUDA-graph capture with its side-stream
warm-up (what torch's CUDA-graph notes ask before capturing) and its replays against eager calls, and an SM80 / SM89
kernel family switched on for a test module on an SM90 GPU, and the ops' row padding switched for a block."""
import contextlib
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

import pytest
import torch


def assert_same_bits(y: torch.Tensor, want: torch.Tensor, what: str) -> None:
    """torch.equal, with the count of differing elements in the message (a stale read shows as many)."""
    assert torch.equal(y, want), f"{what}: {int((y != want).sum())} of {want.numel()} elements differ"


def without_sync(fn: Callable[[], torch.Tensor]) -> torch.Tensor:
    """fn() with torch's sync debug mode set to raise on any host synchronisation."""
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        return fn()
    finally:
        torch.cuda.set_sync_debug_mode("default")


def eager_without_sync(fn: Callable[..., Any], *args: Any, same: Callable[[Any, Any], bool] = torch.equal) -> Any:
    """fn(*args), then again with any host synchronisation raising; the two must agree (`same`). Returns the first."""
    eager = fn(*args)
    again = without_sync(lambda: fn(*args))
    assert same(eager, again), "the call without a host sync differs from the first"
    return eager


def capture(fn: Callable[..., Any], *static: Any) -> Tuple[torch.cuda.CUDAGraph, Any]:
    """A CUDA graph of fn(*static) (warmed up once on a side stream: kernel loads and plans happen outside the
    capture) and its static output. The graph reads the static arguments' memory at every replay: the caller keeps
    them alive as long as it replays, and feeds a replay new data by copying into them."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn(*static)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = fn(*static)
    return graph, static_y


def replays_match_eager(fn: Callable[[torch.Tensor], Any], static_x: torch.Tensor, inputs: Iterable[torch.Tensor],
                        same: Optional[Callable[[Any, Any], bool]] = None, what: str = "graph replay") -> None:
    """Captures fn(static_x) (`capture`), then for each new input: copies it into static_x, replays, and checks the
    graph's output against an eager fn(new input) (bitwise by default, or `same`). Several inputs check that a
    replay leaves no state behind (split-K counters, workspaces) that the next one would read."""
    graph, static_y = capture(fn, static_x)
    for i, x2 in enumerate(inputs):
        static_x.copy_(x2)
        graph.replay()
        want = fn(x2)
        if same is None:
            assert_same_bits(static_y, want, f"{what} {i}")
        else:
            assert same(static_y, want), f"{what} {i}"


def refill(static: Dict[str, Any], fresh: Dict[str, Any]) -> None:
    """Copies every tensor of `fresh` into the tensor of the same key in `static` (a captured problem's new data)."""
    for key, val in fresh.items():
        if isinstance(val, torch.Tensor):
            static[key].copy_(val)


def layer_chain(make: Callable[[int, torch.nn.Linear], torch.nn.Module], width: int, depth: int, seed: int = 0
                ) -> Tuple[Callable[[torch.Tensor], torch.Tensor], List[torch.nn.Module], torch.Generator]:
    """`depth` square bf16 layers of `width` (random weights scaled by 1/sqrt(width), so that the activations keep
    their size), layer i converted by make(i, linear); returns run(x) (each layer reads the last one's output), the
    layers and the seeded generator, for the input."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    layers = []
    for i in range(depth):
        lin = torch.nn.Linear(width, width, device="cuda", dtype=torch.bfloat16)
        with torch.no_grad():
            lin.weight.copy_(torch.randn(width, width, generator=g, device="cuda") / width ** 0.5)
        layers.append(make(i, lin))

    def run(x: torch.Tensor) -> torch.Tensor:
        for layer in layers:
            x = layer(x)
        return x
    return run, layers, g


def same_bits_with_and_without_pdl(run: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor,
                                   switch: Callable[[bool], None], replays: int = 20) -> torch.Tensor:
    """run(x) with programmatic dependent launches off (`switch(False)`), then on: 3 eager calls and `replays`
    back-to-back replays of a CUDA graph (no host gap: the early starts overlap the most) must give the same bits.
    Returns the plain result (finite, checked)."""
    switch(False)
    plain = run(x)
    torch.cuda.synchronize()
    assert plain.isfinite().all()
    switch(True)
    for i in range(3):
        assert_same_bits(run(x), plain, f"eager chain {i} with PDL")
    x_on = x.clone()  # held for the graph's life: its replays read it
    graph, y = capture(run, x_on)
    for i in range(replays):
        graph.replay()
        assert_same_bits(y, plain, f"graph replay {i} with PDL")
    return plain


@contextlib.contextmanager
def family_on_sm90(sm: int, configs: Iterable[Any], generated: str, env: Dict[str, str],
                   forget: Callable[[], None] = lambda: None) -> Iterator[int]:
    """Runs the kernel family of SM `sm` (80, 89) on this SM90 GPU for the block's duration: sets `env` (the family's
    arch list with sm_90 beside it, so the kernels carry machine code this GPU runs rather than reaching it by a PTX
    JIT), builds `configs` from their committed sources in generated/<generated> at once (not one by one on first use),
    forgets the selected plans (`forget`) and makes the ops see the device as SM `sm`. Everything is restored after,
    the plans forgotten again. Skips unless the current GPU is an SM90 one. Yields the device index."""
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        pytest.skip(f"runs the SM{sm} kernels of generated/{generated} on an SM90 GPU")
    from cutlass_gemm.ops import gemm as gemm_ops
    from cutlass_gemm.runtime import build
    dev = torch.cuda.current_device()
    saved_sm = gemm_ops._device_sm.get(dev)
    saved_env = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        root = Path(__file__).resolve().parents[1] / "generated" / generated
        with ThreadPoolExecutor(build.default_jobs()) as pool:
            list(pool.map(lambda c: build.build(c, (root / f"{c.name}.cu").read_text()), configs))
        forget()
        gemm_ops._device_sm[dev] = sm
        yield dev
    finally:
        gemm_ops._device_sm.pop(dev, None)
        if saved_sm is not None:
            gemm_ops._device_sm[dev] = saved_sm
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        forget()


def forget_gemm_plans() -> None:
    """Drops every plan of the GEMM ops (Python and the C++ fast path; the memoised kernel selections and the split
    kernels found unavailable too) and of scaled_mm_blockwise: the next call of each shape plans it again under the
    current environment."""
    from cutlass_gemm.ops import blockwise as bops
    from cutlass_gemm.ops import gemm as gemm_ops
    from cutlass_gemm.runtime import extension
    gemm_ops._selected.clear()
    gemm_ops._plans.clear()
    gemm_ops._split_unavailable.clear()
    bops._plans.clear()
    ext = extension.load()
    if ext is not None:
        ext.clear_plans()


@contextlib.contextmanager
def row_padding(enabled: bool) -> Iterator[None]:
    """The ops' row padding (runtime/rowpad.py, CUTLASS_GEMM_PAD_ROWS) on or off for the block, plans made again
    inside it and after it."""
    from cutlass_gemm.runtime import rowpad
    saved = os.environ.get(rowpad.PAD_ENV)
    os.environ[rowpad.PAD_ENV] = "1" if enabled else "0"
    forget_gemm_plans()
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(rowpad.PAD_ENV, None)
        else:
            os.environ[rowpad.PAD_ENV] = saved
        forget_gemm_plans()
