bash tools/results/h200-2026-11-29/session61/validate.sh
