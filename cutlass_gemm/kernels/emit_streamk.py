"""The SM90 stream-K / split-K tile scheduler's pieces: for the scaled-GEMM emitter (emit.py) the scheduler
arguments make_args sets, the hw_info-aware cg_workspace_size and the cutlass_cppgen check that must let the fp8
cooperative schedule take the stream-K scheduler; for every SM90 emitter (emit.py, emit_mixed.py, emit_blockwise.py)
the programmatic workspace fill and the scheduler whose is_last_tile compiles with the grid-dependency hooks, as one
StreamKText (streamk_text). Persistent kernels use none of it (their text is unchanged).
"""
from __future__ import annotations

from dataclasses import dataclass

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


# ---- The workspace clear as a programmatic dependent -------------------------------------------------------------
# CUTLASS's stream-K scheduler sums partial tiles through flags in its workspace, which must read zero when the
# kernel starts; its initialize_workspace clears them with cudaMemsetAsync before every launch. A memset cannot be a
# programmatic dependent, so a stream-K GEMM behind it started only after the kernel ahead had ended and the memset
# had run. With CUTLASS_ENABLE_CUDA_HOST_ADAPTER, CUTLASS asks a CudaHostAdapter to do the clear instead: this one
# launches a small kernel that lets its own dependent (the GEMM) start at once, then waits for the kernel ahead of it
# (the workspace is stream-ordered memory that kernel may still use) and clears. The GEMM's producer warps wait
# (griddepcontrol.wait) for the clear to end before their first load, and the scheduler touches the flags only in
# its fixup, after the mainloop those loads feed; CUTLASS 4.2's stream-K has no reduction-only units, which would
# reach the fixup without a mainloop (should_perform_separate_reduction is always false there).

#: Defined before any CUTLASS header of a stream-K source: initialize_workspace clears through the adapter below.
STREAMK_DEFINE = "#define CUTLASS_ENABLE_CUDA_HOST_ADAPTER 1\n"

#: The name of the adapter object the launcher passes to initialize_workspace.
WORKSPACE_FILLER = "cg_workspace_filler"

#: The fill kernel, compiled by the split build's host pass (launcher_text.sm90_split_source's host_pass_kernels).
WORKSPACE_FILL_KERNEL = """\
#include <cuda_runtime.h>
// Writes `word` into `count` 32-bit words, or the low byte of `word` into `count` bytes when `bytes` is set.
// griddepcontrol (sm_90): let the dependent start now, then wait for the kernel ahead before any write. Static,
// not in an unnamed namespace (nvcc's host stub of a kernel there is ambiguous beside CUTLASS's unnamed namespaces).
static __global__ void __launch_bounds__(256) cg_fill_workspace(void* destination, unsigned long long count,
                                                                unsigned int word, int bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  unsigned long long step = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += step) {
    if (bytes) static_cast<unsigned char*>(destination)[i] = static_cast<unsigned char>(word);
    else static_cast<unsigned int*>(destination)[i] = word;
  }
}
"""

#: The adapter (launcher text, after the programmatic switch of sm90_device_setup(True), whose cg_programmatic_on it
#: reads: so every stream-K source is a programmatic one): only memsetDeviceImpl is used; the launches and tensor-map
#: entries CUTLASS's device adapter would route through it refuse (this launcher makes its own launch).
WORKSPACE_FILLER_TEXT = f"""\
namespace {{
struct CgWorkspaceFiller final : cutlass::CudaHostAdapter {{
  cutlass::Status query_occupancy(int32_t*, int32_t*, int32_t, int32_t, int32_t) const override {{
    return cutlass::Status::kErrorNotSupported;
  }}
  cutlass::Status launch(dim3 const, dim3 const, size_t const, cudaStream_t, void**, int32_t) const override {{
    return cutlass::Status::kErrorNotSupported;
  }}
  cutlass::Status launch(dim3 const, dim3 const, dim3 const, size_t const, cudaStream_t, void**,
                         int32_t) const override {{
    return cutlass::Status::kErrorNotSupported;
  }}
  cutlass::Status launch(dim3 const, dim3 const, dim3 const, dim3 const, size_t const, cudaStream_t, void**,
                         int32_t) const override {{
    return cutlass::Status::kErrorNotSupported;
  }}
#if defined(CUDA_HOST_ADAPTER_TENSORMAP_ENABLED)
  CUresult tensorMapEncodeIm2col(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const int*, const int*, cuuint32_t, cuuint32_t, const cuuint32_t*,
                                 CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                 CUtensorMapFloatOOBfill) const override {{
    return CUDA_ERROR_NOT_SUPPORTED;
  }}
  CUresult tensorMapEncodeTiled(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill) const override {{
    return CUDA_ERROR_NOT_SUPPORTED;
  }}
  CUresult tensorMapReplaceAddress(CUtensorMap*, void*) const override {{ return CUDA_ERROR_NOT_SUPPORTED; }}
#endif

 protected:
  // fill_size bytes of *fill repeated count times: as 32-bit words when the range allows, else byte by byte
  // (a fill whose bytes differ then needs words; CUTLASS clears with zero bytes).
  cutlass::Status memsetDeviceImpl(void* destination, void const* fill, size_t fill_size, size_t count,
                                   cudaStream_t stream) const override {{
    if (count == 0) return cutlass::Status::kSuccess;
    if (destination == nullptr || fill == nullptr || (fill_size != 1 && fill_size != 2 && fill_size != 4))
      return cutlass::Status::kErrorInvalidProblem;
    unsigned char pattern[4];
    for (int i = 0; i < 4; ++i) pattern[i] = static_cast<unsigned char const*>(fill)[i % fill_size];
    unsigned int word = 0;
    std::memcpy(&word, pattern, 4);
    unsigned long long total = static_cast<unsigned long long>(fill_size) * count;
    bool words = reinterpret_cast<uintptr_t>(destination) % 4 == 0 && total % 4 == 0;
    bool uniform = pattern[0] == pattern[1] && pattern[0] == pattern[2] && pattern[0] == pattern[3];
    if (!words && !uniform) return cutlass::Status::kErrorMisalignedOperand;
    unsigned long long n = words ? total / 4 : total;
    unsigned int blocks = static_cast<unsigned int>(n / 256 + 1 < 64 ? n / 256 + 1 : 64);
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {{}};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(256);
    config.stream = stream;
    config.attrs = attribute;
    config.numAttrs = cg_programmatic_on() ? 1 : 0;
    cudaError_t err = cudaLaunchKernelEx(&config, cg_fill_workspace, destination, n, word, words ? 0 : 1);
    return err == cudaSuccess ? cutlass::Status::kSuccess : cutlass::Status::kErrorInternal;
  }}
}};
CgWorkspaceFiller {WORKSPACE_FILLER};
}}  // namespace

"""

#: CUTLASS's tag for the SM90 stream-K scheduler, as cutlass_cppgen and emit_mixed write it, and the one that
#: replaces it in a stream-K source (STREAMK_SCHEDULER_TEXT maps it to the scheduler below).
CUTLASS_STREAMK_TAG = "cutlass::gemm::StreamKScheduler"
STREAMK_TAG = "cg_streamk::Scheduler"

#: CUTLASS's SM90 stream-K scheduler with one method rewritten. CUTLASS 4.2's is_last_tile, which the cooperative
#: kernel calls only when CUTLASS_ENABLE_GDC_FOR_SM90 is defined (the early trigger of the next kernel), binds a
#: member of its const `this` to a non-const reference and does not compile; this asks the same question of a copy
#: of the scheduler. Everything else is the base class's, found through the tag's TileSchedulerSelector entry.
#: After the CUTLASS includes, before the kernel types.
STREAMK_SCHEDULER_TEXT = """\
namespace cg_streamk {
struct Scheduler {};  // the tag
template <class TileShape, class ClusterShape>
class TileScheduler
    : public cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90StreamK<TileShape, ClusterShape> {
  using Base = cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90StreamK<TileShape, ClusterShape>;

 public:
  using Base::Base;
  CUTLASS_DEVICE bool is_last_tile(typename Base::WorkTileInfo work_tile_info, uint32_t advance_count = 1) const {
    if (this->continue_current_work(work_tile_info)) return false;
    TileScheduler next = *this;
    next.advance_to_next_work(advance_count);
    return !next.get_current_work().is_valid();
  }
};
}  // namespace cg_streamk
namespace cutlass::gemm::kernel::detail {
template <class TileShape, class ClusterShape, uint32_t SchedulerPipelineStageCount>
struct TileSchedulerSelector<cg_streamk::Scheduler, cutlass::arch::Sm90, TileShape, ClusterShape,
                             SchedulerPipelineStageCount> {
  using Scheduler = cg_streamk::TileScheduler<TileShape, ClusterShape>;
};
}  // namespace cutlass::gemm::kernel::detail
"""


def own_streamk_tag(kernel_types: str) -> str:
    """`kernel_types` with CUTLASS's stream-K tag replaced by STREAMK_TAG (exactly once: one kernel per source)."""
    count = kernel_types.count(CUTLASS_STREAMK_TAG)
    if count != 1:
        raise RuntimeError(f"expected one {CUTLASS_STREAMK_TAG} in the kernel types, found {count}")
    return kernel_types.replace(CUTLASS_STREAMK_TAG, STREAMK_TAG)


@dataclass(frozen=True)
class StreamKText:
    """What a stream-K kernel's source adds, by where it goes; empty strings for every other scheduler, so that an
    emitter writes the same five places for any kernel (the GEMM, mixed-input and blockwise emitters)."""

    #: before any CUTLASS header (STREAMK_DEFINE)
    define: str
    #: after the CUTLASS includes, before the kernel types (STREAMK_SCHEDULER_TEXT)
    scheduler: str
    #: in the launcher, after the device setup: the adapter (WORKSPACE_FILLER_TEXT)
    filler: str
    #: the adapter's name for launcher_text.sm90_run_args (WORKSPACE_FILLER)
    adapter: str
    #: the fill kernel, for launcher_text.sm90_split_source's host pass (WORKSPACE_FILL_KERNEL)
    host_kernels: str


def streamk_text(streamk: bool) -> StreamKText:
    """The stream-K pieces of a source (`streamk`: whether its tile scheduler is CUTLASS's stream-K / split-K)."""
    if not streamk:
        return StreamKText("", "", "", "", "")
    return StreamKText(STREAMK_DEFINE, STREAMK_SCHEDULER_TEXT, WORKSPACE_FILLER_TEXT, WORKSPACE_FILLER,
                       WORKSPACE_FILL_KERNEL)
