// How many bytes of dynamic shared memory keep a launch's CTAs spread evenly over the SMs (wo_launch.cuh): plain
// integer arithmetic, no CUDA headers, so the CPU tests check it (tests/wo_emu/emu.cpp, emu_spread_smem).
#pragma once
#include <algorithm>
#include <cstdint>

namespace cg_wo {

// A launch of `ctas` CTAs on `sms` SMs, `per_sm` of whose CTAs fit on an SM as the kernel stands: the dynamic shared
// memory per CTA (at least `smem`, what the kernel uses) that lets at most ceil(ctas / sms) of them share an SM, given
// the SM's shared memory `smem_sm`, the driver's reserve per CTA `reserved` and the kernel's static shared memory
// `static_smem`; `smem` itself where the kernel already holds no more per SM (or the SM's size is unknown).
inline int wo_spread_smem_bytes(int64_t ctas, int sms, int per_sm, int smem_sm, int reserved, int static_smem, int smem) {
  if (sms <= 0 || smem_sm <= 0 || ctas <= 0) return smem;
  const int64_t want = (ctas + sms - 1) / sms;
  if (want >= per_sm) return smem;
  const int64_t per_cta = smem_sm / (want + 1) + 128;  // (want + 1) of these exceed the SM's shared memory
  const int64_t dyn = (per_cta - reserved - static_smem + 127) / 128 * 128;
  return static_cast<int>(std::max<int64_t>(smem, dyn));
}

}  // namespace cg_wo
