"""Child process of test_concurrent_gpu.py: every quantize_model scheme's layers (compile_first.Net: linear layers,
1x1 / 3x3 int8 and weight-only convolutions) called from several threads at once, each thread on its own CUDA stream,
before any other call of the library in this process: the kernels' first loads, the Python plan caches and the C++
entries' plan tables are filled by racing threads, and the GPU runs the threads' calls side by side on their streams
(what a server with one stream per request thread does). Each thread runs compile_first.CALLS in its own order for a
few rounds; then the same calls run one after another on the default stream, and every threaded output is compared
with its sequential twin (within 1e-3 of the norm; how many are bit-equal is reported). Prints one JSON line:
{"results": [{"thread", "round", "name", "rows", "err", "equal"}, ...], "errors": [...]}.

    python tests/concurrent_calls.py THREADS ROUNDS [DEVICE]

DEVICE "cpu" runs the same on the float references (no streams): the CPU test's form.
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import compile_first as cf  # noqa: E402


def main(threads: int, rounds: int, device: str = "cuda") -> None:
    warnings.simplefilter("ignore")
    dtype = torch.bfloat16
    cuda = device != "cpu"
    net = cf.Net(dtype, device)
    gen = torch.Generator().manual_seed(1)
    inputs = [(torch.randn(b, 64, s, s, generator=gen).to(dtype).to(device),
               torch.randn(m, 256, generator=gen).to(dtype).to(device)) for m, b, s in cf.CALLS]
    names = [f"{k}/{i}" for k, convs in cf.SCHEMES.items() for i in range(2 if convs else 1)]
    got, errors = {}, []
    start = threading.Barrier(threads)

    def work(t: int) -> None:
        try:
            stream = torch.cuda.Stream() if cuda else None
            if cuda:
                stream.wait_stream(torch.cuda.default_stream())
            order = [(t + j) % len(inputs) for j in range(len(inputs))]  # each thread its own order
            start.wait()  # every thread's first call at once: the library's first loads race
            with torch.no_grad(), (torch.cuda.stream(stream) if cuda else contextlib.nullcontext()):
                for r in range(rounds):
                    for i in order:
                        got[(t, r, i)] = [y.clone() for y in net(*inputs[i])]
            if cuda:
                stream.synchronize()
        except Exception as exc:  # reported by the parent test, with the thread
            errors.append(f"thread {t}: {type(exc).__name__}: {exc}")

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    if cuda:
        torch.cuda.synchronize()
    with torch.no_grad():
        want = [net(*x) for x in inputs]
    results = []
    for (t, r, i), outs in sorted(got.items()):
        for name, g, w in zip(names, outs, want[i]):
            gd, wd = g.double(), w.double()
            err = float((gd - wd).norm() / wd.norm().clamp_min(1e-30)) if torch.isfinite(gd).all() else float("inf")
            results.append({"thread": t, "round": r, "name": name, "rows": cf.CALLS[i][0], "err": err,
                            "equal": bool(torch.equal(g, w))})
    print(json.dumps({"results": results, "errors": errors}))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:4])
