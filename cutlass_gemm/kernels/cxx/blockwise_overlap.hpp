// cutlass_gemm: the promotion mainloops of the blockwise family, derived from CUTLASS's SM90 FP8 blockwise collective
// and inlined by kernels/emit_blockwise.py into each kernel whose mainloop is "overlap" or "atom".
//
// CUTLASS's collective (MainloopSm90TmaGmmaWarpSpecializedBlockwiseFP8) issues a k-tile's wgmmas into a temporary
// accumulator, waits for them (warpgroup_wait<0>), then multiplies the temporary by the two block scales and adds
// it to the running sum: the tensor cores idle while the FFMAs run (64 per thread per 128-deep k-tile at a 128 x 128
// cooperative tile). Two loops here change when that happens; each is written once and takes a promotion policy
// (what a k-tile's temporary adds to the running sum: Fp8Promotion below, Int8Promotion in blockwise_int8.hpp).
// - OverlapPromotion (warpgroups of one 64-row atom): two temporaries alternate: k-tile k's wgmmas are
//   issued into one before k-tile k-1's result, in the other, is waited for (warpgroup_wait<1>) and promoted, so
//   the FFMAs of k-1 run while the tensor cores work on k. Cost: one more accumulator set (64 registers per thread
//   at 128 x 128 cooperative or 64 x 128 pingpong), and each smem stage stays held one k-tile longer. Measured
//   (H100, fp8, tools/results/h100-2026-11-27/session24/call1-2): 3-7% less time at the large shapes, 9-11% for the
//   64 x 128 pingpong tile at 256-1024 rows.
// - AtomPromotion (warpgroups of two atoms: the 256 x 128 cooperative tile, the per-token fp8 kernel's):
//   one atom-sized temporary, promoted atom by atom (below). Measured (fp8, session25/call1-2): 4096 x 7168 x 2048
//   101.5-102.0 us against 106.7-106.8 for the 128 x 128 overlapped tile, 8192^3 915.7-999.4 against 1010-1041.
// Everything else (TMA loads, scale gathers, pipeline, shared storage, params) is the base collective's; the fp8
// policy gives the bits of CUTLASS's mainloop (the same wgmmas and the same FFMA per element and k-tile).
//
// A promotion policy P = Promotion<Base> gives
//   Temp                    the element type of the wgmma temporaries;
//   IssueMma                the tiled MMA that issues the wgmmas into them;
//   kReleaseBeforePromote   whether a stage is free once its wgmmas are done (every scale the promotion needs is in
//                           registers) or only after its promotion (the promotion reads the stage's weight scales);
//   load(sfa, sfb, sf, sfb_r)  the stage's scales (smem views) into registers before the promotion: sf per element;
//   fold(sf, sfb_r)         work on them that may wait until the wgmmas are issued;
//   promote(acc, part, sf, sfb)  acc += what the temporary part adds (sfb: the stage's weight-scale smem view).
#pragma once
#include "cutlass/gemm/collective/collective_builder.hpp"

namespace cg_blockwise {

// The members both mainloops below share with the base collective, and the views of its shared storage they read.
template <class Base>
struct PromotionMainloopBase : Base {
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

  // Every derived mainloop promotes once per k-tile (scale K granularity == tile K == 4 wgmma atoms of K 32).
  static_assert(Base::ScalePromotionInterval == 4, "promotion mainloops: one scale block per k-tile");

  // (tCsSFA, tCsSFB, tCrA, tCrB): the thread's partitions of the scales, seen as
  // (BLK_M, BLK_N, (BLK_K, PIPE)) tensors broadcast along the other mode (the base's views), and of A and B.
  CUTLASS_DEVICE static auto views(TensorStorage& shared_tensors, int thread_idx) {
    using namespace cute;
    Tensor sA = make_tensor(make_smem_ptr(shared_tensors.smem_A.data()), SmemLayoutA{});  // (BLK_M,BLK_K,PIPE)
    Tensor sB = make_tensor(make_smem_ptr(shared_tensors.smem_B.data()), SmemLayoutB{});  // (BLK_N,BLK_K,PIPE)
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
    Tensor tCrB = thread_mma.make_fragment_B(thread_mma.partition_B(sB));  // (MMA,MMA_N,MMA_K,PIPE)
    return cute::make_tuple(tCsSFA, tCsSFB, tCrA, tCrB);
  }

  // Every stage is released inside mma.
  CUTLASS_DEVICE void mma_tail(MainloopPipeline, PipelineState, int) {}
};

// The fp8 policy: per-row activation scales (several per tile along M) and one 128-wide weight block per tile N,
// folded into the per-row scales once per k-tile; the temporaries are float and both scales sit in registers.
template <class Base>
struct Fp8Promotion {
  static_assert(Base::ScaleMsPerTile > 1 && Base::ScaleNsPerTile == 1,
                "fp8 promotion mainloops: per-row scale_a and one 128-wide weight block per tile N");
  using Temp = float;
  using IssueMma = typename Base::TiledMma;
  static constexpr bool kReleaseBeforePromote = true;

  template <class SFAs, class SFBs, class SF, class SFBr>
  CUTLASS_DEVICE static void load(SFAs const& sfa, SFBs const& sfb, SF& sf, SFBr& sfb_r) {
    cute::copy(sfa, sf);
    cute::copy(sfb, sfb_r);
  }
  template <class SF, class SFBr>
  CUTLASS_DEVICE static void fold(SF& sf, SFBr const& sfb_r) {
    using namespace cute;
    const auto scale_b = sfb_r(_0{});
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < size(filter_zeros(sf)); ++i) filter_zeros(sf)(i) = filter_zeros(sf)(i) * scale_b;
  }
  template <class Acc, class Part, class SF, class SFBs>
  CUTLASS_DEVICE static void promote(Acc& acc, Part const& part, SF const& sf, SFBs const& /*sfb*/) {
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < cute::size(acc); ++i) acc(i) += part(i) * sf(i);
  }
};

// The overlapped k-tile loop (warpgroups of one 64-row atom), run by PromotionMainloop below.
template <class Common, class P>
struct OverlapLoop {
  template <class Pipeline, class State, class FrgTensorC, class SFAs, class SFBs, class As, class Bs>
  CUTLASS_DEVICE static void iterate(Pipeline pipeline, State smem_pipe_read, FrgTensorC& accum, int k_tile_count,
                                 SFAs& tCsSFA, SFBs& tCsSFB, As& tCrA, Bs& tCrB) {
    using namespace cute;
    using ElementBlockScale = typename Common::ElementBlockScale;
    typename P::IssueMma tiled_mma;

    // Two wgmma targets and their k-tiles' per-element scales, used alternately.
    Tensor part0 = make_tensor_like<typename P::Temp>(accum);
    Tensor part1 = make_tensor_like<typename P::Temp>(accum);
    Tensor sf0 = make_tensor_like<ElementBlockScale>(tCsSFA(_, _, _, _0{}));
    Tensor sf1 = make_tensor_like<ElementBlockScale>(tCsSFA(_, _, _, _0{}));
    Tensor sfb = make_tensor_like<ElementBlockScale>(tCsSFB(_, _, _, _0{}));

    State smem_pipe_release = smem_pipe_read;
    clear(accum);
    if (k_tile_count <= 0) return;

    // Wait for the next stage, take its scales, issue its k-tile's wgmmas into `part` (not waited for).
    auto issue = [&](auto& part, auto& sf) {
      auto token = pipeline.consumer_try_wait(smem_pipe_read);
      pipeline.consumer_wait(smem_pipe_read, token);
      const int stage = smem_pipe_read.index();
      P::load(tCsSFA(_, _, _, make_coord(_0{}, stage)), tCsSFB(_, _, _, make_coord(_0{}, stage)), sf, sfb);
      tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;  // the k-tile's first wgmma overwrites the temporary
      warpgroup_fence_operand(part);
      warpgroup_arrive();
      CUTLASS_PRAGMA_UNROLL
      for (int k_block = 0; k_block < size<2>(tCrA); ++k_block) {
        cute::gemm(tiled_mma, tCrA(_, _, k_block, stage), tCrB(_, _, k_block, stage), part);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      warpgroup_fence_operand(part);
      P::fold(sf, sfb);
      ++smem_pipe_read;
    };
    // `part`'s wgmmas are complete (the caller waited): add it to the running sum, free its stage.
    auto promote = [&](auto& part, auto const& sf) {
      Tensor sfb_s = tCsSFB(_, _, _, make_coord(_0{}, smem_pipe_release.index()));
      if constexpr (P::kReleaseBeforePromote) {
        pipeline.consumer_release(smem_pipe_release);
        ++smem_pipe_release;
      }
      warpgroup_fence_operand(part);
      warpgroup_fence_operand(accum);
      P::promote(accum, part, sf, sfb_s);
      warpgroup_fence_operand(accum);
      if constexpr (!P::kReleaseBeforePromote) {
        pipeline.consumer_release(smem_pipe_release);
        ++smem_pipe_release;
      }
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
};

// For tiles whose warpgroup holds two 64-row wgmma atoms of the 128-row running sum (256 x 128 cooperative):
// two full temporaries would need 256 registers per thread (ptxas spills), so one temporary of one atom
// (64 registers) serves both atoms in turn: atom 0's wgmmas, wait, promote, atom 1's, wait, promote. Within a
// warpgroup the tensor cores idle during each promotion; the other warpgroup's wgmmas can fill that time. Making
// the two warpgroups issue their atom batches strictly in turn (two named barriers), so that one would promote
// while the other's batch runs, was slower (fp8 8192^3: 1006.8 / 1065.2 us against 915.7 / 929.9; session25/call2).
template <class Common, class P>
struct AtomLoop {
  template <class Pipeline, class State, class FrgTensorC, class SFAs, class SFBs, class As, class Bs>
  CUTLASS_DEVICE static void iterate(Pipeline pipeline, State smem_pipe_read, FrgTensorC& accum, int k_tile_count,
                                 SFAs& tCsSFA, SFBs& tCsSFB, As& tCrA, Bs& tCrB) {
    using namespace cute;
    using ElementBlockScale = typename Common::ElementBlockScale;
    typename P::IssueMma tiled_mma;
    constexpr int kAtomsM = decltype(size<1>(accum))::value;  // (MMA,MMA_M,MMA_N)
    static_assert(kAtomsM >= 2, "per-atom promotion: a warpgroup holding one atom has no use for it");

    // One atom's wgmma target, viewed (MMA,1,MMA_N) for cute::gemm's (V,M) x (V,N) => (V,M,N) dispatch.
    Tensor part2 = make_tensor_like<typename P::Temp>(accum(_, 0, _));                          // (MMA,MMA_N)
    Tensor part = make_tensor(part2.data(), make_layout(layout<0>(part2), Layout<_1, _0>{}, layout<1>(part2)));
    Tensor sf = make_tensor_like<ElementBlockScale>(tCsSFA(_, _, _, _0{}));  // this k-tile's per-element scales
    Tensor sfb = make_tensor_like<ElementBlockScale>(tCsSFB(_, _, _, _0{}));

    clear(accum);
    if (k_tile_count <= 0) return;
    auto token = pipeline.consumer_try_wait(smem_pipe_read);
    CUTLASS_PRAGMA_NO_UNROLL
    for (; k_tile_count > 0; --k_tile_count) {
      pipeline.consumer_wait(smem_pipe_read, token);
      const int stage = smem_pipe_read.index();
      CUTLASS_PRAGMA_UNROLL
      for (int m = 0; m < kAtomsM; ++m) {
        Tensor a = tCrA(_, m, _, stage);  // (MMA,MMA_K)
        tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;  // the atom's first wgmma overwrites the temporary
        warpgroup_fence_operand(part2);
        warpgroup_arrive();
        CUTLASS_PRAGMA_UNROLL
        for (int k_block = 0; k_block < size<2>(tCrA); ++k_block) {
          Tensor a_k = a(_, k_block);
          cute::gemm(tiled_mma, make_tensor(a_k.data(), make_layout(a_k.layout(), Layout<_1, _0>{})),
                     tCrB(_, _, k_block, stage), part);
          tiled_mma.accumulate_ = GMMA::ScaleOut::One;
        }
        warpgroup_commit_batch();
        if (m == 0) {  // the scales are read while the first atom's wgmmas run
          P::load(tCsSFA(_, _, _, make_coord(_0{}, stage)), tCsSFB(_, _, _, make_coord(_0{}, stage)), sf, sfb);
          P::fold(sf, sfb);
        }
        if (m == kAtomsM - 1 && k_tile_count > 1) {
          // Look at the next stage's barrier while these wgmmas run (test_wait: never suspends the thread), so that
          // its wait costs nothing when the stage is there: 2-3% at the large shapes (fp8, session25/call7: 4096 x
          // 7168 x 2048 103.82 -> 101.37 us, 8192^3 857.0 -> 836.1; try_wait there the same, call9). In the
          // overlapped loop above the same poll lost 1-8% (call8, call9) and is not made.
          State next = smem_pipe_read;
          ++next;
          token = pipeline.consumer_test_wait(next);
        }
        warpgroup_wait<0>();
        warpgroup_fence_operand(part2);
        if constexpr (P::kReleaseBeforePromote) {
          if (m == kAtomsM - 1) pipeline.consumer_release(smem_pipe_read);  // every wgmma reading the stage is done
        }
        Tensor acc_m = accum(_, m, _);
        warpgroup_fence_operand(accum);
        P::promote(acc_m, part2, sf(_, m, _), tCsSFB(_, m, _, make_coord(_0{}, stage)));
        warpgroup_fence_operand(accum);
      }
      if constexpr (!P::kReleaseBeforePromote) {
        pipeline.consumer_release(smem_pipe_read);  // every promotion reading the stage's weight scales is done
      }
      ++smem_pipe_read;
    }
  }
};

// A promotion mainloop: the base collective with its mma() replaced by `Loop` (OverlapLoop, AtomLoop) under the
// promotion policy `Promotion` (Fp8Promotion, Int8Promotion).
template <class Base, template <class> class Promotion, template <class, class> class Loop>
struct PromotionMainloop : PromotionMainloopBase<Base> {
  using Common = PromotionMainloopBase<Base>;
  using typename Common::MainloopPipeline;
  using typename Common::PipelineState;
  using typename Common::TensorStorage;
  using typename Common::Params;

  template <class FrgTensorC>
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline, PipelineState smem_pipe_read, FrgTensorC& accum, int k_tile_count,
                          int thread_idx, TensorStorage& shared_tensors, Params const& /*mainloop_params*/) {
    static_assert(cute::is_rmem<FrgTensorC>::value, "C tensor must be rmem resident.");
    auto v = Common::views(shared_tensors, thread_idx);
    Loop<Common, Promotion<Base>>::iterate(pipeline, smem_pipe_read, accum, k_tile_count, cute::get<0>(v),
                                           cute::get<1>(v), cute::get<2>(v), cute::get<3>(v));
  }
};

template <class Base, template <class> class Promotion>
using OverlapPromotion = PromotionMainloop<Base, Promotion, OverlapLoop>;
template <class Base, template <class> class Promotion>
using AtomPromotion = PromotionMainloop<Base, Promotion, AtomLoop>;

// The fp8 family's two mainloops.
template <class Base>
using OverlapPromotionMainloop = OverlapPromotion<Base, Fp8Promotion>;
template <class Base>
using AtomPromotionMainloop = AtomPromotion<Base, Fp8Promotion>;

}  // namespace cg_blockwise
