# Session 11 call 9 (warm machine of calls 7-8): the test logs of calls 7-8 (/tmp/full_s11, logs.tgz) and the failures.
cd /tmp/full_s11 && tar czf $OUT/logs.tgz *.log && for f in *.log; do echo "$f: $(tail -n 1 $f)"; done; grep -E "^(FAILED|ERROR)" test_streamk_gpu.log test_conv_gpu.log | cut -c1-300
