# call 5 (2026-11-23, session 5): probe of the Int8Linear dynamic wall-clock figure (probe.py): extension and
# the three GEMM kernels it needs built here, then the probe.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "ext at ${SECONDS}s" ) &
python3 - <<'PY' > $OUT/kernels.log 2>&1
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from cutlass_gemm.kernels.config import KernelConfig
from cutlass_gemm.runtime import build
names = ["sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8",
         "sm90_int8_bf16_scaled_azp_per_token_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8",
         "sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8"]
with ThreadPoolExecutor(3) as p:
    list(p.map(lambda s: build.build(KernelConfig.from_name(s), Path(f"generated/sm90/{s}.cu").read_text()), names))
print("kernels built")
PY
echo "kernels at ${SECONDS}s"; wait
timeout $((200 - SECONDS)) python3 tools/results/h100-2026-11-23/session5/call5/probe.py > $OUT/probe.log 2>&1; echo "probe rc=$? at ${SECONDS}s"; cat $OUT/probe.log | tail -14
