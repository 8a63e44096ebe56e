DEADLINE=200 JOBS=28 bash tools/results/h200-2026-11-29/session59/suite.sh /tmp/suite59b fresh
