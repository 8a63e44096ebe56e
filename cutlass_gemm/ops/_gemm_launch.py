"""The launch of one GEMM call (ops/gemm.py): cg_launch's arguments, the workspace a stream-K / split-K kernel takes
from torch's caching allocator, and the call run on operands padded to whole M tiles (runtime/rowpad.py)."""
import torch

from ..runtime import rowpad


def _as_vector(scale, expand: bool, rows: int, cols: int):
    """A per-tensor scale for a vector kernel that cannot broadcast it (SM80) is expanded to a real vector."""
    return scale.expand(rows, cols).contiguous() if expand else scale


def workspace_for(lib, M: int, N: int, K: int, device) -> tuple:
    """(tensor or None, pointer, bytes): the workspace kernel `lib` needs for an M x N x K call, as uint8 from
    torch's caching allocator on the current stream (keep the tensor alive until the launch is queued).
    CUTLASS zeroes the part it must (a cudaMemsetAsync in the launch), so the bytes need no initialisation."""
    nbytes = lib.workspace_size(M, N, K)
    if nbytes == 0:
        return None, None, 0
    ws = torch.empty(nbytes, dtype=torch.uint8, device=device)
    return ws, ws.data_ptr(), nbytes


def _launch_args(variant, a, b, scale_a, scale_b, bias, azp_adj, azp, out, M, N, K, dev,
                 workspace=(None, None, 0), scale_flags: int = 0, m_padded: int = 0) -> tuple:
    """cg_launch's arguments, in its order. `azp_adj` holds azp * colsum for the per-tensor variant;
    `workspace` is what workspace_for returned (none by default); `scale_flags` what _scale_handling said;
    `m_padded` > M: a (and a per-token scale_a / azp) hold that many rows, which the kernel computes, writing out's M."""
    adj = None if azp_adj is None else azp_adj.data_ptr()
    per_tensor_azp = variant in ("scaled_azp", "scaled_azp_nobias")
    # With one row a leading dimension is meaningless (and may be any stride); give the packed one.
    lda, ldd = (a.stride(0), out.stride(0)) if M > 1 else (K, N)
    return (a.data_ptr(), b.data_ptr(), out.data_ptr(), M, N, K, lda, b.stride(1), ldd,
            scale_a.data_ptr(), scale_b.data_ptr(), None if azp is None else azp.data_ptr(),
            None if per_tensor_azp else adj, adj if per_tensor_azp else None,
            None if bias is None else bias.data_ptr(), workspace[1], workspace[2],
            torch._C._cuda_getCurrentRawStream(dev), scale_flags, m_padded)


def _run_padded(launch, lib, needs_ws, flags, variant, a, b, scale_a, scale_b, bias, azp_adj, azp, out, M, N, K, rows,
                sa, dev):
    """The call on its operands copied into `rows` rows (zero past M; one launch): A, a per-token scale_a and per-token
    zero points; the kernel computes `rows` rows and writes the output's M only (cg_launch's m_padded), into `out` when
    given (the caller's or a new one). What the C++ fast path's run_padded does (runtime/csrc/fast_path.cpp)."""
    token = sa == "token"
    srcs = [a] + ([scale_a.reshape(-1)] if token else []) + ([azp.reshape(-1)] if azp is not None else [])
    padded = rowpad.padded(srcs, rows)
    a_p = padded[0]
    sa_p = padded[1].view(rows, 1) if token else scale_a
    azp_p = padded[-1] if azp is not None else None
    ws = workspace_for(lib, rows, N, K, a.device) if needs_ws else (None, None, 0)
    rc = launch(*_launch_args(variant, a_p, b, sa_p, scale_b, bias, azp_adj, azp_p, out, M, N, K, dev, ws, flags,
                              m_padded=rows))
    if rc:
        lib.raise_launch_error(rc, rows, N, K)
    return out
