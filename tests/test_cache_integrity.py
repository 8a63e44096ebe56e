"""The kernel cache under faults: bad artifacts, stale sources, hung builds and locks, odd cache paths.

Fast: the "kernels" here are tiny C libraries (cc) exporting the launcher's cg_* symbols, built through
the real build()/lookup()/loader code with only the compile step replaced. One test runs the real nvcc
on a tiny source (no CUTLASS kernel), and one emits a CUTLASS kernel source in a fresh interpreter.
"""
import json
import importlib.util
import os
import shutil
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

from cutlass_gemm.errors import BuildError, BuildTimeoutError, CacheDirError, KernelNotBuiltError
from cutlass_gemm.kernels import emit
from cutlass_gemm.kernels.config import KernelConfig
from cutlass_gemm.kernels.emit import GEMM_LAUNCHER_ABI_VERSION as LAUNCHER_ABI_VERSION
from cutlass_gemm.runtime import build, cache, loader

ROOT = Path(__file__).resolve().parents[1]
CFG = KernelConfig(sm=90, tile=(64, 64, 128))
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")

FAKE = r'''
#include <stddef.h>
#include <stdint.h>
#define X __attribute__((visibility("default")))
X int cg_abi_version(void) { return %(abi)d; }
X const char* cg_kernel_name(void) { return "%(name)s"; }
X const char* cg_last_error(void) { return ""; }
X size_t cg_workspace_size(int64_t m, int64_t n, int64_t k) { return 0; }
X int cg_launch(void) { return %(variant)d; }
'''
# A foreign library whose constructor would leave a mark if it were ever dlopen-ed.
FOREIGN = r'''
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void mark(void) { FILE* f = fopen(getenv("CG_FOREIGN_MARK"), "w"); if (f) fclose(f); }
int cg_abi_version(void) { return 0; }
'''


def fake_source(cfg=CFG, variant=0) -> str:
    return FAKE % {"abi": LAUNCHER_ABI_VERSION, "name": cfg.name, "variant": variant}


def cc(src_text: str, out: Path) -> None:
    src = out.with_suffix(".c")
    src.write_text(src_text)
    subprocess.run(["cc", "-shared", "-fPIC", "-x", "c", str(src), "-o", str(out)], check=True)
    src.unlink()


@pytest.fixture
def fake_cache(tmp_path, monkeypatch):
    """A private cache whose compile step is cc on the (C) source; returns the list of compiled names."""
    if shutil.which("cc") is None:
        pytest.skip("needs a C compiler (cc)")
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path / "cache"))
    compiled = []

    def fake_compile(source_path, out_path, sm, **kw):
        compiled.append(Path(source_path).name)
        cc(Path(source_path).read_text(), Path(out_path))
        return 0.01

    monkeypatch.setattr(build, "compile_source", fake_compile)
    monkeypatch.setattr(emit, "emit_source", lambda cfg: fake_source(cfg))
    monkeypatch.setattr(loader, "_loaded", {})
    monkeypatch.setattr(build, "_nvcc_version", lambda nvcc: "13.0.88")
    monkeypatch.setenv("CG_FOREIGN_MARK", str(tmp_path / "foreign-constructor-ran"))
    return compiled


def test_build_records_and_verifies_metadata(fake_cache):
    path, seconds = build.build(CFG, fake_source())
    assert seconds > 0 and fake_cache == [f"{CFG.name}.cu"]
    meta = json.loads(path.with_suffix(".json").read_text())
    size, digest = cache.file_digest(path)
    assert (meta["so_size"], meta["so_sha256"]) == (size, digest)
    assert meta["source_sha256"] == build.source_sha256(fake_source())
    assert build.lookup(CFG) == path and build.lookup(CFG, fake_source()) == path
    assert build.build(CFG, fake_source()) == (path, 0.0)
    assert loader.get_kernel(CFG).path == path  # dlopen-able, right name and ABI
    assert not [p.name for p in path.parent.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("damage", ["truncated", "empty", "random", "foreign", "no-metadata", "wrong-metadata"])
def test_bad_artifact_is_detected_before_dlopen_quarantined_and_rebuilt(fake_cache, tmp_path, damage):
    path, _ = build.build(CFG, fake_source())
    data = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "random":
        path.write_bytes(os.urandom(len(data)))
    elif damage == "foreign":
        cc(FOREIGN, path)
    elif damage == "no-metadata":
        path.with_suffix(".json").unlink()
    else:
        meta = json.loads(path.with_suffix(".json").read_text())
        meta["name"] = "sm90_something_else"
        path.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.warns(RuntimeWarning, match="failed verification"):
        assert build.lookup(CFG) is None  # never dlopen-ed
    assert len(list((path.parent / "quarantine").iterdir())) >= 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing left to quarantine: the rebuild is silent
        lib = loader.get_kernel(CFG)  # JIT: rebuilt once (emission is the fake source here)
    assert len(fake_cache) == 2 and lib.path == path and cache.verify(path, CFG.name)[0] is not None
    assert not (tmp_path / "foreign-constructor-ran").exists()


def test_library_with_wrong_abi_is_quarantined(fake_cache):
    path, _ = build.build(CFG, fake_source().replace(f"return {LAUNCHER_ABI_VERSION};", "return 999;"))
    with pytest.warns(RuntimeWarning, match="launcher ABI 999"):
        assert loader.cached_kernel(CFG) is None
    assert not path.exists()


def test_rebuild_that_still_fails_verification_raises_not_loops(fake_cache, monkeypatch):
    monkeypatch.setattr(cache, "file_digest", lambda p: (1, "0" * 64))  # the metadata never matches
    with pytest.raises(BuildError, match="failed verification"), pytest.warns(RuntimeWarning):
        build.build(CFG, fake_source())
    assert len(fake_cache) == 1


def test_changed_source_rebuilds(fake_cache):
    a, b = fake_source(variant=0), fake_source(variant=1)
    path, _ = build.build(CFG, a)
    assert build.build(CFG, a) == (path, 0.0)
    assert build.build(CFG, b)[1] > 0 and len(fake_cache) == 2
    assert build.lookup(CFG, b) == path and build.lookup(CFG, a) is None
    assert json.loads(path.with_suffix(".json").read_text())["source_sha256"] == build.source_sha256(b)


def test_cached_build_of_another_generator_is_checked_against_the_current_source(fake_cache, monkeypatch):
    path, _ = build.build(CFG, fake_source())
    meta_path = path.with_suffix(".json")
    meta = json.loads(meta_path.read_text())
    meta["generator_fingerprint"] = "an older generator"
    meta_path.write_text(json.dumps(meta))
    # emission possible: the fresh emission decides
    monkeypatch.setattr(build, "can_emit", lambda: True)
    assert build.lookup(CFG) == path
    assert json.loads(meta_path.read_text())["generator_fingerprint"] == build.generator_fingerprint()  # refreshed
    meta["generator_fingerprint"] = "an older generator"
    meta_path.write_text(json.dumps(meta))
    monkeypatch.setattr(emit, "emit_source", lambda cfg: fake_source(cfg, variant=7))
    assert build.lookup(CFG) is None
    assert build.build(CFG)[1] > 0 and build.lookup(CFG) == path  # rebuilt from the new emission
    # no nvidia-cutlass: the generated/ manifest decides, when it lists the kernel
    meta = json.loads(meta_path.read_text())
    meta["generator_fingerprint"] = "an older generator"
    meta_path.write_text(json.dumps(meta))
    monkeypatch.setattr(build, "can_emit", lambda: False)
    monkeypatch.setattr(build, "manifest_sha256", lambda cfg: "another source")
    assert build.lookup(CFG) is None
    monkeypatch.setattr(build, "manifest_sha256", lambda cfg: build.source_sha256(fake_source(cfg, variant=7)))
    assert build.lookup(CFG) == path
    monkeypatch.setattr(build, "manifest_sha256", lambda cfg: None)  # nothing to compare with: accepted
    assert build.lookup(CFG) == path


def test_manifest_sha256_reads_generated():
    from cutlass_gemm.kernels import heuristics
    cfg = heuristics.default_configs(90)[0]
    text = (ROOT / "generated" / "sm90" / f"{cfg.name}.cu").read_text()
    assert build.manifest_sha256(cfg) == build.source_sha256(text)
    assert build.manifest_sha256(CFG.replace(tile=(64, 128, 64))) is None


def test_run_only_lookup_prefers_a_verified_build_over_a_foreign_file(fake_cache, monkeypatch):
    path, _ = build.build(CFG, fake_source())
    foreign = path.parent / f"{CFG.name}-zzzzzzzzzzzzzzzzzzzz.so"
    cc(FOREIGN, foreign)
    monkeypatch.setattr(build, "_cutlass_version", lambda: "none")  # cannot build here
    assert build.cache_entry(CFG).path != path
    assert build.lookup(CFG) == path
    path.unlink()
    assert build.lookup(CFG) is None


def test_only_the_building_process_announces(fake_cache, monkeypatch):
    real = build.compile_source

    def slow(*a, **kw):
        time.sleep(0.5)
        return real(*a, **kw)

    monkeypatch.setattr(build, "compile_source", slow)
    announced = []
    results = []
    threads = [threading.Thread(target=lambda: results.append(build.build(CFG, fake_source(),
                                                                         announce=announced.append)))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert announced == [CFG] and len(fake_cache) == 1
    assert sorted(s for _, s in results)[:2] == [0.0, 0.0]


def test_held_lock_times_out_with_a_typed_error(fake_cache, monkeypatch):
    from filelock import FileLock
    monkeypatch.setenv(cache.LOCK_TIMEOUT_ENV, "1")
    entry = build.cache_entry(CFG)
    entry.path.parent.mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from filelock import FileLock; "
                               "l = FileLock(sys.argv[1]); l.acquire(); print('held', flush=True); time.sleep(30)",
                               str(entry.lock_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        t0 = time.monotonic()
        with pytest.raises(BuildTimeoutError, match=cache.LOCK_TIMEOUT_ENV):
            build.build(CFG, fake_source())
        assert time.monotonic() - t0 < 10
    finally:
        holder.kill()
        holder.wait()
    assert FileLock(str(entry.lock_path), timeout=5).acquire()  # released with its holder


def _fake_toolkit(root: Path, body: str) -> Path:
    nvcc = root / "bin" / "nvcc"
    nvcc.parent.mkdir(parents=True)
    nvcc.write_text("#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo 'Cuda compilation tools, release 13.0, "
                    "V13.0.88'; exit 0; fi\n" + body)
    nvcc.chmod(0o755)
    return root


def test_hung_nvcc_times_out_and_is_killed(tmp_path, monkeypatch):
    pidfile = tmp_path / "child.pid"
    monkeypatch.setenv("CUDA_HOME", str(_fake_toolkit(tmp_path / "cuda", f"sleep 60 &\necho $! > {pidfile}\nwait\n")))
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(cache.BUILD_TIMEOUT_ENV, "2")
    assert build.find_nvcc() == str(tmp_path / "cuda" / "bin" / "nvcc")
    t0 = time.monotonic()
    with pytest.raises(BuildTimeoutError, match=f"nvcc ran past 2 s.*{cache.BUILD_TIMEOUT_ENV}"):
        build.build(CFG, "// never compiled")
    assert time.monotonic() - t0 < 15
    pid = int(pidfile.read_text())
    time.sleep(0.2)
    status = Path(f"/proc/{pid}/status")
    assert not status.exists() or "zombie" in status.read_text(), "nvcc's child process survived the timeout"
    assert not list((tmp_path / "cache" / "sm90").glob("*.so"))
    assert not [p for p in (tmp_path / "cache" / "sm90").iterdir() if p.name.startswith(".build-")]


def test_cuda_path_is_used_when_cuda_home_is_absent(tmp_path, monkeypatch):
    root = _fake_toolkit(tmp_path / "cuda", "exit 1\n")
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.setenv("CUDA_PATH", str(root))
    assert build.find_nvcc() == str(root / "bin" / "nvcc")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "missing"))  # a wrong CUDA_HOME falls through
    assert build.find_nvcc() == str(root / "bin" / "nvcc")


def test_unwritable_cache_raises_a_typed_error_naming_the_env_var(fake_cache, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(build.CACHE_ENV, str(blocker / "cache"))
    assert build.lookup(CFG) is None
    with pytest.raises(CacheDirError, match=build.CACHE_ENV):
        build.build(CFG, fake_source())
    monkeypatch.setenv(build.CACHE_ENV, str(tmp_path / "ro"))
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p).startswith(str(tmp_path / "ro")) else
                        real_access(p, mode))
    with pytest.raises(CacheDirError, match=f"not writable; set {build.CACHE_ENV}"):
        build.build(CFG, fake_source())


def test_relative_cache_dir_is_resolved_once(tmp_path, monkeypatch):
    rel = f"rel-{tmp_path.name}/cache"
    monkeypatch.setenv(build.CACHE_ENV, rel)
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    monkeypatch.chdir(tmp_path / "one")
    first = build.cache_root()
    assert first.is_absolute() and first == tmp_path / "one" / rel
    monkeypatch.chdir(tmp_path / "two")
    assert build.cache_root() == first and build.cache_entry(CFG).path.is_absolute()


def test_shell_metacharacters_in_the_cache_path_execute_nothing(fake_cache, tmp_path, monkeypatch):
    """nvcc runs its steps through a shell; a fake nvcc that does the same shows what it was given."""
    monkeypatch.undo()  # the real compile_source, with a fake toolkit
    monkeypatch.setenv("CUDA_HOME", str(_fake_toolkit(tmp_path / "cuda", r'''
src=""; out=""; prev=""
for a in "$@"; do
  [ "$prev" = "-o" ] && out="$a"
  case "$a" in *.cu) src="$a";; esac
  prev="$a"
done
sh -c "cc -shared -fPIC -x c $src -o $out && echo $PWD > /dev/null"
''')))
    monkeypatch.setattr(loader, "_loaded", {})
    monkeypatch.setenv("PWN_TARGET", str(tmp_path / "pwned"))
    evil = tmp_path / "c$(touch${IFS}$PWN_TARGET)`touch${IFS}$PWN_TARGET`"
    monkeypatch.setenv(build.CACHE_ENV, str(evil))
    path, seconds = build.build(CFG, fake_source())
    assert seconds > 0 and path.exists() and str(path).startswith(str(evil))
    assert not (tmp_path / "pwned").exists()
    assert loader.get_kernel(CFG).path == path


@pytest.mark.nvcc
@pytest.mark.skipif(build.find_nvcc() is None, reason="nvcc not found")
def test_real_nvcc_with_shell_metacharacters_in_the_cache_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PWN_TARGET", str(tmp_path / "pwned"))
    evil = tmp_path / "c$(touch${IFS}$PWN_TARGET)"
    monkeypatch.setenv(build.CACHE_ENV, str(evil))
    path, seconds = build.build(CFG, fake_source())
    assert seconds > 0 and path.exists()
    assert not (tmp_path / "pwned").exists()


def test_stale_temp_folders_are_swept(fake_cache, tmp_path):
    sm_dir = build.cache_entry(CFG).path.parent
    sm_dir.mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    tag = cache.temp_prefix("build").split("-")[1]
    dead_dir = sm_dir / f".build-{tag}-{dead.pid}-abc"
    old_src = sm_dir / ".src-legacy"
    old_tmp = sm_dir / ".tmp-xyz"
    live = sm_dir / f"{cache.temp_prefix('build')}live"
    other_host = sm_dir / f".build-00000000-{dead.pid}-abc"
    for d in (dead_dir, old_src, live, other_host):
        d.mkdir()
        (d / "kernel.cu").write_text("x")
    old_tmp.write_text("x")
    hour_ago = time.time() - 2 * 3600
    os.utime(old_src, (hour_ago, hour_ago))
    os.utime(old_tmp, (hour_ago, hour_ago))
    build.build(CFG, fake_source())
    left = sorted(p.name for p in sm_dir.iterdir() if p.name.startswith("."))
    assert left == sorted([live.name, other_host.name])


def test_emission_failures_are_typed_build_errors(monkeypatch):
    monkeypatch.setattr(emit, "_emit_source", lambda cfg: (_ for _ in ()).throw(AttributeError("boom")))
    with pytest.raises(BuildError, match=rf"emitting kernel {CFG.name} failed: AttributeError: boom"):
        emit.emit_source(CFG)


def test_emission_works_whatever_sys_argv_holds(tmp_path):
    """`python -m pytest -m gpu` puts '-m' in sys.argv, which makes cutlass_library skip its generator."""
    if importlib.util.find_spec("cutlass_cppgen") is None:  # not imported here: its import writes a db to cwd
        pytest.skip("nvidia-cutlass is not installed")
    code = ("import sys; sys.argv = ['pytest', '-m', 'gpu']\n"
            "from cutlass_gemm.kernels import emit, heuristics\n"
            "cfg = heuristics.default_configs(80)[0]\n"
            "text = emit.emit_source(cfg)\n"
            "assert 'cg_launch' in text and cfg.name in text\n"
            "print('ok')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=600,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]
    assert not any(tmp_path.iterdir()), "emission left files in the working directory"


def test_missing_kernel_without_jit_still_names_the_build_command(fake_cache, monkeypatch):
    monkeypatch.setenv(loader.JIT_ENV, "0")
    with pytest.raises(KernelNotBuiltError, match="generate_kernels.py"):
        loader.get_kernel(CFG)


def test_sweep_of_a_shared_folder_touches_only_our_names(tmp_path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    ours = tmp_path / f".build-{cache.temp_prefix('build').split('-')[1]}-{dead.pid}-x"
    theirs = tmp_path / ".build-someone-else"
    for d in (ours, theirs):
        d.mkdir()
    old = time.time() - 3 * 24 * 3600
    os.utime(theirs, (old, old))
    assert cache.sweep(tmp_path, ours_only=True) == 1
    assert theirs.exists() and not ours.exists()
