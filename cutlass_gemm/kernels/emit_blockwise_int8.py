"""Emit one SM90 per-block int8 W8A8 GEMM (BlockwiseConfig with in_dtype "s8") as a self-contained .cu.

    out[m, n] = act( sum_kb  scale_a[m, kb] * scale_b[n, kb] * (sum_{k in block kb} a[m, k] * b[n, k]) + bias[n] )

with a, b int8 (K contiguous), one activation scale per token and one weight scale per output channel per
128-deep K block (the layout of `ops.blockwise_int8`): CUTLASS's Sm90BlockwiseScaleConfig<1, 1, 128>.

Why not CUTLASS's collective builder: the FP8 blockwise builder refuses int8 (sm90_gmma_builder.inl:1108,
`static_assert(IsFP8Input, ...)`), and its mainloop could not run int8 anyway: it takes the accumulator type
of the MMA (`ElementAccumulator = TiledMma::ValTypeC; ElementBlockScale = ElementAccumulator`,
sm90_mma_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp:103-104), so an int32 wgmma would make the
scales and the running sum int32, and its promotion (fp8_accumulation.hpp, `accum_(i) += accum_temp_(i) *
scale`) has no int -> float conversion. What this file emits instead:

- the collective's TiledMma is the int8 wgmma under MMA traits that declare float C/D, so the kernel layer,
  the epilogue and the scale storage see a float accumulator (the running sum); the wgmma themselves are
  issued through the plain int32 TiledMma into int32 fragments of the same layout;
- the FP8 blockwise collective's producer side unchanged (TMA of the int8 tiles, cp.async of the float scales:
  byte copies, type-agnostic), reached by deriving from that collective;
- our own consumer `mma`: per 128-deep K block, 4 wgmma into the int32 fragment (zeroed by the first), then
  running += float(block sum) * scale_a[m] * scale_b[n]. The int32 -> float conversion is exact and full rate:
  |block sum| <= 128 * 128 * 128 = 2^21 < 2^22, so adding the bits of 1.5 * 2^23 and subtracting it as a
  float is exact (I2F is a conversion with a fraction of the FMA throughput, on the critical path).

The C ABI is the blockwise family's (emit_blockwise.py): cg_blockwise_launch / cg_blockwise_workspace_size,
with scale_a (m, k / 128) and scale_b (n, k / 128) float32 contiguous row-major.
"""
from __future__ import annotations

from .blockwise import BLOCK, BlockwiseConfig

#: The collective the int8 mainloop derives from (collective_builder.hpp includes it too; named for clarity).
INCLUDES_INT8 = '#include "cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized_fp8_blockwise_scaling.hpp"\n'

_TRAITS = """
namespace cg_bi8 {
// Tag: MMA traits of the int8 wgmma with float C/D, the collective's `TiledMma`: what the kernel layer sizes its
// accumulator (the float running sum) and the epilogue by. No wgmma is issued through it: CgInt8BlockwiseMma
// issues them through the plain int32 TiledMma (int32 fragments, so no float <-> int register moves sit
// between an in-flight wgmma and its registers, which would make ptxas serialize the wgmma).
struct F32Regs {};
}  // namespace cg_bi8

namespace cute {
template <class Op>
struct MMA_Traits<Op, cg_bi8::F32Regs> : MMA_Traits<Op> {
  using ValTypeD = float;
  using ValTypeC = float;
};
}  // namespace cute
"""

_MAINLOOP = """
namespace cg_bi8 {
using namespace cute;

// A block sum (|v| < 2^22) -> the exact float, with an integer add and a float add.
CUTLASS_DEVICE float exact_block_sum(int32_t v) {
  return __int_as_float(v + 0x4B400000) - 12582912.0f;
}

// The FP8 blockwise collective with our consumer: the producer (TMA + cp.async scale loads), shared storage and
// params are the base's; mma() accumulates each K block in int32 and promotes it in float. kOverlap: two int32
// fragments, so the promotion of block t runs while the tensor cores compute block t + 1 (without it they idle
// during each promotion).
template <class Base, class TiledMmaS32, bool kOverlap>
struct CgInt8BlockwiseMma : Base {
  using typename Base::MainloopPipeline;
  using typename Base::PipelineState;
  using typename Base::TensorStorage;
  using typename Base::Params;
  using TiledMma = TiledMmaS32;  // within mma(): the int32 wgmma (same shapes and layouts as Base::TiledMma)
  using typename Base::TileShape;
  using typename Base::SmemLayoutA;
  using typename Base::SmemLayoutB;
  using typename Base::SmemLayoutSFA;
  using typename Base::SmemLayoutSFB;
  static_assert(Base::ScaleMsPerTile == size<0>(TileShape{}) && Base::ScaleNsPerTile == size<1>(TileShape{}),
                "per-token x per-channel scales (granularity 1 along M and N)");
  static_assert(Base::ScalePromotionInterval == 4, "one 128-deep scale block per k-tile");

  template <class FrgTensorC>
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline, PipelineState smem_pipe_read, FrgTensorC& accum,
                          int k_tile_count, int thread_idx, TensorStorage& shared_tensors, Params const&) {
    Tensor sA = make_tensor(make_smem_ptr(shared_tensors.smem_A.data()), SmemLayoutA{});  // (BLK_M, BLK_K, PIPE)
    Tensor sB = make_tensor(make_smem_ptr(shared_tensors.smem_B.data()), SmemLayoutB{});  // (BLK_N, BLK_K, PIPE)
    // The scale columns seen as (BLK_M, BLK_N, (SF_K, PIPE)) tensors: the token scale broadcast along N and the
    // channel scale along M (stride 0), so partition_C gives each thread the two scales of each accumulator.
    auto la = SmemLayoutSFA{};
    auto lb = SmemLayoutSFB{};
    Tensor sSFA = make_tensor(make_smem_ptr(shared_tensors.smem_SFA.data()), make_layout(
        make_shape(get<0>(shape(la)), get<1>(TileShape{}), make_shape(get<1>(shape(la)), get<2>(shape(la)))),
        make_stride(get<0>(stride(la)), _0{}, make_stride(get<1>(stride(la)), get<2>(stride(la))))));
    Tensor sSFB = make_tensor(make_smem_ptr(shared_tensors.smem_SFB.data()), make_layout(
        make_shape(get<0>(TileShape{}), get<0>(shape(lb)), make_shape(get<1>(shape(lb)), get<2>(shape(lb)))),
        make_stride(_0{}, get<0>(stride(lb)), make_stride(get<1>(stride(lb)), get<2>(stride(lb))))));

    TiledMma tiled_mma;
    constexpr int kThreadsPerWg = cutlass::NumThreadsPerWarpGroup;
    constexpr int kWarpGroups = size(TiledMma{}) / kThreadsPerWg;
    int wg = __shfl_sync(0xFFFFFFFF, thread_idx / kThreadsPerWg, 0);
    auto wg_mma = tiled_mma.get_slice(make_layout(Int<kWarpGroups>{}, Int<kThreadsPerWg>{})(wg));
    Tensor tCrA = wg_mma.make_fragment_A(wg_mma.partition_A(sA));  // (MMA, MMA_M, MMA_K, PIPE) descriptors
    Tensor tCrB = wg_mma.make_fragment_B(wg_mma.partition_B(sB));
    auto thr_mma = tiled_mma.get_slice(thread_idx);
    Tensor tCsSFA = thr_mma.partition_C(sSFA);  // (MMA, MMA_M, MMA_N, (SF_K, PIPE))
    Tensor tCsSFB = thr_mma.partition_C(sSFB);
    CUTE_STATIC_ASSERT_V(size(tCsSFA(_, _, _, _0{})) == size(accum));
    CUTE_STATIC_ASSERT_V(size(tCsSFB(_, _, _, _0{})) == size(accum));
    static_assert(is_same_v<decltype(partition_fragment_C(tiled_mma, take<0, 2>(TileShape{})).layout()),
                            decltype(accum.layout())>, "int32 block sums and float accumulators must align");
    clear(accum);
    if (k_tile_count <= 0) return;
    if constexpr (kOverlap) {
      overlapped(pipeline, smem_pipe_read, accum, k_tile_count, tiled_mma, tCrA, tCrB, tCsSFA, tCsSFB);
      return;
    }
    Tensor tCrSFA = make_tensor_like<float>(tCsSFA(_, _, _, _0{}));
    Tensor tCrSFB = make_tensor_like<float>(tCsSFB(_, _, _, _0{}));
    Tensor block = partition_fragment_C(tiled_mma, take<0, 2>(TileShape{}));  // int32 block sums
    PipelineState smem_pipe_release = smem_pipe_read;
    CUTLASS_PRAGMA_NO_UNROLL
    for (int t = 0; t < k_tile_count; ++t) {
      auto token = pipeline.consumer_try_wait(smem_pipe_read);
      pipeline.consumer_wait(smem_pipe_read, token);
      int stage = smem_pipe_read.index();

      warpgroup_fence_operand(block);
      warpgroup_arrive();
      tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;  // each K block starts from 0
      CUTLASS_PRAGMA_UNROLL
      for (int kb = 0; kb < size<2>(tCrA); ++kb) {
        cute::gemm(tiled_mma, tCrA(_, _, kb, stage), tCrB(_, _, kb, stage), block);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      // The scale loads overlap the MMAs.
      copy(tCsSFA(_, _, _, make_coord(_0{}, stage)), tCrSFA);
      copy(tCsSFB(_, _, _, make_coord(_0{}, stage)), tCrSFB);
      warpgroup_wait<0>();
      warpgroup_fence_operand(block);
      // The base's protocol: release the previous stage here, the last one in mma_tail.
      if (t > 0) {
        pipeline.consumer_release(smem_pipe_release);
        ++smem_pipe_release;
      }
      ++smem_pipe_read;

      warpgroup_fence_operand(accum);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(accum); ++i) {
        accum(i) = fmaf(exact_block_sum(block(i)), tCrSFA(i) * tCrSFB(i), accum(i));
      }
      warpgroup_fence_operand(accum);
    }
  }

  // kOverlap: every stage is released in mma (after its promotion read the scales); nothing is left here.
  CUTLASS_DEVICE void mma_tail(MainloopPipeline pipeline, PipelineState smem_pipe_release, int k_tile_count) {
    if constexpr (!kOverlap) {
      Base::mma_tail(pipeline, smem_pipe_release, k_tile_count);
    }
  }

 private:
  template <class FrgTensorC, class FrgA, class FrgB, class SFA, class SFB>
  CUTLASS_DEVICE void overlapped(MainloopPipeline& pipeline, PipelineState read, FrgTensorC& accum,
                                 int k_tile_count, TiledMma& tiled_mma, FrgA const& tCrA, FrgB const& tCrB,
                                 SFA const& tCsSFA, SFB const& tCsSFB) {
    // Wait for a stage and start its 4 wgmma into `frag` (zeroed by the first).
    auto issue = [&](auto& frag, PipelineState state) {
      pipeline.consumer_wait(state, pipeline.consumer_try_wait(state));
      int stage = state.index();
      warpgroup_fence_operand(frag);
      warpgroup_arrive();
      tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
      CUTLASS_PRAGMA_UNROLL
      for (int kb = 0; kb < size<2>(tCrA); ++kb) {
        cute::gemm(tiled_mma, tCrA(_, _, kb, stage), tCrB(_, _, kb, stage), frag);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      warpgroup_fence_operand(frag);
    };
    // Add a finished block (scales read from shared memory as needed: no second set of scale registers), then
    // hand its stage back to the producer.
    auto promote = [&](auto& frag, PipelineState& release) {
      Tensor sfa = tCsSFA(_, _, _, make_coord(_0{}, release.index()));
      Tensor sfb = tCsSFB(_, _, _, make_coord(_0{}, release.index()));
      warpgroup_fence_operand(frag);
      warpgroup_fence_operand(accum);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(accum); ++i) {
        accum(i) = fmaf(exact_block_sum(frag(i)), sfa(i) * sfb(i), accum(i));
      }
      warpgroup_fence_operand(accum);
      pipeline.consumer_release(release);
      ++release;
    };
    Tensor blk0 = partition_fragment_C(tiled_mma, take<0, 2>(TileShape{}));  // int32 sums of even k-tiles
    Tensor blk1 = partition_fragment_C(tiled_mma, take<0, 2>(TileShape{}));  // and of odd ones
    PipelineState release = read;
    // One shape for every path, so that ptxas sees the same wgmma in flight wherever control meets (at the loop
    // head and exit: blk0's; after the tail: none); otherwise it serializes every wgmma of the kernel.
    issue(blk0, read);
    ++read;
    int t = 0;
    CUTLASS_PRAGMA_NO_UNROLL
    for (; t + 2 < k_tile_count; t += 2) {  // blk0 holds tile t in flight and tile t + 2 exists
      issue(blk1, read);
      ++read;
      warpgroup_wait<1>();
      promote(blk0, release);
      issue(blk0, read);
      ++read;
      warpgroup_wait<1>();
      promote(blk1, release);
    }
    if (t + 1 < k_tile_count) {  // tiles t and t + 1 remain
      issue(blk1, read);
      warpgroup_wait<1>();
      promote(blk0, release);
      warpgroup_wait<0>();
      promote(blk1, release);
    } else {  // tile t alone
      warpgroup_wait<0>();
      promote(blk0, release);
    }
  }
};
}  // namespace cg_bi8
"""


def kernel_types_int8(cfg: BlockwiseConfig, kernel_schedule: str, epilogue_schedule: str, scheduler: str,
                      out_type: str, fusion: str) -> str:
    """The C++ type block of an int8 config (the names the shared launcher code uses: Gemm, GemmKernel,
    ElementAB, ElementOut, ScaleConfig, LayoutSFA, LayoutSFB)."""
    tile = ", ".join(f"_{v}" for v in cfg.tile)
    cluster = ", ".join(f"_{v}" for v in cfg.cluster)
    # An explicit stage count is used as is; 0 sizes the pipeline as the builder would (what shared memory
    # the epilogue leaves, the scale columns included).
    stages = str(cfg.stages) if cfg.stages else (
        "cutlass::gemm::collective::detail::compute_stage_count_with_blockwise_scale<\n"
        "    cutlass::gemm::collective::detail::sm90_smem_capacity_bytes, int8_t, int8_t, float, TileShape,\n"
        "    size<0>(TileShape{}), size<1>(TileShape{})>(cutlass::gemm::collective::StageCountAutoCarveout<\n"
        "        static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>{})")
    cooperative = cfg.schedule == "cooperative"
    return f"""{_TRAITS}{_MAINLOOP}
namespace {{
using namespace cute;
using ElementAB = int8_t;
using ElementOut = {out_type};
using LayoutA = cutlass::layout::RowMajor;     // a (m, k), k contiguous
using LayoutB = cutlass::layout::ColumnMajor;  // b (k, n) column-major = the (n, k) weight, k contiguous
using LayoutD = cutlass::layout::RowMajor;     // out (m, n)
constexpr int kAlignOut = 128 / cutlass::sizeof_bits<ElementOut>::value;
using TileShape = Shape<{tile}>;
using ClusterShape = Shape<{cluster}>;

// One scale per token and one per output channel per {BLOCK} K, both (rows, k / {BLOCK}) row-major (K major).
using ScaleConfig = cutlass::detail::Sm90BlockwiseScaleConfig<1, 1, {BLOCK}, cute::GMMA::Major::K,
                                                              cute::GMMA::Major::K>;
using LayoutSFA = decltype(ScaleConfig::deduce_layoutSFA());
using LayoutSFB = decltype(ScaleConfig::deduce_layoutSFB());

// out = act(acc + bias[n]) in float (alpha = 1: the scales were applied in the mainloop); no C operand.
using FusionOp = {fusion};
using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float,
    void, LayoutD, kAlignOut, ElementOut, LayoutD, kAlignOut,
    {epilogue_schedule}, FusionOp>::CollectiveOp;

// The mainloop types the FP8 blockwise builder would derive, for int8 (it refuses int8; see the file header).
using KernelSchedule = {kernel_schedule};
using MmaOp = decltype(cute::GMMA::ss_op_selector<int8_t, int8_t, int32_t, TileShape, cute::GMMA::Major::K,
                                                  cute::GMMA::Major::K>());
using AtomLayout = Layout<Shape<_{2 if cooperative else 1}, _1, _1>>;
using TiledMma = decltype(cute::make_tiled_mma(cute::MMA_Atom<cute::MMA_Traits<MmaOp, cg_bi8::F32Regs>>{{}},
                                               AtomLayout{{}}));
using TiledMmaS32 = decltype(cute::make_tiled_mma(MmaOp{{}}, AtomLayout{{}}));
using GmemTiledCopyA = decltype(cutlass::gemm::collective::detail::sm90_cluster_shape_to_tma_atom(shape<1>(ClusterShape{{}})));
using GmemTiledCopyB = decltype(cutlass::gemm::collective::detail::sm90_cluster_shape_to_tma_atom(shape<0>(ClusterShape{{}})));
using SmemLayoutAtomA = decltype(cutlass::gemm::collective::detail::ss_smem_selector<
    cute::GMMA::Major::K, int8_t, decltype(get<0>(TileShape{{}})), decltype(get<2>(TileShape{{}}))>());
using SmemLayoutAtomB = decltype(cutlass::gemm::collective::detail::ss_smem_selector<
    cute::GMMA::Major::K, int8_t, decltype(get<1>(TileShape{{}})), decltype(get<2>(TileShape{{}}))>());
constexpr int kStages = {stages};
using BaseMainloop = cutlass::gemm::collective::CollectiveMma<
    cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedBlockwiseFP8<kStages, ClusterShape, KernelSchedule>,
    TileShape,
    int8_t, cute::tuple<cutlass::detail::TagToStrideA_t<LayoutA>, LayoutSFA>,
    int8_t, cute::tuple<cutlass::detail::TagToStrideB_t<LayoutB>, LayoutSFB>,
    TiledMma, GmemTiledCopyA, SmemLayoutAtomA, void, cute::identity,
    GmemTiledCopyB, SmemLayoutAtomB, void, cute::identity>;
using CollectiveMainloop = cg_bi8::CgInt8BlockwiseMma<BaseMainloop, TiledMmaS32,
                                                      {"true" if cfg.overlap else "false"}>;
using GemmKernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, CollectiveMainloop,
                                                        CollectiveEpilogue, {scheduler}>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;
}}  // namespace
"""
