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


#: Per-device setup shared by every SM90 launcher (this family's and the mixed-input one's).
_SM90_DEVICE_SETUP = """\
namespace {
// Per-device work done once: raise the kernel's shared-memory limit and read the SM and cluster
// occupancy figures the persistent scheduler needs (GemmUniversalAdapter repeats these per call).
struct DeviceSetup {
  std::once_flag once;
  cudaError_t error = cudaSuccess;
  int sm_count = 0;
  int max_active_clusters = 0;
};
constexpr int kMaxDevices = 64;
DeviceSetup cg_devices[kMaxDevices];

DeviceSetup& setup_device(int device) {
  DeviceSetup& s = cg_devices[device];
  std::call_once(s.once, [&] {
    using GemmKernel = typename Gemm::GemmKernel;
    int smem = GemmKernel::SharedStorageSize;
    if (smem >= (48 << 10))
      s.error = cudaFuncSetAttribute(cutlass::device_kernel<GemmKernel>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (s.error == cudaSuccess) {
      s.sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(device);
      s.max_active_clusters = cutlass::KernelHardwareInfo::query_device_max_active_clusters<GemmKernel>();
    }
  });
  return s;
}
}  // namespace

"""

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
_SM90_RUN_ARGS = """\
  args.hw_info = cutlass::KernelHardwareInfo{device, setup.sm_count, setup.max_active_clusters};
  cutlass::Status status = Gemm::can_implement(args);
  if (status != cutlass::Status::kSuccess)
    return cg_fail(1, "can_implement", cutlass::cutlassGetStatusString(status));
  if (Gemm::get_workspace_size(args) > workspace_bytes)
    return cg_fail(2, "workspace", "the workspace passed is smaller than cg_workspace_size()");
  cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
  status = GemmKernel::initialize_workspace(args, workspace, stream);
  if (status != cutlass::Status::kSuccess)
    return cg_fail(3, "initialize_workspace", cutlass::cutlassGetStatusString(status));
  typename Gemm::Params params = GemmKernel::to_underlying_arguments(args, workspace);
  status = Gemm::run(params, stream);
  err = cudaGetLastError();
  if (err != cudaSuccess) return cg_fail(4, "launch", cudaGetErrorString(err));
  if (status != cutlass::Status::kSuccess)
    return cg_fail(4, "run", cutlass::cutlassGetStatusString(status));
  return 0;
}
"""
