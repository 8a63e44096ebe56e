# Session 39 call 2 (2026-11-28, kind nvidia-h200-x4, carry [".whl"]), meant to continue call 1 on the warm machine;
# the machine had been given back (over 30 s idle between the calls), so it ran on a fresh one from an empty cache again.
bash tools/results/h200-2026-11-28/session39/suite.sh /tmp/suite39a
