# call A: cold-start costs (prebuilt set, one kernel on first use, artifact sizes), the SM80 family on sm_90, the demo on the prebuilt set
set -u
export CUTLASS_GEMM_CACHE_DIR=/tmp/cgA; rm -rf /tmp/cgA
EMPTY_CACHE=1 KERNELS=prebuilt bash tools/gpu_session.sh $OUT/pre tests -k zz_nothing_zz -p no:cacheprovider > $OUT/pre.log 2>&1
tail -2 $OUT/pre/kernels.log $OUT/pre/extension.log
export PYTHONPATH=/tmp/site:$PWD
python3 - <<'PY' 2>&1 | tee $OUT/first_use.log
import time, torch, cutlass_gemm
from cutlass_gemm.runtime import loader
a = torch.randint(-128, 128, (48, 4096), dtype=torch.int8, device="cuda"); w = torch.randint(-128, 128, (4096, 4096), dtype=torch.int8, device="cuda")
sa = torch.rand(48, 1, device="cuda"); sb = torch.rand(1, 4096, device="cuda")
t0 = time.perf_counter(); cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.float16); torch.cuda.synchronize()
print(f"first call needing an fp16-out kernel not prebuilt: {time.perf_counter() - t0:.1f} s; builds: {loader.jit_builds}")
PY
ls -l /tmp/cgA/*/*.so | awk '{print $5}' | sort -n | awk '{a[NR]=$1} END {print "artifacts:", NR, "min", a[1], "median", a[int((NR+1)/2)], "max", a[NR], "bytes"}' | tee $OUT/sizes.log
ls -l /tmp/cgA/*/*.so > $OUT/sizes_list.log
( time SMS=80 KERNELS=all bash tools/gpu_session.sh $OUT/sm80 tests -k test_sm80_on_sm90_gpu -p no:cacheprovider ) > $OUT/sm80.log 2>&1
tail -15 $OUT/sm80/gpu_tests.log; tail -4 $OUT/sm80.log; cat $OUT/sm80/kernels.log
( time timeout 150 python3 tools/demo.py ) > $OUT/demo_prebuilt.log 2>&1; tail -12 $OUT/demo_prebuilt.log
cd $OUT && tar czf all.tgz --exclude=all.tgz . && find . -type f ! -name all.tgz -delete
