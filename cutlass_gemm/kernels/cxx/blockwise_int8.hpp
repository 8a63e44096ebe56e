// cutlass_gemm: the per-block int8 W8A8 promotion, inlined by kernels/emit_blockwise.py after blockwise_overlap.hpp
// into each kernel of the blockwise family whose operands are int8 ("s8").
//
//   out[m, n] = sum_kb scale_a[m, kb] * scale_b[n, kb] * (sum_{k in block kb} a[m, k] * b[n, k])
//
// with one scale per token and one per output channel for each 128-wide K block. CUTLASS's FP8 blockwise collective
// gives the TMA loads, the scale gathers and the pipeline; the loops of blockwise_overlap.hpp replace its mma().
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
// The mainloops are the two loops of blockwise_overlap.hpp with the int8 promotion policy below:
// - Int8PromotionMainloop (warpgroups of one 64-row atom): OverlapPromotion, two int32 temporaries alternate so that
//   k-tile k-1's promotion runs while k-tile k's wgmmas execute;
// - Int8AtomPromotionMainloop (the 256 x 128 cooperative tile, two atoms per warpgroup): AtomPromotion, one int32
//   temporary of one atom (64 registers; the running sum takes 128), promoted atom by atom; ptxas: 168 registers.
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

// The int8 policy for the loops of blockwise_overlap.hpp: int32 temporaries issued through the plain int8 tiled MMA,
// the per-row activation scales taken into registers with the stage, the per-channel weight scales read from shared
// memory inside the promotion (keeping 32 more registers per thread for them would spill), so a stage is free only
// after its promotion. Per element and k-tile: I2FP, FMUL, FFMA (see above).
template <class Base>
struct Int8Promotion {
  using TileShape = typename Base::TileShape;
  static_assert(cute::is_same_v<typename Base::ElementBlockScale, float>, "int8 promotion: float scales and running sum");
  static_assert(Base::ScaleMsPerTile == cute::size<0>(TileShape{}) && Base::ScaleNsPerTile == cute::size<1>(TileShape{}),
                "int8 promotion: one scale per row (token) and one per column (channel) for each K block");
  using Temp = int32_t;
  using IssueMma = typename Int32TiledMma<typename Base::TiledMma>::type;
  static constexpr bool kReleaseBeforePromote = false;

  template <class SFAs, class SFBs, class SF, class SFBr>
  CUTLASS_DEVICE static void load(SFAs const& sfa, SFBs const& /*sfb*/, SF& sf, SFBr& /*sfb_r*/) {
    cute::copy(sfa, sf);
  }
  template <class SF, class SFBr>
  CUTLASS_DEVICE static void fold(SF&, SFBr const&) {}
  template <class Acc, class Part, class SF, class SFBs>
  CUTLASS_DEVICE static void promote(Acc& acc, Part const& part, SF const& sf, SFBs const& sfb) {
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < cute::size(acc); ++i) acc(i) += __int2float_rn(part(i)) * (sf(i) * sfb(i));
  }
};

// The int8 family's two mainloops.
template <class Base>
using Int8PromotionMainloop = OverlapPromotion<Base, Int8Promotion>;
template <class Base>
using Int8AtomPromotionMainloop = AtomPromotion<Base, Int8Promotion>;

}  // namespace cg_blockwise
