"""tools/device_setup.py: the steps every device call runs first (CPU only; the GPU runs exercise it on a device)."""
import os
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import device_setup  # noqa: E402


def test_fresh_start_empties_the_kernel_cache_and_the_state(tmp_path, monkeypatch):
    cache, state, inductor = tmp_path / "cache", tmp_path / "state", tmp_path / "inductor"
    monkeypatch.setenv("CUTLASS_GEMM_CACHE_DIR", str(cache))
    # never this process's real inductor cache: torch.compile in later tests keeps paths into it
    monkeypatch.setattr(device_setup, "inductor_caches", lambda: [inductor])
    (inductor / "x").mkdir(parents=True)
    (cache / "sm90").mkdir(parents=True)
    (cache / "sm90" / "k-abc.so").write_bytes(b"x" * 2048)
    state.mkdir()
    (state / "task.done").touch()
    assert device_setup.cache_line("before").startswith("kernel cache before: 1 libraries")
    assert device_setup.cache_libraries() == ["sm90/k"]
    gone = device_setup.fresh_start(state)
    assert sorted(gone) == sorted([str(cache), str(state), str(inductor)])
    assert not cache.exists() and not state.exists() and not inductor.exists()
    assert device_setup.cache_line("after").startswith("kernel cache after: 0 libraries")


def test_wheels_already_installed_go_first_on_the_path_and_are_not_installed_again(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "carried_pkg").mkdir(parents=True)
    (site / "carried_pkg" / "__init__.py").write_text("VALUE = 7\n")
    monkeypatch.setenv("PYTHONPATH", "/somewhere")
    monkeypatch.setattr(sys, "path", list(sys.path))
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "broken-1.0-py3-none-any.whl").write_bytes(b"not a wheel")  # would fail if it were installed
    assert device_setup.install_wheels(wheels, site) == []
    import carried_pkg
    assert carried_pkg.VALUE == 7
    assert os.environ["PYTHONPATH"].split(":")[:2] == [str(site), "/somewhere"]
    del sys.modules["carried_pkg"]


def test_a_wheel_pip_refuses_is_reported_not_fatal(tmp_path, monkeypatch):
    monkeypatch.setattr(device_setup.importlib.util, "find_spec", lambda name: None)  # as if cutlass were missing
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setenv("PYTHONPATH", "")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "broken-1.0-py3-none-any.whl").write_bytes(b"not a wheel")
    skipped = device_setup.install_wheels(wheels, tmp_path / "site")
    assert len(skipped) == 1 and skipped[0].startswith("skipped broken-1.0-py3-none-any.whl")


def test_setup_records_the_machine_and_puts_the_checkout_on_the_path(tmp_path, monkeypatch):
    monkeypatch.setenv("CUTLASS_GEMM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PYTHONPATH", "")
    lines = device_setup.setup(tmp_path / "out", wheels=tmp_path / "no_wheels")
    assert lines[-1].startswith("kernel cache before: 0 libraries")
    text = (tmp_path / "out" / "machine.txt").read_text()
    assert f"cores {os.cpu_count()}" in text and "\ngit " in text and "torch" in text
    assert str(ROOT) in os.environ["PYTHONPATH"].split(":")


def test_pack_logs_moves_the_logs_into_one_archive(tmp_path):
    for name in ("a.log", "b.log", "kernels_loaded.txt", "suite.md"):
        (tmp_path / name).write_text(name)
    assert device_setup.pack_logs(tmp_path) == 3
    with tarfile.open(tmp_path / "logs.tgz") as tar:
        assert sorted(tar.getnames()) == ["a.log", "b.log", "kernels_loaded.txt"]
        assert tar.extractfile("b.log").read() == b"b.log"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs.tgz", "suite.md"]
    assert device_setup.pack_logs(tmp_path) == 0


def test_inductor_caches_are_the_env_folder_and_the_tmp_defaults(monkeypatch):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", "/somewhere/inductor")
    found = device_setup.inductor_caches()
    assert found[0] == Path("/somewhere/inductor")
    assert all(p.parent == Path("/tmp") and p.name.startswith("torchinductor_") for p in found[1:])
