# Session 27 call 3 (2026-11-27), carry [".whl"], from the repository root; ../suite.sh says what it does.
# (same warm machine, new state: the prebuilt-cache run)
bash tools/results/h100-2026-11-27/session27/suite.sh /tmp/suite27b
