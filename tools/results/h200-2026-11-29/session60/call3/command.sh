DEADLINE=380 bash tools/results/h200-2026-11-29/session60/suite.sh /tmp/suite60; timeout 190 bash tools/results/h200-2026-11-29/session60/mixed.sh   # timeout_s 590
