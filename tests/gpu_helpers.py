"""Shared GPU-test steps: a call that must not synchronise the host, and a CUDA-graph capture with its side-stream
warm-up (what torch's CUDA-graph notes ask before capturing)."""
from typing import Callable, Tuple

import torch


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
