// cutlass_gemm: an SM80 implicit-GEMM conv2d fprop whose epilogue is a visitor tree (CUTLASS 2 EVT).
//
// CUTLASS 2 has EVT epilogues for GEMMs only (GemmWithEpilogueVisitor); its convolution kernels take a thread-level
// output functor (alpha, beta scalars), which cannot apply a per-output-channel scale. This kernel puts the two
// together: the mainloop of CUTLASS's own ImplicitGemmConvolution (the `Mma` of DefaultConv2dFprop: NHWC activation
// and KRSC filter iterators, cp.async multistage pipeline, int8 mma.sync) and the epilogue of CUTLASS's
// GemmWithEpilogueVisitor (EpilogueWithVisitorCallbacks over the GEMM's default epilogue, which stages the
// accumulators through shared memory with the same warp-level MMA's fragment layout). Fprop's implicit-GEMM output
// (N*P*Q, K) over a packed NHWC tensor is a row-major matrix with leading dimension K, which is what the visitor's
// store node writes; the emitter asserts that the two Mma types share their warp-level operator.
//
// The body follows ImplicitGemmConvolution::operator() up to the accumulators (no split-K, no groups) and
// GemmWithEpilogueVisitor::run_with_swizzle after them.
#pragma once

#include "cutlass/cutlass.h"
#include "cutlass/conv/conv2d_problem_size.h"
#include "cutlass/conv/convolution.h"
#include "cutlass/gemm/gemm.h"
#include "cutlass/matrix_coord.h"

namespace cg_conv80 {

template <class Mma_, class Epilogue_, class ThreadblockSwizzle_>
struct ConvFpropWithVisitor {
  using Mma = Mma_;
  using Epilogue = Epilogue_;
  using FusionCallbacks = typename Epilogue::FusionCallbacks;
  using ThreadblockSwizzle = ThreadblockSwizzle_;
  using WarpCount = typename Mma::WarpCount;
  static int const kThreadCount = 32 * WarpCount::kCount;
  static cutlass::conv::Operator const kOperator = cutlass::conv::Operator::kFprop;

  struct Params {
    cutlass::conv::Conv2dProblemSize problem_size;
    cutlass::gemm::GemmCoord grid_tiled_shape;
    int swizzle_log_tile = 0;
    int gemm_k_iterations = 0;
    int gemm_k_iterations_per_channel = 0;
    typename Mma::IteratorA::Params iterator_A;
    typename Mma::IteratorA::Element const* ptr_A = nullptr;
    typename Mma::IteratorB::Params iterator_B;
    typename Mma::IteratorB::Element const* ptr_B = nullptr;
    cute::Shape<int32_t, int32_t, int32_t> problem_shape;  // (N*P*Q, K, 1): the visitor's bounds
    typename FusionCallbacks::Params output_op;
  };

  union SharedStorage {
    typename Mma::SharedStorage main_loop;
    typename Epilogue::SharedStorage epilogue;
  };

  // Host: the kernel's parameters for packed NHWC x (N, H, W, C) and KRSC w (K, R, S, C).
  static Params make_params(cutlass::conv::Conv2dProblemSize const& problem, void const* x, void const* w,
                            typename FusionCallbacks::Arguments const& epilogue) {
    Params p;
    p.problem_size = problem;
    cutlass::gemm::GemmCoord gemm = cutlass::conv::implicit_gemm_problem_size(kOperator, problem);
    auto layout_x = cutlass::layout::TensorNHWC::packed({problem.N, problem.H, problem.W, problem.C});
    auto layout_w = cutlass::layout::TensorNHWC::packed({problem.K, problem.R, problem.S, problem.C});
    p.iterator_A = Mma::IteratorA::getParams(problem, layout_x);
    p.ptr_A = static_cast<typename Mma::IteratorA::Element const*>(x);
    p.iterator_B = typename Mma::IteratorB::Params(problem, layout_w);
    p.ptr_B = static_cast<typename Mma::IteratorB::Element const*>(w);
    p.gemm_k_iterations = cutlass::conv::implicit_gemm_k_iterations(
        kOperator, Mma::Shape::kK, problem, cutlass::conv::IteratorAlgorithm::kOptimized,
        cutlass::conv::GroupMode::kNone, Mma::Shape::kN);
    p.gemm_k_iterations_per_channel = cutlass::conv::implicit_gemm_k_iterations_per_channel(
        kOperator, problem, cutlass::conv::IteratorAlgorithm::kOptimized);
    ThreadblockSwizzle swizzle;
    p.grid_tiled_shape = swizzle.get_tiled_shape(gemm, {Mma::Shape::kM, Mma::Shape::kN, Mma::Shape::kK}, 1);
    p.swizzle_log_tile = swizzle.get_log_tile(p.grid_tiled_shape);
    p.problem_shape = cute::make_shape(gemm.m(), gemm.n(), 1);
    p.output_op = FusionCallbacks::to_underlying_arguments(gemm, epilogue, nullptr);
    return p;
  }

  static dim3 grid(Params const& p) {
    ThreadblockSwizzle swizzle;
    return swizzle.get_grid_shape(p.grid_tiled_shape);
  }

  CUTLASS_DEVICE
  void operator()(Params const& params, SharedStorage& shared_storage) {
    ThreadblockSwizzle swizzle;
    cutlass::gemm::GemmCoord tile = swizzle.get_tile_offset(params.swizzle_log_tile);
    if (params.grid_tiled_shape.m() <= tile.m() || params.grid_tiled_shape.n() <= tile.n()) return;

    int thread_idx = threadIdx.x;
    typename Mma::IteratorA iterator_A(params.iterator_A, params.problem_size, params.ptr_A, thread_idx,
                                       cutlass::MatrixCoord(tile.m() * Mma::Shape::kM, tile.k() * Mma::Shape::kK));
    typename Mma::IteratorB iterator_B(params.iterator_B, params.problem_size, params.ptr_B, thread_idx,
                                       cutlass::MatrixCoord(tile.k() * Mma::Shape::kK, tile.n() * Mma::Shape::kN));
    // warp-uniform (lane 0's value), as CUTLASS's kernels compute it
    int warp_idx = cutlass::canonical_warp_idx_sync();
    int lane_idx = threadIdx.x % 32;

    Mma mma(shared_storage.main_loop, thread_idx, warp_idx, lane_idx);
    typename Mma::FragmentC accumulators;
    accumulators.clear();
    mma(params.gemm_k_iterations, accumulators, iterator_A, iterator_B, accumulators,
        params.gemm_k_iterations_per_channel);

    Epilogue epilogue(params.output_op, shared_storage.epilogue, thread_idx, warp_idx, lane_idx);
    epilogue(accumulators, tile, params.problem_shape, thread_idx);
  }
};

template <class Kernel>
__global__ void __launch_bounds__(Kernel::kThreadCount) conv_fprop_visitor_kernel(typename Kernel::Params params) {
  extern __shared__ int shared_words[];
  Kernel op;
  op(params, *reinterpret_cast<typename Kernel::SharedStorage*>(shared_words));
}

}  // namespace cg_conv80
