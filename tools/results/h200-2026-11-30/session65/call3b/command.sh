# Session 65 call 3b (2026-11-30), carry [".whl"], kind nvidia-h200-x2, on call 3's machine while still warm (its kernel
# cache and suite state kept): test_blockint8_sm90_gpu.py again after its fix (call 3: 3 failed, the test patched the
# quantizer in nn.block_linear, where the layer no longer imports it), and the weight-only mixed-input file call 3 did
# not reach.
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc65a; mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 220 --jobs 30 --per-gpu 2 --pack --files test_blockint8_sm90_gpu.py test_weight_only_mixed_gpu.py > $OUT/suite.log 2>&1; echo rc=$?; tail -25 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
