// Programmatic dependent launch (PDL, SM90+) for the extension's kernels.
//
// Why: a decode layer is a chain of short kernels (activation quant, then a weight-streaming GEMV of 15-45 us),
// and between two kernels of a stream the GPU idles for the launch and the previous kernel's last wave. A kernel
// launched with cudaLaunchAttributeProgrammaticStreamSerialization may have its CTAs scheduled once every CTA of
// the kernel before it has run griddepcontrol.launch_dependents (or exited): they start while that kernel's last
// CTAs finish.
//
// The rule every kernel launched through launch() below keeps: no global load or store of data before wait()
// (griddepcontrol.wait returns when the kernels it depends on have completed and their memory is visible), in
// every CTA, on every path; after it, data an earlier kernel may have written is read with coherent loads (ld.global,
// cp.async), not through the read-only path (ld.global.nc / __ldg), whose data must stay unchanged while the kernel
// runs, which an early start breaks (none of these kernels uses it since session 21). Before wait() a
// kernel may only compute addresses and send its first weight lines to L2: a prefetch moves no data into registers
// and the L2 is the point of coherence, so a weight written by the kernel ahead (an in-place update) is still read
// as written. Those prefetches are the overlap PDL buys. Each kernel calls launch_dependents() first, so the next
// kernel's CTAs may take the SM slots its own CTAs free. One pair predates the switch and is always launched this way
// on SM90: the per-tensor quantizer's two passes (quant_tensor.cuh), whose second pass loads x before its wait (x
// was complete before the first pass, a plain launch, started).
//
// ON by default on SM90+; CUTLASS_GEMM_PDL=0 turns it off (pdl_set() in the extension switches it at run time, for
// side-by-side measurements); off, the kernels run as plain launches and wait() returns at once. On the H100
// (tools/results/h100-2026-11-27/session20/call3 and session21/call1, probe_pdl.md) the early start took 4-12% off the
// decode GEMV and the direct weight-only kernels. Session 20 shipped it off after a CUDA-graph chain of dependent layers
// replayed wrong with it on; session 21 found the cause in the test (the graph's static input was a temporary, freed
// when the capture returned: its replays without PDL were as wrong) and tests/test_pdl_gpu.py now holds it.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace cg_pdl {

__device__ __forceinline__ void wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// A hint to bring the 128-byte line holding `p` into L2 (no register, no fault on a valid address).
// (CG_WO_EMULATE: the CPU emulator of the weight-only kernels, tests/wo_emu/emu.cpp, checks the address.)
__device__ __forceinline__ void prefetch_l2(const void* p) {
#if defined(CG_WO_EMULATE)
  cg_wo_emu::prefetch_l2(p);
#elif defined(__CUDA_ARCH__)
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#else
  (void)p;
#endif
}

#ifndef CG_WO_EMULATE
// -1: not read yet, 0: off, 1: on.
inline std::atomic<int>& mode() {
  static std::atomic<int> m{-1};
  return m;
}

inline bool enabled() {
  int m = mode().load(std::memory_order_relaxed);
  if (m < 0) {
    const char* env = std::getenv("CUTLASS_GEMM_PDL");
    m = env != nullptr && std::strcmp(env, "0") == 0 ? 0 : 1;
    mode().store(m, std::memory_order_relaxed);
  }
  return m == 1;
}

// Whether the current device takes the attribute (compute capability 9.0 or later), cached per device.
inline bool device_supports() {
  static std::atomic<int> cache[64] = {};  // 0 unknown, 1 no, 2 yes
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return false;
  int c = cache[dev].load(std::memory_order_relaxed);
  if (c == 0) {
    int major = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    c = major >= 9 ? 2 : 1;
    cache[dev].store(c, std::memory_order_relaxed);
  }
  return c == 2;
}

// Whether launch() adds the attribute for a call on the current device.
inline bool active() { return enabled() && device_supports(); }

// How many bytes of weight the CTAs of a dependent kernel's first wave send to L2 before their wait, all together.
// The early start covers the launch and the last wave of the kernel ahead, a microsecond or two, i.e. a few MB at
// ~3 TB/s; more is fetched while the kernel ahead still streams its own weight and evicts lines before their use.
// On the H100 (tools/results/h100-2026-11-27/session20/call1-3/probe_pdl.md, PDL off / on in one process) the best
// prefetch depths were all near 8 MB in total: GEMV 16 x 8192^2 4 chunks a warp (264 resident CTAs x 8 warps x
// 1 KB: 8.4 MB; 26.3 -> 23.6 us), weight-only int4 1 x 8192^2 2 tiles a warp (~1056 CTAs x 4 warps x 1 KB: 8.4 MB;
// 17.0 -> 15.0 us), while 4x that made both slower than no PDL. pdl_set_prefetch_bytes() sets it (tuning).
inline std::atomic<int64_t>& prefetch_budget() {
  static std::atomic<int64_t> v{int64_t{8} << 20};
  return v;
}

// Units of `unit_bytes` each of `warps` warps per CTA prefetches: the budget over the CTAs resident at once.
inline int prefetch_units(int64_t resident_ctas, int warps, int64_t unit_bytes) {
  const int64_t budget = prefetch_budget().load(std::memory_order_relaxed);
  const int64_t per = resident_ctas * warps * unit_bytes;
  if (budget <= 0 || per <= 0) return 0;
  return static_cast<int>(std::min<int64_t>(budget / per, int64_t{1} << 20));
}

// kernel<<<grid, block, smem, stream>>>(args...) in thread block clusters of `cluster` CTAs (none where that is 1 x 1 x 1;
// SM90), as a programmatic dependent when `pdl` (the launchers pass active(), and size their prefetches by it: without
// the early start a prefetch only adds instructions).
template <typename... KArgs, typename... Args>
cudaError_t launch_clustered(void (*kernel)(KArgs...), dim3 grid, dim3 cluster, dim3 block, size_t smem,
                             cudaStream_t stream, bool pdl, Args&&... args) {
  cudaLaunchAttribute attr[2];
  unsigned n = 0;
  if (cluster.x * cluster.y * cluster.z > 1) {
    attr[n].id = cudaLaunchAttributeClusterDimension;
    attr[n].val.clusterDim.x = cluster.x;
    attr[n].val.clusterDim.y = cluster.y;
    attr[n].val.clusterDim.z = cluster.z;
    ++n;
  }
  if (pdl) {
    attr[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[n].val.programmaticStreamSerializationAllowed = 1;
    ++n;
  }
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = n;
  return cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
}

// The same without clusters.
template <typename... KArgs, typename... Args>
cudaError_t launch(void (*kernel)(KArgs...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream, bool pdl,
                   Args&&... args) {
  return launch_clustered(kernel, grid, dim3(1, 1, 1), block, smem, stream, pdl, std::forward<Args>(args)...);
}
#endif  // CG_WO_EMULATE

}  // namespace cg_pdl
