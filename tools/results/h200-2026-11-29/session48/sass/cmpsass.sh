export PATH=/tmp/cuobj/x/nvidia/cu13/bin:$PATH
for f in /tmp/sassA/cache/sm90/*.so; do
  n=$(basename $f | sed 's/-[0-9a-f]*\.so$//'); g=$(ls /tmp/sassB/cache/sm90/$n-*.so 2>/dev/null) || { echo "$n: not built yet"; continue; }
  python3 /tmp/xcubin.py $f /tmp/a.cubin; python3 /tmp/xcubin.py $g /tmp/b.cubin
  nvdisasm -hex /tmp/a.cubin > /tmp/a.s 2>&1; nvdisasm -hex /tmp/b.cubin > /tmp/b.s 2>&1
  echo "$n: $(grep -c ';' /tmp/a.s) vs $(grep -c ';' /tmp/b.s) instr lines; diff lines $(diff <(grep -v "_Z" /tmp/a.s) <(grep -v "_Z" /tmp/b.s) | wc -l); cubin identical: $(cmp -s /tmp/a.cubin /tmp/b.cubin && echo yes || echo no)"
done
