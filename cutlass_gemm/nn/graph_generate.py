"""Greedy decoding of a causal LM with every step replayed from one captured CUDA graph.

    out = greedy_generate_cuda_graph(model, prompt_ids, 16)   # out.tokens (1, 16), out.ms_per_step
    ref = greedy_generate_eager(model, prompt_ids, 16)        # the same step, run eagerly (CPU or CUDA)

Design (chosen so that one step can be captured once and replayed): no KV cache and no host round
trip. The tokens live in a fixed-length device buffer `ids` (1, P + steps) and the next position in a
device tensor `pos`; a step runs the model over the whole buffer (`use_cache=False`), takes the logits
at `pos - 1` with `index_select`, writes their argmax into `ids` at `pos` with `index_copy_` and bumps
`pos`. Every shape is static and nothing is read back to the host, so the step is graph-capturable.
The unfilled tail of the buffer does not matter: a causal model's logits at a position depend only on
the tokens up to it. Each step recomputes the whole sequence (O(L^2) over a generation) — fine for
checks and demos on short sequences, not a serving loop.

`model` is called as `model(ids, use_cache=False)` and must return an object with `.logits`
(Hugging Face causal LMs do), and must not synchronise with the host in forward.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import torch
from torch import nn

from ..errors import InvalidArgumentError


class Generation(NamedTuple):
    """`tokens`: the (1, steps) int64 tokens appended to the prompt. `ms_per_step`: device time of one
    decoding step (CUDA events around the decode loop; on the CPU, wall time)."""
    tokens: torch.Tensor
    ms_per_step: float


def _check(model, prompt_ids, steps) -> None:
    if not isinstance(model, nn.Module):
        raise InvalidArgumentError("model", f"must be a torch.nn.Module, got {type(model).__name__}")
    if (not isinstance(prompt_ids, torch.Tensor) or prompt_ids.dim() != 2 or prompt_ids.shape[0] != 1
            or prompt_ids.shape[1] == 0 or prompt_ids.dtype != torch.long):
        got = f"{prompt_ids.dtype} {tuple(prompt_ids.shape)}" if isinstance(prompt_ids, torch.Tensor) else prompt_ids
        raise InvalidArgumentError("prompt_ids", f"must be a non-empty (1, P) int64 tensor, got {got}")
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
        raise InvalidArgumentError("steps", f"must be an int >= 1, got {steps!r}")


def _decoder(model: nn.Module, prompt_ids: torch.Tensor, steps: int):
    """(ids buffer, reset, step): the state and the one step both drivers run."""
    p = prompt_ids.shape[1]
    dev = prompt_ids.device
    ids = torch.zeros((1, p + steps), dtype=torch.long, device=dev)
    pos = torch.full((1,), p, dtype=torch.long, device=dev)

    def reset() -> None:
        ids.zero_()
        ids[:, :p].copy_(prompt_ids)
        pos.fill_(p)

    def step() -> None:
        logits = model(ids, use_cache=False).logits[0]          # (P + steps, vocab)
        nxt = logits.index_select(0, pos - 1).argmax(dim=-1)    # the prediction for position `pos`
        ids[0].index_copy_(0, pos, nxt)
        pos.add_(1)

    reset()
    return ids, reset, step


def _timed(run: Callable[[], None], steps: int, cuda: bool) -> float:
    if cuda:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()  # one sync, after the loop: reading the events needs it
        return start.elapsed_time(end) / steps
    import time
    t0 = time.perf_counter()
    run()
    return 1e3 * (time.perf_counter() - t0) / steps


@torch.no_grad()
def greedy_generate_eager(model: nn.Module, prompt_ids: torch.Tensor, steps: int) -> Generation:
    """Greedy decoding of `steps` tokens after `prompt_ids` (1, P), each step run eagerly; the reference
    for `greedy_generate_cuda_graph` (same buffers, same step). Works on any device."""
    _check(model, prompt_ids, steps)
    ids, _reset, step = _decoder(model, prompt_ids, steps)

    def loop() -> None:
        for _ in range(steps):
            step()

    ms = _timed(loop, steps, prompt_ids.is_cuda)
    return Generation(ids[:, prompt_ids.shape[1]:].clone(), ms)


@torch.no_grad()
def greedy_generate_cuda_graph(model: nn.Module, prompt_ids: torch.Tensor, steps: int) -> Generation:
    """Greedy decoding of `steps` tokens after `prompt_ids` (1, P, on a CUDA device): one decoding step is
    captured in a `torch.cuda.CUDAGraph` and replayed `steps` times (see the module docstring)."""
    _check(model, prompt_ids, steps)
    if not prompt_ids.is_cuda:
        raise InvalidArgumentError("prompt_ids", f"must be on a CUDA device for CUDA-graph capture, got {prompt_ids.device}")
    ids, reset, step = _decoder(model, prompt_ids, steps)
    # Warm up on a side stream, as torch.cuda.graphs asks: the first call loads kernels and makes GEMM
    # plans (host work that must not happen during capture) and the caching allocator settles.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    reset()  # the warm-up ran one step; capture itself runs nothing

    def loop() -> None:
        for _ in range(steps):
            graph.replay()

    ms = _timed(loop, steps, True)
    return Generation(ids[:, prompt_ids.shape[1]:].clone(), ms)
