// Row padding for the SM90 GEMMs (pad_rows.cu): a caller's operands copied into whole M tiles in one launch. The TMA
// loads of a partly empty last M tile fetch its out-of-bounds rows through L2, all on one slice, and cost the GEMM
// 1.1-1.8x (docs/performance.md, "Partial M tiles"); the copy costs a few microseconds (kernels/heuristics.py
// padded_rows says when the ops pay it).
#pragma once
#include <torch/extension.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace cg {

// One 2-D byte block: `rows` rows of `row_bytes` bytes, `src_pitch` bytes apart, copied into the leading corner of a
// `dst_rows` x `dst_row_bytes` region whose rows lie `dst_pitch` bytes apart; every other byte of the region is zeroed
// (so the padded rows hold zeros, never stale memory).
struct PadJob {
  void const* src;
  void* dst;
  int64_t rows, row_bytes, src_pitch, dst_rows, dst_row_bytes, dst_pitch;
};

constexpr int kMaxPadJobs = 4;

// Every job in one launch on `stream` (the caller checked the blocks; count <= kMaxPadJobs). Returns the launch's
// error code.
cudaError_t pad_launch(PadJob const* jobs, int count, int device, cudaStream_t stream);

// The job that puts `src` into the leading corner of `dst`, both 2-D with a unit last stride (or one column), the same
// dtype and device, dst at least as large in each dimension.
PadJob pad_job(at::Tensor const& src, at::Tensor const& dst);

// Python-facing: dsts[i] receives srcs[i] in its leading corner and zeros elsewhere, on the current stream of their
// device, in one launch. Raises (c10::Error) on tensors it cannot take; the Python wrapper checks first.
void pad2d(std::vector<at::Tensor> const& srcs, std::vector<at::Tensor> const& dsts);

}  // namespace cg
