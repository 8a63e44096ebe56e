// cutlass_gemm: CUTLASS's SM90 FP8 blockwise mainloop with the scale promotion of k-tile k-1 overlapped with
// the wgmmas of k-tile k (inlined by kernels/emit_blockwise.py into each kernel whose mainloop is "overlap").
//
// CUTLASS's collective (MainloopSm90TmaGmmaWarpSpecializedBlockwiseFP8) issues a k-tile's wgmmas into a temporary
// accumulator, waits for them (warpgroup_wait<0>), then multiplies the temporary by the two block scales and adds
// it to the running sum: the tensor cores idle while the FFMAs run (64 per thread per 128-deep k-tile at a 128 x 128
// cooperative tile). Here two temporaries alternate: k-tile k's wgmmas are issued into one before k-tile k-1's
// result, in the other, is waited for (warpgroup_wait<1>) and promoted, so the FFMAs of k-1 run while the tensor
// cores work on k. Cost: one more accumulator set (64 registers per thread at 128 x 128 cooperative or 64 x 128
// pingpong), and each smem stage stays held one k-tile longer. Measured (H100, tools/results/h100-2026-11-27/
// session24/call1-2): 3-7% less time at the large shapes, 9-11% for the 64 x 128 pingpong tile at 256-1024 rows.
// Everything else (TMA loads, scale gathers, pipeline, shared storage, params) is the base collective's.
#pragma once
#include "cutlass/gemm/collective/collective_builder.hpp"

namespace cg_blockwise {

template <class Base>
struct OverlapPromotionMainloop : Base {
  using MainloopPipeline = typename Base::MainloopPipeline;
  using PipelineState = typename Base::PipelineState;
  using TensorStorage = typename Base::TensorStorage;
  using Params = typename Base::Params;
  using TiledMma = typename Base::TiledMma;
  using TileShape = typename Base::TileShape;
  using SmemLayoutA = typename Base::SmemLayoutA;
  using SmemLayoutB = typename Base::SmemLayoutB;
  using SmemLayoutSFA = typename Base::SmemLayoutSFA;
  using SmemLayoutSFB = typename Base::SmemLayoutSFB;
  using ElementBlockScale = typename Base::ElementBlockScale;

  // The form served: per-row activation scales (several per tile along M), one weight block per tile along N,
  // and one promotion per k-tile (scale K granularity == tile K == 4 wgmma atoms of K 32).
  static_assert(Base::ScaleMsPerTile > 1 && Base::ScaleNsPerTile == 1,
                "overlapped promotion: per-row scale_a and one 128-wide weight block per tile N");
  static_assert(Base::ScalePromotionInterval == 4, "overlapped promotion: one scale block per k-tile");

  template <class FrgTensorC>
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline, PipelineState smem_pipe_read, FrgTensorC& accum, int k_tile_count,
                          int thread_idx, TensorStorage& shared_tensors, Params const& /*mainloop_params*/) {
    using namespace cute;
    static_assert(is_rmem<FrgTensorC>::value, "C tensor must be rmem resident.");

    Tensor sA = make_tensor(make_smem_ptr(shared_tensors.smem_A.data()), SmemLayoutA{});  // (BLK_M,BLK_K,PIPE)
    Tensor sB = make_tensor(make_smem_ptr(shared_tensors.smem_B.data()), SmemLayoutB{});  // (BLK_N,BLK_K,PIPE)
    // The scales seen as (BLK_M, BLK_N, (BLK_K, PIPE)) tensors broadcast along the other mode (the base's views).
    Tensor sSFA = make_tensor(make_smem_ptr(shared_tensors.smem_SFA.data()),
                              make_layout(make_shape(get<0>(shape(SmemLayoutSFA{})), get<1>(TileShape{}),
                                                     make_shape(get<1>(shape(SmemLayoutSFA{})),
                                                                get<2>(shape(SmemLayoutSFA{})))),
                                          make_stride(get<0>(stride(SmemLayoutSFA{})), _0{},
                                                      make_stride(get<1>(stride(SmemLayoutSFA{})),
                                                                  get<2>(stride(SmemLayoutSFA{}))))));
    Tensor sSFB = make_tensor(make_smem_ptr(shared_tensors.smem_SFB.data()),
                              make_layout(make_shape(get<0>(TileShape{}), get<0>(shape(SmemLayoutSFB{})),
                                                     make_shape(get<1>(shape(SmemLayoutSFB{})),
                                                                get<2>(shape(SmemLayoutSFB{})))),
                                          make_stride(_0{}, get<0>(stride(SmemLayoutSFB{})),
                                                      make_stride(get<1>(stride(SmemLayoutSFB{})),
                                                                  get<2>(stride(SmemLayoutSFB{}))))));

    constexpr int kMmaWarpGroups = size(TiledMma{}) / cutlass::NumThreadsPerWarpGroup;
    Layout warp_group_thread_layout = make_layout(Int<kMmaWarpGroups>{}, Int<cutlass::NumThreadsPerWarpGroup>{});
    int warp_group_idx = __shfl_sync(0xFFFFFFFF, thread_idx / cutlass::NumThreadsPerWarpGroup, 0);
    TiledMma tiled_mma;
    auto thread_mma = tiled_mma.get_slice(warp_group_thread_layout(warp_group_idx));
    Tensor tCsSFA = tiled_mma.get_slice(thread_idx).partition_C(sSFA);  // (MMA,MMA_M,MMA_N,(MMA_K,PIPE))
    Tensor tCsSFB = tiled_mma.get_slice(thread_idx).partition_C(sSFB);
    Tensor tCrA = thread_mma.make_fragment_A(thread_mma.partition_A(sA));  // (MMA,MMA_M,MMA_K,PIPE)
    Tensor tCrB = thread_mma.make_fragment_B(thread_mma.partition_B(sB));

    // Two wgmma targets and their per-row scales (scale_a * scale_b of their k-tile), used alternately.
    Tensor part0 = make_fragment_like(accum);
    Tensor part1 = make_fragment_like(accum);
    Tensor sf0 = make_tensor_like<ElementBlockScale>(tCsSFA(_, _, _, _0{}));
    Tensor sf1 = make_tensor_like<ElementBlockScale>(tCsSFA(_, _, _, _0{}));
    Tensor sfb = make_tensor_like<ElementBlockScale>(tCsSFB(_, _, _, _0{}));

    PipelineState smem_pipe_release = smem_pipe_read;
    clear(accum);
    if (k_tile_count <= 0) return;

    // Wait for the next stage, take its scales, issue its k-tile's wgmmas into `part` (not waited for).
    auto issue = [&](auto& part, auto& sf) {
      auto token = pipeline.consumer_try_wait(smem_pipe_read);
      pipeline.consumer_wait(smem_pipe_read, token);
      const int stage = smem_pipe_read.index();
      copy(tCsSFA(_, _, _, make_coord(_0{}, stage)), sf);
      copy(tCsSFB(_, _, _, make_coord(_0{}, stage)), sfb);
      tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
      warpgroup_fence_operand(part);
      warpgroup_arrive();
      CUTLASS_PRAGMA_UNROLL
      for (int k_block = 0; k_block < size<2>(tCrA); ++k_block) {
        cute::gemm(tiled_mma, tCrA(_, _, k_block, stage), tCrB(_, _, k_block, stage), part);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      warpgroup_fence_operand(part);
      const ElementBlockScale scale_b = sfb(_0{});
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(filter_zeros(sf)); ++i) filter_zeros(sf)(i) = filter_zeros(sf)(i) * scale_b;
      ++smem_pipe_read;
    };
    // `part`'s wgmmas are complete (the caller waited): free its stage, add part * scale to the running sum.
    auto promote = [&](auto& part, auto const& sf) {
      pipeline.consumer_release(smem_pipe_release);
      ++smem_pipe_release;
      warpgroup_fence_operand(part);
      warpgroup_fence_operand(accum);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(accum); ++i) accum(i) += part(i) * sf(i);
      warpgroup_fence_operand(accum);
    };

    issue(part0, sf0);  // k-tile 0
    int k = 1;
    CUTLASS_PRAGMA_NO_UNROLL
    for (; k + 1 < k_tile_count; k += 2) {
      issue(part1, sf1);  // odd k-tile
      warpgroup_wait<1>();
      promote(part0, sf0);
      issue(part0, sf0);  // even k-tile
      warpgroup_wait<1>();
      promote(part1, sf1);
    }
    if (k < k_tile_count) {  // the last k-tile is odd
      issue(part1, sf1);
      warpgroup_wait<1>();
      promote(part0, sf0);
      warpgroup_wait<0>();
      promote(part1, sf1);
    } else {
      warpgroup_wait<0>();
      promote(part0, sf0);
    }
  }

  // mma released every stage it read.
  CUTLASS_DEVICE void mma_tail(MainloopPipeline, PipelineState, int) {}
};

}  // namespace cg_blockwise
