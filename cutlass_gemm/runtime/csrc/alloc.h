// Allocation without torch ops, for every allocation of the extension's eager paths (fast_path.cpp, w8a8_fast.cpp,
// wo_ops.cu, bi8_ops.cu, wo_mixed_fast.cpp, conv_fast.cpp, quant_ops.cu). at::empty and Tensor::view each cost a dispatcher round trip,
// about as much host time per call as a small kernel's launch; an eager decode step is host-bound, so these entries
// allocate with at::detail::empty_cuda (what at::empty reaches for a CUDA tensor), carve one byte buffer into the
// parts a call needs, and give outputs their final shape directly instead of viewing them.
#pragma once
#include <ATen/ATen.h>
#include <ATen/cuda/EmptyTensor.h>

#include <cstdint>
#include <utility>

namespace cg {

// An uninitialised contiguous CUDA tensor of `size` on device `device`, on the caching allocator of the current stream.
inline at::Tensor empty_dev(c10::IntArrayRef size, at::ScalarType dtype, int64_t device) {
  return at::Tensor(at::detail::empty_cuda(size, dtype, at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device)),
                                           c10::nullopt));
}

// The same for an (N, C, H, W) tensor in channels_last memory (what a channels_last convolution returns).
inline at::Tensor empty_dev_channels_last(c10::IntArrayRef size, at::ScalarType dtype, int64_t device) {
  return at::Tensor(at::detail::empty_cuda(size, dtype, at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device)),
                                           at::MemoryFormat::ChannelsLast));
}

// Byte counts rounded up to 256, so that every part carved out of one buffer starts 256-byte aligned.
inline int64_t round256(int64_t bytes) { return (bytes + 255) / 256 * 256; }

// A contiguous tensor of `shape` over the first elements of `full`'s storage, made without a torch op: the (rows, N)
// output of a call padded to whole M tiles seen as the caller's (..., N).
inline at::Tensor leading_rows(at::TensorBase const& full, c10::IntArrayRef shape) {
  auto impl = c10::make_intrusive<c10::TensorImpl>(c10::Storage(full.storage()),
                                                   c10::DispatchKeySet(c10::DispatchKey::CUDA), full.dtype());
  impl->set_sizes_contiguous(shape);
  return at::Tensor::wrap_tensor_impl(std::move(impl));
}

// A tensor of `sizes` and `strides` over `full`'s storage from `full`'s first element, made without a torch op (the
// conv layer's dequantized (n, K) weight seen as its (n, C, kh, kw) channels_last weight; a channels_last x seen as its
// pixel rows).
inline at::Tensor strided_over(at::TensorBase const& full, c10::IntArrayRef sizes, c10::IntArrayRef strides) {
  auto impl = c10::make_intrusive<c10::TensorImpl>(c10::Storage(full.storage()),
                                                   c10::DispatchKeySet(c10::DispatchKey::CUDA), full.dtype());
  impl->set_sizes_and_strides(sizes, strides, full.storage_offset());
  return at::Tensor::wrap_tensor_impl(std::move(impl));
}

}  // namespace cg
