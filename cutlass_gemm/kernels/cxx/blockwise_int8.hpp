// cutlass_gemm: the per-block int8 W8A8 mainloop, inlined by kernels/emit_blockwise.py after blockwise_overlap.hpp
// into each kernel of the blockwise family whose operands are int8 ("s8").
//
//   out[m, n] = sum_kb scale_a[m, kb] * scale_b[n, kb] * (sum_{k in block kb} a[m, k] * b[n, k])
//
// with one scale per token and one per output channel for each 128-wide K block. CUTLASS's FP8 blockwise collective
// gives the TMA loads, the scale gathers and the pipeline; this mainloop replaces its mma().
//
// The int32 -> float conversion. int8 wgmmas accumulate in int32: each k-tile's first wgmma starts its temporary at
// zero (ScaleOut::Zero, no register reset) and the block sum s, |s| <= 128 * 128 * 128 = 2^21, is exact as a float.
// On SM86+ the compiler emits I2FP.F32.S32 for the conversion (SM80 code has I2F, a quarter-rate conversion-unit
// instruction; I2FP's rate on the H100: see README, "Per-block int8"). Per element and k-tile: that I2FP, the scale product (FMUL) and its FFMA into the
// running float sum: 3 instructions. The form before (session 28) started each temporary at the bits of 1.5 * 2^23,
// so that one exact FADD recovered s, and paid a register reset per element and k-tile (4 instructions); both
// forms give the same bits (s exact, then the same FMUL and FFMA).
//
// The accumulator types. The collective, the kernel and the epilogue take their accumulator type from the tiled MMA's
// C type: the collective is given S8AsF32Bits below, an int8 wgmma whose C type reads "float", so the running sum, the
// scales and the epilogue are float as in the fp8 kernels. The wgmmas themselves run through the plain int8 tiled MMA
// on int32 temporaries (same partitions, same smem descriptors): issuing them on float-typed registers makes cute recast
// the fragment for the asm, and ptxas then serializes every wgmma (C7514) and spills.
//
// Two mainloops, after the two of blockwise_overlap.hpp:
// - Int8PromotionMainloop (warpgroups of one 64-row atom): as OverlapPromotionMainloop, two temporaries alternate so
//   that k-tile k-1's promotion runs while k-tile k's wgmmas execute; the per-channel weight scales are read from
//   shared memory inside the promotion (keeping 32 more registers per thread for them would spill), so a stage is
//   released after its promotion.
// - Int8AtomPromotionMainloop (the 256 x 128 cooperative tile, two atoms per warpgroup): as AtomPromotionMainloop.
#pragma once
#include "cutlass/gemm/collective/collective_builder.hpp"

namespace cg_blockwise {

// An SM90 int8 wgmma (s32 += s8 * s8) whose accumulator fragment is typed float (see above).
template <class Op>
struct S8AsF32Bits : Op {};

// The tiled MMA of the int8 wgmma itself, from the collective's.
template <class T>
struct Int32TiledMma;
template <class Op, class AtomLayout, class Permutation>
struct Int32TiledMma<cute::TiledMMA<cute::MMA_Atom<S8AsF32Bits<Op>>, AtomLayout, Permutation>> {
  using type = cute::TiledMMA<cute::MMA_Atom<Op>, AtomLayout, Permutation>;
};

}  // namespace cg_blockwise

namespace cute {
template <class Op>
struct MMA_Traits<cg_blockwise::S8AsF32Bits<Op>> : MMA_Traits<Op> {
  using ValTypeD = float;
  using ValTypeC = float;
};
}  // namespace cute

namespace cg_blockwise {

template <class Base>
struct Int8PromotionMainloop : PromotionMainloopBase<Base> {
  using Common = PromotionMainloopBase<Base>;
  using typename Common::MainloopPipeline;
  using typename Common::PipelineState;
  using typename Common::TensorStorage;
  using typename Common::Params;
  using typename Common::ElementBlockScale;
  using typename Common::TileShape;
  static_assert(cute::is_same_v<ElementBlockScale, float>, "int8 promotion: float scales and running sum");
  static_assert(Base::ScaleMsPerTile == cute::size<0>(TileShape{}) && Base::ScaleNsPerTile == cute::size<1>(TileShape{}),
                "int8 promotion: one scale per row (token) and one per column (channel) for each K block");
  template <class FrgTensorC>
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline, PipelineState smem_pipe_read, FrgTensorC& accum, int k_tile_count,
                          int thread_idx, TensorStorage& shared_tensors, Params const& /*mainloop_params*/) {
    using namespace cute;
    static_assert(is_rmem<FrgTensorC>::value, "C tensor must be rmem resident.");
    auto v = Common::views(shared_tensors, thread_idx);
    typename Int32TiledMma<typename Base::TiledMma>::type tiled_mma;
    auto& tCsSFA = get<1>(v);
    auto& tCsSFB = get<2>(v);
    auto& tCrA = get<3>(v);
    auto& tCrB = get<4>(v);

    // Two int32 wgmma targets and their k-tiles' per-row scales, used alternately.
    Tensor part0 = make_tensor_like<int32_t>(accum);
    Tensor part1 = make_tensor_like<int32_t>(accum);
    Tensor sf0 = make_tensor_like<ElementBlockScale>(tCsSFA(_, _, _, _0{}));
    Tensor sf1 = make_tensor_like<ElementBlockScale>(tCsSFA(_, _, _, _0{}));

    PipelineState smem_pipe_release = smem_pipe_read;
    clear(accum);
    if (k_tile_count <= 0) return;

    // Wait for the next stage, take its per-row scales, issue its k-tile's wgmmas into `part` (not waited for).
    auto issue = [&](auto& part, auto& sf) {
      auto token = pipeline.consumer_try_wait(smem_pipe_read);
      pipeline.consumer_wait(smem_pipe_read, token);
      const int stage = smem_pipe_read.index();
      copy(tCsSFA(_, _, _, make_coord(_0{}, stage)), sf);
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
      ++smem_pipe_read;
    };
    // `part`'s wgmmas are complete (the caller waited): add float(part) * scale_a * scale_b to the running sum,
    // the weight scales read from the stage, then free the stage.
    auto promote = [&](auto& part, auto const& sf) {
      const int stage = smem_pipe_release.index();
      Tensor sfb = tCsSFB(_, _, _, make_coord(_0{}, stage));
      warpgroup_fence_operand(part);
      warpgroup_fence_operand(accum);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(accum); ++i) accum(i) += __int2float_rn(part(i)) * (sf(i) * sfb(i));
      warpgroup_fence_operand(accum);
      pipeline.consumer_release(smem_pipe_release);
      ++smem_pipe_release;
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


// For tiles whose warpgroup holds two 64-row wgmma atoms (256 x 128 cooperative), as AtomPromotionMainloop in
// blockwise_overlap.hpp: the running sum (128 registers per thread) leaves room for one int32 temporary of one atom
// (64), not two of the whole warpgroup. Each atom's wgmmas are waited for, then promoted as above (I2FP, FMUL,
// FFMA: the same bits as Int8PromotionMainloop); while one warpgroup promotes, the other's wgmmas keep the tensor
// cores busy. The weight scales are read from shared memory inside each promotion, so the stage is released after
// the last atom's promotion.
template <class Base>
struct Int8AtomPromotionMainloop : PromotionMainloopBase<Base> {
  using Common = PromotionMainloopBase<Base>;
  using typename Common::MainloopPipeline;
  using typename Common::PipelineState;
  using typename Common::TensorStorage;
  using typename Common::Params;
  using typename Common::ElementBlockScale;
  using typename Common::TileShape;
  static_assert(cute::is_same_v<ElementBlockScale, float>, "int8 promotion: float scales and running sum");
  static_assert(Base::ScaleMsPerTile == cute::size<0>(TileShape{}) && Base::ScaleNsPerTile == cute::size<1>(TileShape{}),
                "int8 promotion: one scale per row (token) and one per column (channel) for each K block");
  template <class FrgTensorC>
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline, PipelineState smem_pipe_read, FrgTensorC& accum, int k_tile_count,
                          int thread_idx, TensorStorage& shared_tensors, Params const& /*mainloop_params*/) {
    using namespace cute;
    static_assert(is_rmem<FrgTensorC>::value, "C tensor must be rmem resident.");
    auto v = Common::views(shared_tensors, thread_idx);
    typename Int32TiledMma<typename Base::TiledMma>::type tiled_mma;
    auto& tCsSFA = get<1>(v);
    auto& tCsSFB = get<2>(v);
    auto& tCrA = get<3>(v);
    auto& tCrB = get<4>(v);
    constexpr int kAtomsM = decltype(size<1>(accum))::value;  // (MMA,MMA_M,MMA_N)
    static_assert(kAtomsM >= 2, "per-atom promotion: a warpgroup holding one atom has no use for it");

    // One atom's int32 wgmma target, viewed (MMA,1,MMA_N) for cute::gemm's (V,M) x (V,N) => (V,M,N) dispatch.
    Tensor part2 = make_tensor_like<int32_t>(accum(_, 0, _));  // (MMA,MMA_N)
    Tensor part = make_tensor(part2.data(), make_layout(layout<0>(part2), Layout<_1, _0>{}, layout<1>(part2)));
    Tensor sf = make_tensor_like<ElementBlockScale>(tCsSFA(_, _, _, _0{}));  // this k-tile's per-row scales

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
        if (m == 0) copy(tCsSFA(_, _, _, make_coord(_0{}, stage)), sf);  // while the first atom's wgmmas run
        if (m == kAtomsM - 1 && k_tile_count > 1) {
          // the next stage's barrier looked at while these wgmmas run (as AtomPromotionMainloop)
          PipelineState next = smem_pipe_read;
          ++next;
          token = pipeline.consumer_test_wait(next);
        }
        warpgroup_wait<0>();
        warpgroup_fence_operand(part2);
        Tensor acc_m = accum(_, m, _);
        Tensor sf_m = sf(_, m, _);
        Tensor sfb_m = tCsSFB(_, m, _, make_coord(_0{}, stage));
        warpgroup_fence_operand(accum);
        CUTLASS_PRAGMA_UNROLL
        for (int i = 0; i < size(acc_m); ++i) acc_m(i) += __int2float_rn(part2(i)) * (sf_m(i) * sfb_m(i));
        warpgroup_fence_operand(accum);
      }
      pipeline.consumer_release(smem_pipe_read);  // every promotion reading this stage's weight scales is done
      ++smem_pipe_read;
    }
  }
};

}  // namespace cg_blockwise
