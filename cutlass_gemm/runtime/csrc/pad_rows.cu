// One launch that copies up to kMaxPadJobs 2-D byte blocks into larger zeroed regions (pad_rows.h): the A operand of a
// GEMM padded to whole M tiles together with its per-token scales and zero points.
#include "pad_rows.h"

#include <algorithm>

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "ext_msg.h"
#include "pdl.cuh"

namespace cg {
namespace {

struct PadJobs {
  PadJob job[kMaxPadJobs];
  int word[kMaxPadJobs];  // bytes moved per access: the widest that divides every pointer, pitch and width
};

// Each thread issues kUnroll loads before its stores (the words `stride` apart, so a warp's accesses stay contiguous),
// since session 63; before, one load at a time. Alone the copy now moves 3.7-5.1 TB/s read + written on blocks over
// 20 MB on the H200 (tools/results/h200-2026-11-30/session63, calls 2-3); the one-load form was never timed alone, so
// what the unrolling gained is not measured. I: the index type, 32-bit wherever the region's words fit (a 64-bit
// integer division is a software routine on the GPU, a 32-bit one a short instruction sequence; not timed here).
constexpr int kUnroll = 4;
constexpr unsigned kThreads = 256;
constexpr unsigned kBlocksPerSm = 5;  // resident at once: 48 registers a thread (6 CTAs would leave 40: spills)

template <typename W, typename I>
__device__ __forceinline__ void run_job(PadJob const& j, I first, I stride) {
  const I per_row = static_cast<I>(static_cast<uint64_t>(j.dst_row_bytes) / sizeof(W));
  const I src_words = static_cast<I>(static_cast<uint64_t>(j.row_bytes) / sizeof(W));
  const I rows = static_cast<I>(j.rows), total = static_cast<I>(j.dst_rows) * per_row;
  for (I base = first; base < total; base += stride * kUnroll) {
    W v[kUnroll];
    I r[kUnroll], c[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const I i = base + static_cast<I>(u) * stride;
      r[u] = i / per_row;
      c[u] = i - r[u] * per_row;
      v[u] = W{};  // value-initialised: zero bytes
      if (i < total && r[u] < rows && c[u] < src_words)
        v[u] = *reinterpret_cast<W const*>(static_cast<char const*>(j.src) + static_cast<uint64_t>(r[u]) * j.src_pitch +
                                           static_cast<uint64_t>(c[u]) * sizeof(W));
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (base + static_cast<I>(u) * stride < total)
        *reinterpret_cast<W*>(static_cast<char*>(j.dst) + static_cast<uint64_t>(r[u]) * j.dst_pitch +
                              static_cast<uint64_t>(c[u]) * sizeof(W)) = v[u];
  }
}

template <typename W>
__device__ __forceinline__ void run_job(PadJob const& j) {
  const uint64_t first = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  const uint64_t total = static_cast<uint64_t>(j.dst_rows) * (static_cast<uint64_t>(j.dst_row_bytes) / sizeof(W));
  if (total + kUnroll * stride < (uint64_t{1} << 32))
    run_job<W, uint32_t>(j, static_cast<uint32_t>(first), static_cast<uint32_t>(stride));
  else
    run_job<W, uint64_t>(j, first, stride);
}

// Launched as a programmatic dependent where pdl.cuh allows (SM90, CUTLASS_GEMM_PDL not 0): the CTAs may be resident
// while the kernel ahead (the previous GEMM, or the quantizer that wrote A) finishes, and wait() before any load or
// store. The GEMM after it is a programmatic dependent too, so its prologue overlaps this copy.
__global__ void __launch_bounds__(kThreads, kBlocksPerSm) pad_kernel(PadJobs jobs, int count) {
  cg_pdl::launch_dependents();
  cg_pdl::wait();  // nothing global before it: A may still be being written, dst's memory still being read
  const int y = blockIdx.y;
  if (y >= count) return;
  switch (jobs.word[y]) {
    case 16: run_job<uint4>(jobs.job[y]); break;
    case 8: run_job<uint2>(jobs.job[y]); break;
    case 4: run_job<uint32_t>(jobs.job[y]); break;
    case 2: run_job<uint16_t>(jobs.job[y]); break;
    default: run_job<uint8_t>(jobs.job[y]); break;
  }
}

int word_of(PadJob const& j) {
  uint64_t bits = reinterpret_cast<uintptr_t>(j.src) | reinterpret_cast<uintptr_t>(j.dst) |
                  static_cast<uint64_t>(j.src_pitch) | static_cast<uint64_t>(j.dst_pitch) |
                  static_cast<uint64_t>(j.row_bytes) | static_cast<uint64_t>(j.dst_row_bytes);
  for (int w : {16, 8, 4, 2})
    if ((bits & static_cast<uint64_t>(w - 1)) == 0) return w;
  return 1;
}

}  // namespace

cudaError_t pad_launch(PadJob const* jobs, int count, int device, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  PadJobs p{};
  uint64_t most = 1;
  for (int i = 0; i < count; ++i) {
    p.job[i] = jobs[i];
    p.word[i] = word_of(jobs[i]);
    most = std::max<uint64_t>(most, static_cast<uint64_t>(jobs[i].dst_rows) * jobs[i].dst_row_bytes / p.word[i]);
  }
  // One wave of CTAs (kBlocksPerSm per SM) streams the block; the grid-stride loop takes the rest.
  int sms = 132;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);  // (a host-side query; no device work)
  const unsigned cap = static_cast<unsigned>(std::max(sms, 1)) * kBlocksPerSm;
  const uint64_t per_block = uint64_t{kThreads} * kUnroll;
  const unsigned blocks = static_cast<unsigned>(std::min<uint64_t>((most + per_block - 1) / per_block, cap));
  return cg_pdl::launch(pad_kernel, dim3(blocks, static_cast<unsigned>(count)), dim3(kThreads), 0, stream,
                        cg_pdl::active(), p, count);
}

PadJob pad_job(at::Tensor const& src, at::Tensor const& dst) {
  TORCH_CHECK(src.dim() == 2 && dst.dim() == 2, "pad2d: tensors must be 2-D");
  TORCH_CHECK(src.scalar_type() == dst.scalar_type(), "pad2d: source and destination dtypes differ");
  TORCH_CHECK(src.is_cuda() && dst.is_cuda() && src.get_device() == dst.get_device(),
              "pad2d: tensors must be on one CUDA device");
  TORCH_CHECK(src.size(0) <= dst.size(0) && src.size(1) <= dst.size(1), "pad2d: the destination is smaller");
  TORCH_CHECK((src.size(1) <= 1 || src.stride(1) == 1) && (dst.size(1) <= 1 || dst.stride(1) == 1),
              "pad2d: tensors need a unit last stride");
  const int64_t e = src.element_size();
  auto pitch = [e](at::Tensor const& t) { return (t.size(0) > 1 ? t.stride(0) : t.size(1)) * e; };
  TORCH_CHECK(dst.size(0) <= 1 || pitch(dst) >= dst.size(1) * e, "pad2d: destination rows overlap");
  return PadJob{src.data_ptr(), dst.data_ptr(), src.size(0), src.size(1) * e, pitch(src), dst.size(0),
                dst.size(1) * e, pitch(dst)};
}

void pad2d(std::vector<at::Tensor> const& srcs, std::vector<at::Tensor> const& dsts) {
  TORCH_CHECK(srcs.size() == dsts.size() && srcs.size() <= kMaxPadJobs,
              msg("pad2d: takes up to ", kMaxPadJobs, " (source, destination) pairs").c_str());
  if (srcs.empty()) return;
  PadJob jobs[kMaxPadJobs];
  for (size_t i = 0; i < srcs.size(); ++i) jobs[i] = pad_job(srcs[i], dsts[i]);
  const int device = dsts[0].get_device();
  for (auto const& t : dsts) TORCH_CHECK(t.get_device() == device, "pad2d: tensors must be on one CUDA device");
  c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(device));
  cudaError_t err = pad_launch(jobs, static_cast<int>(srcs.size()), device,
                               c10::cuda::getCurrentCUDAStream(device).stream());
  TORCH_CHECK(err == cudaSuccess, msg("pad2d: launch failed: ", cudaGetErrorString(err)).c_str());
}

}  // namespace cg
