bash tools/results/h200-2026-11-29/session60/suite.sh /tmp/suite60   # same warm machine
