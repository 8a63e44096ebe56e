"""Shared GPU-test steps: a call that must not synchronise the host, and a CUDA-graph capture with its side-stream
warm-up (what torch's CUDA-graph notes ask before capturing)."""
from typing import Callable, List, Tuple

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


def capture(fn: Callable[[torch.Tensor], torch.Tensor], static_x: torch.Tensor) -> Tuple[torch.cuda.CUDAGraph, torch.Tensor]:
    """A CUDA graph of fn(static_x) (warmed up once on a side stream) and its static output. The graph reads
    static_x's memory at every replay: the caller keeps static_x alive as long as it replays."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn(static_x)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_y = fn(static_x)
    return graph, static_y


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
