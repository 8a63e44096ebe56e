"""CPU checks of the benchmarks' shared timing rule (tools/bench_common.py): a timing whose batches disagree is taken
again, so that one disturbed window of the device does not become a row."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import bench_common  # noqa: E402


def _measures(*runs):
    calls = []

    def measure():
        calls.append(1)
        return list(runs[len(calls) - 1])
    return measure, calls


def test_settled_batches_are_taken_once():
    measure, calls = _measures([7.2, 7.3, 7.1, 7.2, 7.4, 7.2, 7.3])
    assert bench_common._settled_median(measure, "t") == 7.2
    assert len(calls) == 1


def test_a_disturbed_window_is_timed_again(capsys):
    # most batches of the first try inside a 12x slower window, the fastest one normal (session 38's decode row)
    measure, calls = _measures([7.3, 88.0, 90.1, 87.5, 86.9, 7.4, 88.2], [7.2, 7.3, 7.2, 7.1, 7.3, 7.2, 7.2])
    assert bench_common._settled_median(measure, "gpu_time_us") == 7.2
    assert len(calls) == 2
    assert "timed again" in capsys.readouterr().err


def test_a_timing_that_never_settles_ends_after_the_retries():
    runs = [[1.0, 5.0, 5.0]] * (bench_common.SETTLE_RETRIES + 1)
    measure, calls = _measures(*runs)
    assert bench_common._settled_median(measure, "t") == 5.0
    assert len(calls) == bench_common.SETTLE_RETRIES + 1
