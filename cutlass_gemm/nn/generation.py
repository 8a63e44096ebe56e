"""Greedy decoding of a causal LM with every step replayed from one captured CUDA graph.

No KV cache and no host round trip: the tokens live in a fixed-length device buffer; a step runs the
model over the whole buffer (`use_cache=False`; a causal model's logits at a position depend only on
the tokens before it, so the unfilled tail does not matter), picks the argmax at the current position
(a device tensor) and writes it into the buffer. The same step runs eagerly for comparison.
"""
from __future__ import annotations

import torch
from torch import nn


def greedy_generate(model: nn.Module, prompt_ids: torch.Tensor, steps: int, *, cuda_graph: bool = True) -> torch.Tensor:
    """The `steps` tokens (1, steps) that greedy decoding appends to `prompt_ids` (1, P)."""
    p = prompt_ids.shape[1]
    ids = torch.zeros((1, p + steps), dtype=torch.long, device=prompt_ids.device)
    ids[:, :p] = prompt_ids
    pos = torch.full((1,), p, dtype=torch.long, device=prompt_ids.device)

    def step():
        logits = model(ids, use_cache=False).logits[0]          # (P + steps, vocab)
        nxt = logits.index_select(0, pos - 1).argmax(dim=-1)    # the prediction for position `pos`
        ids[0].index_copy_(0, pos, nxt)
        pos.add_(1)

    with torch.no_grad():
        if not cuda_graph:
            for _ in range(steps):
                step()
            return ids[:, p:].clone()
        # warm up on a side stream (lazy initialisation, kernel plans), then capture one step
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            step()
        torch.cuda.current_stream().wait_stream(side)
        ids[:, p:] = 0
        pos.fill_(p)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
        # capturing does not run the step: replay it `steps` times
        ids[:, p:] = 0
        pos.fill_(p)
        for _ in range(steps):
            graph.replay()
        return ids[:, p:].clone()
