"""C++ text every kernel family's launcher shares (the scaled GEMMs of emit.py, the mixed-input, blockwise and
conv emitters): the prelude, the SM90 driver shim, and the SM90 per-device setup, lookup and launch.

Changing any of it changes every family's generated source (and so their cache keys): keep it stable.
"""
from __future__ import annotations

#: Bumped when a family's launcher C signature changes; checked when a library is loaded. The scaled GEMMs
#: have their own (emit.GEMM_LAUNCHER_ABI_VERSION): their cg_launch took a scale-flags argument in version 3.
LAUNCHER_ABI_VERSION = 2

_SM90_DRIVER_SHIM = """\
// CUTLASS encodes TMA descriptors through the driver. By default it resolves cuTensorMapEncodeTiled
// with cudaGetDriverEntryPoint on every call; resolve it once here instead (the library still links
// no libcuda). The definition is hidden: nothing outside this library binds to it.
#define CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL 1
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
extern "C" CUresult CUDAAPI cuTensorMapEncodeTiled(
    CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* address, const cuuint64_t* dims,
    const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* element_strides,
    CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
    CUtensorMapFloatOOBfill oob) {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found)
        != cudaSuccess || found != cudaDriverEntryPointSuccess) p = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  if (fn == nullptr) return CUDA_ERROR_NOT_FOUND;
  return fn(map, type, rank, address, dims, strides, box, element_strides, interleave, swizzle, l2, oob);
}
"""

_COMMON_PRELUDE = """\
#include <cstdint>
#include <mutex>
#include <cstdio>
#include <cuda_runtime.h>
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/util/packed_stride.hpp"

#define CG_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
thread_local char cg_error_text[512];
int cg_fail(int code, char const* what, char const* detail) {
  std::snprintf(cg_error_text, sizeof(cg_error_text), "%s: %s", what, detail);
  return code;
}
}  // namespace
"""


#: The marker line of a source whose device and host halves build apart (runtime/nvcc.py): the device pass
#: (``-DCG_DEVICE_PASS -cubin``) sees the kernel types and an explicit instantiation of the kernel, the host pass the same types and the
#: launcher, with every line hidden from its own device compilation. The two run in parallel, the host half no
#: longer instantiates the kernel's device code, and the cubin is linked into the library as data
#: (`cg_cubin_image`), loaded through the runtime's library API on first use.
SPLIT_BUILD_MARKER = "// cutlass_gemm build: device pass and host pass compiled apart"

#: The kernel entry of a split source: CUTLASS's own device_kernel<>, explicitly instantiated for the device pass
#: alone, i.e. the entry a single nvcc run compiles under the same mangled name (ptxas's output depends on the
#: kernel's name: an entry named otherwise compiled the same PTX to 60 differing instructions of ~1300). The cubin
#: holds this one kernel; the launcher takes it by enumeration, not by name.
_SM90_DEVICE_ENTRY = """\
#if defined(CG_DEVICE_PASS)
using CgDeviceKernel = Gemm::GemmKernel;
template __global__ void cutlass::device_kernel<CgDeviceKernel>(CUTLASS_GRID_CONSTANT CgDeviceKernel::Params const);
#else
"""


def sm90_split_source(header: str, types: str, launcher: str, host_pass_kernels: str = "") -> str:
    """One SM90 kernel's source in the split layout (see SPLIT_BUILD_MARKER): `types` must define `Gemm`
    (with `Gemm::GemmKernel`) at file scope; `launcher` is host code only. `host_pass_kernels`: small kernels of
    the launcher's own (e.g. emit_streamk's workspace fill), compiled by the host pass alone into its usual
    embedded image, because the device pass's cubin must hold the GEMM kernel only (cg_kernel enumerates one)."""
    own = f"#if !defined(CG_DEVICE_PASS)\n{host_pass_kernels}#endif\n" if host_pass_kernels else ""
    return (header + SPLIT_BUILD_MARKER + "\n" + own + "#if defined(CG_DEVICE_PASS) || !defined(__CUDA_ARCH__)\n"
            + types + "\n" + _SM90_DEVICE_ENTRY + launcher + "\n#endif  // CG_DEVICE_PASS\n#endif\n")


#: The SM90 launchers' per-device setup up to cg_run's launch configuration (_SM90_DEVICE_SETUP assembles the parts).
_SETUP_HEAD = """\
// The kernel's cubin, linked into this library by the build (runtime/nvcc.py).
extern "C" char const cg_cubin_image[];

namespace {
// The handle of the image's one kernel, loaded once per process (the runtime loads it into each device's
// context when first used there).
cudaError_t cg_kernel(void const** kernel) {
  static std::once_flag once;
  static cudaError_t error = cudaSuccess;
  static cudaKernel_t handle = nullptr;
  std::call_once(once, [] {
    cudaLibrary_t library = nullptr;
    unsigned int count = 0;
    error = cudaLibraryLoadData(&library, cg_cubin_image, nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (error == cudaSuccess) error = cudaLibraryGetKernelCount(&count, library);
    if (error == cudaSuccess && count != 1) error = cudaErrorInvalidDeviceFunction;  // one kernel per image
    if (error == cudaSuccess) error = cudaLibraryEnumerateKernels(&handle, 1, library);
  });
  *kernel = reinterpret_cast<void const*>(handle);
  return error;
}

// Per-device work done once: raise the kernel's shared-memory limit and read the SM and cluster
// occupancy figures the persistent scheduler needs (GemmUniversalAdapter repeats these per call).
struct DeviceSetup {
  std::once_flag once;
  cudaError_t error = cudaSuccess;
  void const* kernel = nullptr;
  int sm_count = 0;
  int max_active_clusters = 0;
};
constexpr int kMaxDevices = 64;
DeviceSetup cg_devices[kMaxDevices];

using CgClusterShape = typename Gemm::GemmKernel::ClusterShape;
dim3 cluster_dims() {
  return dim3(cute::size<0>(CgClusterShape{}), cute::size<1>(CgClusterShape{}), cute::size<2>(CgClusterShape{}));
}

DeviceSetup& setup_device(int device) {
  DeviceSetup& s = cg_devices[device];
  std::call_once(s.once, [&] {
    using GemmKernel = typename Gemm::GemmKernel;
    int smem = GemmKernel::SharedStorageSize;
    s.error = cg_kernel(&s.kernel);
    if (s.error == cudaSuccess && smem >= (48 << 10))
      s.error = cudaFuncSetAttribute(s.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (s.error == cudaSuccess) {
      s.sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(device);
      s.max_active_clusters = cutlass::KernelHardwareInfo::query_device_max_active_clusters(
          cluster_dims(), GemmKernel::MaxThreadsPerBlock, s.kernel);
    }
  });
  return s;
}

// The launch GemmUniversalAdapter::run makes, on the handle: a plain launch for a 1x1x1 cluster, a cluster
// launch otherwise.
int cg_run(void const* kernel, typename Gemm::GemmKernel::Params& params, cudaStream_t stream) {
  using GemmKernel = typename Gemm::GemmKernel;
  dim3 grid = GemmKernel::get_grid_shape(params);
  dim3 cluster = cluster_dims();
  if (grid.x % cluster.x || grid.y % cluster.y || grid.z % cluster.z)
    return cg_fail(4, "launch", "the grid is not a whole number of clusters");
"""

#: cg_run's launch configuration, after its attributes.
_LAUNCH_CONFIG = """\
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = GemmKernel::get_block_shape();
  config.dynamicSmemBytes = GemmKernel::SharedStorageSize;
  config.stream = stream;
  config.attrs = attribute;
"""

#: cg_run's attributes: a plain launch for a 1x1x1 cluster, a cluster launch otherwise.
_LAUNCH_PLAIN = """\
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeClusterDimension;
  attribute[0].val.clusterDim.x = cluster.x;
  attribute[0].val.clusterDim.y = cluster.y;
  attribute[0].val.clusterDim.z = cluster.z;
""" + _LAUNCH_CONFIG + """\
  config.numAttrs = cluster.x * cluster.y * cluster.z > 1 ? 1 : 0;
"""

#: The same, with the programmatic-stream-serialization attribute added while cg_programmatic_on() (below).
_LAUNCH_PROGRAMMATIC = """\
  cudaLaunchAttribute attribute[2];
  unsigned int attributes = 0;
  if (cluster.x * cluster.y * cluster.z > 1) {
    attribute[attributes].id = cudaLaunchAttributeClusterDimension;
    attribute[attributes].val.clusterDim.x = cluster.x;
    attribute[attributes].val.clusterDim.y = cluster.y;
    attribute[attributes].val.clusterDim.z = cluster.z;
    ++attributes;
  }
  if (cg_programmatic_on()) {
    attribute[attributes].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[attributes].val.programmaticStreamSerializationAllowed = 1;
    ++attributes;
  }
""" + _LAUNCH_CONFIG + """\
  config.numAttrs = attributes;
"""

#: cg_run's launch and the end of the setup.
_SETUP_TAIL = """\
  void* kernel_params[] = {&params};
  cudaError_t err = cudaLaunchKernelExC(&config, kernel, kernel_params);
  if (err != cudaSuccess) return cg_fail(4, "launch", cudaGetErrorString(err));
  return 0;
}
}  // namespace

"""

#: Per-device setup shared by every SM90 launcher (every family's), launching plainly.
_SM90_DEVICE_SETUP = _SETUP_HEAD + _LAUNCH_PLAIN + _SETUP_TAIL

#: What a source launched as a programmatic dependent defines before any CUTLASS header: CUTLASS's grid-dependency
#: hooks (cutlass/arch/grid_dependency_control.h) are compiled in only with it. Without it they are empty, and a
#: kernel launched with the attribute would read its inputs before the kernel ahead of it finished writing them.
PROGRAMMATIC_DEFINE = "#define CUTLASS_ENABLE_GDC_FOR_SM90 1\n"

#: The batch stride that makes CUTLASS's Sm90ScalarBroadcast read its scalar after the producer's griddepcontrol.wait
#: (in the producer's load and the consumers' store callbacks) instead of in its constructor at kernel start: dynamic
#: and nonzero. The launchers pass LATE_SCALAR_VALUE (1; a GEMM or conv has one batch index, 0, so the element read is
#: the same). The GEMMs' per-tensor scales (emit_evt.late_scalars) and the convs' scalars (emit_conv) take it, which is what
#: lets those kernels start as programmatic dependents behind a kernel that writes the scalar.
LATE_SCALAR_STRIDE = "cute::Stride<cute::Int<0>, cute::Int<0>, int64_t>"
LATE_SCALAR_VALUE = LATE_SCALAR_STRIDE + "{cute::Int<0>{}, cute::Int<0>{}, int64_t(1)}"

#: The switch of a programmatic source (exported: runtime/loader.py sets it; CUTLASS_GEMM_PDL=0 is its default off,
#: the variable the extension's kernels read too, runtime/csrc/pdl.cuh).
_PROGRAMMATIC_SWITCH = """\
#include <atomic>
#include <cstdlib>
#include <cstring>
namespace {
// -1: not decided (CUTLASS_GEMM_PDL decides at the first launch: on unless it is "0"), 0: off, 1: on.
std::atomic<int> cg_programmatic{-1};
bool cg_programmatic_on() {
  int mode = cg_programmatic.load(std::memory_order_relaxed);
  if (mode < 0) {
    char const* env = std::getenv("CUTLASS_GEMM_PDL");
    mode = env != nullptr && std::strcmp(env, "0") == 0 ? 0 : 1;
    cg_programmatic.store(mode, std::memory_order_relaxed);
  }
  return mode == 1;
}
}  // namespace
// 0: plain launches, 1: programmatic dependents, other: unchanged. Returns the previous setting (0 or 1).
CG_EXPORT int cg_set_programmatic_launch(int on) {
  int before = cg_programmatic_on() ? 1 : 0;
  if (on == 0 || on == 1) cg_programmatic.store(on, std::memory_order_relaxed);
  return before;
}

"""


def sm90_device_setup(programmatic: bool = False) -> str:
    """The per-device setup and cg_run of an SM90 launcher. `programmatic`: cg_run adds the
    programmatic-stream-serialization attribute (switchable at run time through the exported
    cg_set_programmatic_launch); only for a source that defines PROGRAMMATIC_DEFINE first and whose kernel reads no
    global memory before CUTLASS's griddepcontrol.wait (emit.programmatic_launch says which)."""
    if not programmatic:
        return _SM90_DEVICE_SETUP
    return _PROGRAMMATIC_SWITCH + _SETUP_HEAD + _LAUNCH_PROGRAMMATIC + _SETUP_TAIL

#: The SM90 device lookup before `args` is made, and the launch after: checks, workspace, params, run
#: (shared with emit_mixed.py, whose entry point has its own signature and make_args).
_SM90_DEVICE_LOOKUP = """\
  using GemmKernel = typename Gemm::GemmKernel;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return cg_fail(5, "cudaGetDevice", cudaGetErrorString(err));
  if (device < 0 || device >= kMaxDevices) return cg_fail(5, "device", "device ordinal out of range");
  DeviceSetup& setup = setup_device(device);
  if (setup.error != cudaSuccess) return cg_fail(3, "setup", cudaGetErrorString(setup.error));
"""


#: The scaled GEMMs' launch of `rows` > m computed rows (emit.py cg_launch's m_padded): the output's TMA store
#: descriptor made again for an m-row problem, so that the kernel writes d's first m rows only (TMA drops a store's
#: elements outside the descriptor's bounds). Nothing else in the epilogue's parameters depends on M: its EVT nodes
#: (broadcasts, scalars, computes) keep their `rows` form and read the padded per-row vectors up to `rows`.
_STORE_ROWS = """\
  if (rows > m) {
    auto stored = args.problem_shape;
    cute::get<0>(stored) = static_cast<int>(m);
    params.epilogue.tma_store_d =
        GemmKernel::CollectiveEpilogue::to_underlying_arguments(stored, args.epilogue, nullptr).tma_store_d;
  }
"""


def sm90_launch_tail(workspace_adapter: str = "", store_rows: bool = False) -> str:
    """After `args.hw_info` and the checks: workspace initialisation, params, launch. `workspace_adapter`: the
    CudaHostAdapter object CUTLASS clears the workspace through (stream-K sources, emit_streamk); none: CUTLASS's
    cudaMemsetAsync. `store_rows`: the launcher computes `rows` rows and stores `m` (_STORE_ROWS)."""
    adapter = f", &{workspace_adapter}" if workspace_adapter else ""
    splice = _STORE_ROWS if store_rows else ""
    return f"""\
  cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
  status = GemmKernel::initialize_workspace(args, workspace, stream{adapter});
  if (status != cutlass::Status::kSuccess)
    return cg_fail(3, "initialize_workspace", cutlass::cutlassGetStatusString(status));
  typename GemmKernel::Params params = GemmKernel::to_underlying_arguments(args, workspace);
{splice}  return cg_run(setup.kernel, params, stream);
}}
"""


def sm90_run_args(workspace_adapter: str = "", store_rows: bool = False) -> str:
    """hw_info, can_implement, the workspace size check, then sm90_launch_tail(workspace_adapter, store_rows)."""
    return """\
  args.hw_info = cutlass::KernelHardwareInfo{device, setup.sm_count, setup.max_active_clusters};
  cutlass::Status status = Gemm::can_implement(args);
  if (status != cutlass::Status::kSuccess)
    return cg_fail(1, "can_implement", cutlass::cutlassGetStatusString(status));
  if (Gemm::get_workspace_size(args) > workspace_bytes)
    return cg_fail(2, "workspace", "the workspace passed is smaller than cg_workspace_size()");
""" + sm90_launch_tail(workspace_adapter, store_rows)
