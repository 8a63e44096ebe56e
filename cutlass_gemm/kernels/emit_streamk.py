"""The SM90 stream-K / split-K tile scheduler's pieces of the scaled-GEMM emitter (emit.py): the scheduler
arguments make_args sets, the hw_info-aware cg_workspace_size, and the cutlass_cppgen check that must let the
fp8 cooperative schedule take the stream-K scheduler. Persistent kernels use none of it (their text is unchanged).
"""
from __future__ import annotations

from .config import KernelConfig


def allow_fp8_cooperative_streamk() -> None:
    """cutlass_cppgen 4.2 refuses the stream-K scheduler unless the kernel schedule is exactly the cooperative
    one, which rejects the fp8 fast-accumulation cooperative schedule too; in CUTLASS that schedule is the
    cooperative kernel (`KernelTmaWarpSpecializedCooperativeFP8FastAccum` derives from
    `KernelTmaWarpSpecializedCooperative` and dispatches to the same GemmUniversal), so its check is asked
    about the cooperative schedule instead. Nothing else is changed (no other schedule reaches this path)."""
    from cutlass_library import KernelScheduleType
    from cutlass_cppgen.utils import check
    original = check.valid_schedule
    if getattr(original, "_cutlass_gemm_wrapped", False):
        return

    def valid_schedule(cc, kernel_schedule, epilogue_schedule, tile_scheduler):
        if kernel_schedule == KernelScheduleType.TmaWarpSpecializedCooperativeFP8FastAccum:
            kernel_schedule = KernelScheduleType.TmaWarpSpecializedCooperative
        return original(cc, kernel_schedule, epilogue_schedule, tile_scheduler)

    valid_schedule._cutlass_gemm_wrapped = True
    check.valid_schedule = valid_schedule


def scheduler_args(cfg: KernelConfig) -> str:
    """make_args' tail for the stream-K scheduler ("" for the persistent one, whose text stays as it was)."""
    if cfg.scheduler == "persistent":
        return ""
    # StreamK, not CUTLASS's Heuristic mode: that one falls back to data-parallel whenever the last wave is at
    # least half full, e.g. 128 tiles on 132 SMs, exactly the few-tile problems this scheduler is chosen for.
    mode, splits = (("StreamK", 1) if cfg.scheduler == "streamk" else ("SplitK", cfg.splits))
    return f"""\
  // {cfg.scheduler}: CUTLASS's SM90 stream-K scheduler. Partial tiles meet in the workspace and are summed in
  // a fixed order (Deterministic), so a result does not depend on which CTA finishes first.
  using DecompositionMode = typename Gemm::GemmKernel::TileScheduler::DecompositionMode;
  using ReductionMode = typename Gemm::GemmKernel::TileScheduler::ReductionMode;
  args.scheduler.splits = {splits};
  args.scheduler.decomposition_mode = DecompositionMode::{mode};
  args.scheduler.reduction_mode = ReductionMode::Deterministic;
  return args;
"""


#: cg_workspace_size of the stream-K kernels: the scheduler sizes its workspace by the SM count and the cluster
#: occupancy, so it is given the hw_info the launch will give (a size made without it would be for the wrong
#: SM count). It needs a current device; without one it returns 0 and the launch then reports the workspace
#: as too small instead of running with a wrong one.
def sm90_streamk_workspace(signature: str, make_args: str) -> str:
    """The workspace-size entry `signature` of a stream-K kernel (any family): the arguments `make_args` builds,
    with the launch's hw_info."""
    return f"""\
{signature} {{
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) return 0;
  DeviceSetup& setup = setup_device(device);
  if (setup.error != cudaSuccess || setup.sm_count <= 0) return 0;
  auto args = {make_args};
  args.hw_info = cutlass::KernelHardwareInfo{{device, setup.sm_count, setup.max_active_clusters}};
  return Gemm::get_workspace_size(args);
}}
"""


SM90_STREAMK_WORKSPACE = sm90_streamk_workspace(
    "CG_EXPORT size_t cg_workspace_size(int64_t m, int64_t n, int64_t k)",
    "make_args(nullptr, nullptr, nullptr, m, n, k, k, k, n,\n"
    "                        nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0)")
