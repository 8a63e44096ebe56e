"""CPU tests of cutlass_gemm.cublaslt: the numpy reference of the IMMA memory orders, argument validation
that runs before any cuBLASLt call, the typed errors, and that the package imports without a GPU or
libcublasLt. No GPU and no libcublasLt needed."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

from cutlass_gemm.errors import CutlassGemmError, InvalidArgumentError
from cutlass_gemm.cublaslt import layouts
from cutlass_gemm.cublaslt.enums import Order, Status
from cutlass_gemm.cublaslt.errors import CublasLtError, CublasLtNotFoundError, UnsupportedOrderError, status_name

ORDERS = [Order.COL32, Order.COL4_4R2_8C, Order.COL32_2R_4R4]
# odd, tiny, tile-edge and aligned sizes (rows, cols)
SIZES = [(1, 1), (1, 33), (2, 33), (7, 31), (8, 32), (9, 64), (33, 65), (37, 70), (64, 96), (100, 40), (256, 512)]


# The closed forms exactly as written in shared/FINDINGS.md (measured against cuBLASLt on an H100),
# kept independent of the package's implementation.
def findings_offset(r, c, R, order):
    if order == Order.COL32:
        return (c // 32) * 32 * R + r * 32 + c % 32
    if order == Order.COL4_4R2_8C:
        Rp = (R + 7) // 8 * 8
        return (c // 32) * 32 * Rp + ((r // 8) * 8 + (r % 2) * 4 + (c % 32) // 8) * 32 + \
            ((4 if c % 8 >= 4 else 0) + (r % 8) // 2) * 4 + c % 4
    Rp = (R + 31) // 32 * 32
    t = r % 32
    return (c // 32) * 32 * Rp + (r // 32) * 1024 + (((t % 8) // 2 * 4 + t // 8) * 2 + t % 2) * 32 + c % 32


def _round_up(v, m):
    return (v + m - 1) // m * m


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
@pytest.mark.parametrize("rows,cols", SIZES)
def test_offsets_bijective_and_in_buffer(order, rows, cols):
    off = layouts.offsets(rows, cols, order)
    assert off.shape == (rows, cols) and off.dtype == np.int64
    size = layouts.buffer_size(rows, cols, order)
    assert off.min() >= 0 and off.max() < size, (order.name, rows, cols, off.min(), off.max(), size)
    assert np.unique(off).size == rows * cols, f"{order.name} {rows}x{cols}: two elements share an offset"


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
@pytest.mark.parametrize("rows,cols", [s for s in SIZES if s[0] * s[1] <= 40 * 100])
def test_offsets_match_findings_formulas(order, rows, cols):
    off = layouts.offsets(rows, cols, order)
    for r in range(rows):
        for c in range(cols):
            want = findings_offset(r, c, rows, order)
            assert off[r, c] == want, f"{order.name} R={rows}: ({r},{c}) -> {off[r, c]}, FINDINGS says {want}"
            assert layouts.offset(r, c, rows, order) == want


@pytest.mark.parametrize("rows,cols", [(256, 512), (64, 96)])
@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
def test_offsets_match_findings_formulas_sampled_large(order, rows, cols):
    rng = np.random.default_rng(0)
    off = layouts.offsets(rows, cols, order)
    for r, c in zip(rng.integers(0, rows, 2000), rng.integers(0, cols, 2000)):
        assert off[r, c] == findings_offset(int(r), int(c), rows, order)


@pytest.mark.parametrize("rows", [1, 2, 7, 8, 9, 31, 32, 33, 37, 64, 100])
def test_leading_dims_and_sizes(rows):
    assert layouts.leading_dim(rows, Order.COL32) == 32 * rows
    assert layouts.leading_dim(rows, Order.COL4_4R2_8C) == 32 * _round_up(rows, 8)
    assert layouts.leading_dim(rows, Order.COL32_2R_4R4) == 32 * _round_up(rows, 32)
    for order in ORDERS:
        for cols in (1, 31, 32, 33, 70):
            assert layouts.buffer_size(rows, cols, order) == _round_up(cols, 32) // 32 * layouts.leading_dim(rows, order)


def test_leading_dims_match_cublaslt_doc_examples():
    # cublasLtOrder_t docs: COL32 with 33 columns and 2 rows needs ld >= 64; COL4_4R2_8C with 33 columns
    # and 1 row needs ld >= 256; COL32_2R_4R4 with 33 columns and 1 row needs ld >= 1024.
    assert layouts.leading_dim(2, Order.COL32) == 64
    assert layouts.leading_dim(1, Order.COL4_4R2_8C) == 256
    assert layouts.leading_dim(1, Order.COL32_2R_4R4) == 1024


def test_col32_2r_4r4_in_tile_term_matches_doc():
    # docs: offset within a 32x32 tile = (((row % 8) / 2 * 4 + row / 8) * 2 + row % 2) * 32 + col
    off = layouts.offsets(32, 32, Order.COL32_2R_4R4)
    for r in range(32):
        for c in range(32):
            assert off[r, c] == (((r % 8) // 2 * 4 + r // 8) * 2 + r % 2) * 32 + c


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
def test_first_tile_is_dense(order):
    # a full tile (8 or 32 rows x 32 columns) fills its 32*rows slots exactly
    rows = layouts.row_padding(order) if order != Order.COL32 else 4
    off = layouts.offsets(rows, 32, order)
    assert sorted(off.ravel().tolist()) == list(range(32 * rows))


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
@pytest.mark.parametrize("rows,cols", SIZES)
def test_padding_positions(order, rows, cols):
    mask = layouts.padding_mask(rows, cols, order)
    size = layouts.buffer_size(rows, cols, order)
    assert mask.size == size and int(mask.sum()) == size - rows * cols
    # every padding slot belongs to a padded row (>= rows) or a padded column (>= cols) of the padded grid
    rp, cp = layouts.padded_rows(rows, order), _round_up(cols, 32)
    grid = np.zeros(size, dtype=bool)
    full = layouts.offsets(rp, cp, order) if order != Order.COL32 else None
    if full is not None:  # with rows already padded, the grid's offsets enumerate every slot
        assert np.unique(full).size == size
        r = np.arange(rp)[:, None].repeat(cp, 1)
        c = np.arange(cp)[None, :].repeat(rp, 0)
        grid[full[(r >= rows) | (c >= cols)]] = True
        assert np.array_equal(grid, mask)


@pytest.mark.parametrize("dtype", [np.int8, np.int32])
@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
@pytest.mark.parametrize("rows,cols", SIZES)
def test_to_from_order_inverse_and_fill(order, rows, cols, dtype):
    rng = np.random.default_rng(rows * 1000 + cols)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=(rows, cols), endpoint=True).astype(dtype)
    buf = layouts.to_order(x, order, fill=-1)
    assert buf.dtype == dtype and buf.shape == (layouts.buffer_size(rows, cols, order),)
    mask = layouts.padding_mask(rows, cols, order)
    assert np.all(buf[mask] == -1)
    np.testing.assert_array_equal(layouts.from_order(buf, order, rows, cols), x)
    assert np.all(layouts.to_order(x, order)[mask] == 0)


def test_col32_is_32_column_panels():
    # COL32 of (R, C) is the 32-column panels of the matrix stacked: buffer = concat(x[:, 32g:32g+32] row-major)
    x = np.arange(5 * 70, dtype=np.int32).reshape(5, 70)
    buf = layouts.to_order(x, Order.COL32, fill=-7)
    padded = np.full((5, 96), -7, dtype=np.int32)
    padded[:, :70] = x
    want = np.concatenate([padded[:, g * 32:(g + 1) * 32].ravel() for g in range(3)])
    np.testing.assert_array_equal(buf, want)


@pytest.mark.parametrize("value,expected", [
    (Order.COL32, Order.COL32), (2, Order.COL32), ("COL32", Order.COL32), ("col4_4r2_8c", Order.COL4_4R2_8C),
    ("CUBLASLT_ORDER_COL32_2R_4R4", Order.COL32_2R_4R4), (" row ", Order.ROW),
])
def test_order_parse(value, expected):
    assert Order.parse(value) is expected


@pytest.mark.parametrize("value", ["COL64", 7, -1, True, 2.0, None])
def test_order_parse_rejects(value):
    with pytest.raises(InvalidArgumentError) as info:
        Order.parse(value)
    assert info.value.argument == "order"


@pytest.mark.parametrize("call,argument", [
    (lambda: layouts.offsets(4, 4, Order.COL), "order"),
    (lambda: layouts.offsets(4, 4, "ROW"), "order"),
    (lambda: layouts.offsets(4, 4, "COL64"), "order"),
    (lambda: layouts.offsets(0, 4, Order.COL32), "rows"),
    (lambda: layouts.offsets(4, -1, Order.COL32), "cols"),
    (lambda: layouts.buffer_size(2.5, 4, Order.COL32), "rows"),
    (lambda: layouts.leading_dim(True, Order.COL32), "rows"),
    (lambda: layouts.offset(4, 0, 4, Order.COL32), "r"),
    (lambda: layouts.to_order(np.zeros(5, np.int8), Order.COL32), "x"),
    (lambda: layouts.to_order([[1, 2]], Order.COL32), "x"),
    (lambda: layouts.to_order(np.zeros((0, 3), np.int8), Order.COL32), "x"),
    (lambda: layouts.from_order(np.zeros(10, np.int8), Order.COL32, 2, 33), "buf"),
    (lambda: layouts.from_order(np.zeros((2, 64), np.int8), Order.COL32, 2, 32), "buf"),
])
def test_bad_inputs_raise_typed_errors(call, argument):
    with pytest.raises(InvalidArgumentError) as info:
        call()
    assert info.value.argument == argument
    assert isinstance(info.value, ValueError) and isinstance(info.value, CutlassGemmError)


# ---- typed errors ----------------------------------------------------------------------------------------

def test_status_names():
    assert status_name(15) == "CUBLAS_STATUS_NOT_SUPPORTED"
    assert status_name(Status.CUBLAS_STATUS_INVALID_VALUE) == "CUBLAS_STATUS_INVALID_VALUE"
    assert status_name(8) == "CUBLAS_STATUS_ARCH_MISMATCH"
    assert status_name(999) == "UNKNOWN_STATUS_999"
    err = UnsupportedOrderError(15, "cublasLtMatmulAlgoGetHeuristic", "A COL32")
    assert isinstance(err, CublasLtError) and isinstance(err, CutlassGemmError)
    assert err.status == 15 and err.status_name == "CUBLAS_STATUS_NOT_SUPPORTED"
    assert "CUBLAS_STATUS_NOT_SUPPORTED" in str(err) and "A COL32" in str(err)


def test_missing_library_raises_typed_error(monkeypatch):
    from cutlass_gemm.cublaslt import _lib

    def failing():
        raise OSError("no such library")

    monkeypatch.setattr(_lib, "_load", failing)
    _lib._reset_for_tests()
    try:
        assert not _lib.is_available()
        assert _lib.library_path() is None
        with pytest.raises(CublasLtNotFoundError) as info:
            _lib.lt()
        assert info.value.status_name == "LIBRARY_NOT_FOUND"
        assert isinstance(info.value, CublasLtError) and isinstance(info.value, CutlassGemmError)
        assert "no such library" in str(info.value) and "nvmath" in str(info.value)
        with pytest.raises(CublasLtNotFoundError):  # remembered: not retried on every call
            _lib.call("cublasLtCreate")
    finally:
        _lib._reset_for_tests()


def test_without_a_driver_the_bindings_are_reported_unusable():
    """On this CPU machine nvmath-python is installed but finds no driver: typed, never a crash."""
    code = textwrap.dedent("""
        from cutlass_gemm.cublaslt import _lib
        from cutlass_gemm.cublaslt.errors import CublasLtNotFoundError
        import torch
        if torch.cuda.is_available():
            print("ok (GPU machine)")
        else:
            assert not _lib.is_available()
            try:
                _lib.version()
            except CublasLtNotFoundError as exc:
                assert "nvmath" in str(exc), str(exc)
                print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert proc.returncode == 0 and proc.stdout.strip().startswith("ok"), proc.stdout + proc.stderr


def test_a_failed_status_becomes_cublaslt_error_naming_the_c_function(fake_lt):
    from cutlass_gemm.cublaslt import _lib

    fake_lt()
    with pytest.raises(CublasLtError, match="cublasLtMatrixLayoutSetAttribute") as info:
        _lib.call("cublasLtMatrixLayoutSetAttribute", _lib.call("cublasLtMatrixLayoutCreate", 3, 4, 4, 4), 1,
                  ctypes.addressof(ctypes.c_int8(0)), 1)  # a 1-byte value for a 4-byte attribute
    assert info.value.status == 7 and info.value.status_name == "CUBLAS_STATUS_INVALID_VALUE"
    assert _lib.status_of("cublasLtMatrixLayoutSetAttribute", 4160, 1, ctypes.addressof(ctypes.c_int8(0)), 1) == 7


def test_import_needs_no_gpu_and_loads_nothing():
    code = textwrap.dedent("""
        import torch
        import cutlass_gemm.cublaslt as lt
        from cutlass_gemm.cublaslt import _lib, layouts, transforms, matmul, pipeline
        assert _lib._lib is None, "libcublasLt loaded at import"
        assert not torch.cuda.is_initialized(), "CUDA initialised at import"
        for name in lt.__all__:
            assert hasattr(lt, name), name
        print("ok")
    """)
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stdout + proc.stderr


# ---- validation before any cuBLASLt call (works on CPU: device is checked first) --------------------------

def test_transform_validation_on_cpu_tensors():
    from cutlass_gemm.cublaslt import transform, untransform

    with pytest.raises(InvalidArgumentError) as info:
        transform(torch.zeros(3, 4, dtype=torch.int8), Order.COL32)
    assert info.value.argument == "x" and "CUDA" in str(info.value)
    with pytest.raises(InvalidArgumentError) as info:
        transform(torch.zeros(3, 4, dtype=torch.int8), Order.ROW)
    assert info.value.argument == "order"
    with pytest.raises(InvalidArgumentError) as info:
        transform("not a tensor", Order.COL32)
    assert info.value.argument == "x"
    with pytest.raises(InvalidArgumentError) as info:
        untransform(torch.zeros(96, dtype=torch.int8), Order.COL32, 0, 3)
    assert info.value.argument == "rows"
    with pytest.raises(InvalidArgumentError) as info:
        untransform(torch.zeros(96, dtype=torch.int8), Order.COL32, 3, 3)
    assert info.value.argument == "buf"


def test_matmul_validation_on_cpu_tensors():
    from cutlass_gemm.cublaslt import int8_matmul, imma_matmul

    a = torch.zeros(4, 8, dtype=torch.int8)
    with pytest.raises(InvalidArgumentError) as info:
        int8_matmul(a, a)
    assert info.value.argument == "a"
    with pytest.raises(InvalidArgumentError) as info:
        int8_matmul(a.float(), a)
    assert info.value.argument == "a"
    with pytest.raises(InvalidArgumentError) as info:
        imma_matmul(torch.zeros(256, dtype=torch.int8), torch.zeros(256, dtype=torch.int8), 4, 4, 8,
                    b_order=Order.COL32)
    assert info.value.argument == "b_order"
    with pytest.raises(InvalidArgumentError) as info:
        imma_matmul(torch.zeros(256, dtype=torch.int8), torch.zeros(256, dtype=torch.int8), 0, 4, 8,
                    b_order=Order.COL4_4R2_8C)
    assert info.value.argument == "m"


def test_parse_order_without_gpu():
    from cutlass_gemm.cublaslt.matmul import TN, _parse_order

    dev = torch.device("cpu")
    assert _parse_order("tn", dev, torch.int32) == TN
    assert _parse_order(Order.ROW, dev, torch.int32) == TN
    assert _parse_order("COL4_4R2_8C", dev, torch.int32) is Order.COL4_4R2_8C
    assert _parse_order(Order.COL32_2R_4R4, dev, torch.int8) is Order.COL32_2R_4R4
    assert _parse_order("auto", dev, torch.float32) == TN  # float32 output never takes the IMMA orders
    with pytest.raises(InvalidArgumentError):
        _parse_order(Order.COL32, dev, torch.int32)


# ---- the FT pipeline's quantizers and error bound, simulated on CPU --------------------------------------

@pytest.mark.parametrize("m,n,k", [(37, 50, 70), (1, 4, 4), (64, 96, 128)])
def test_pipeline_quantization_error_bound_on_cpu(m, n, k):
    from cutlass_gemm.cublaslt.pipeline import error_bound, quantize_per_tensor, quantize_weight

    g = torch.Generator().manual_seed(m * n + k)
    x = torch.randn(m, k, generator=g) * 3
    w = torch.randn(n, k, generator=g) * torch.linspace(0.01, 2, n)[:, None]
    x_q, s_x = quantize_per_tensor(x)
    qw = quantize_weight(w)
    assert x_q.dtype == torch.int8 and qw.q.dtype == torch.int8
    assert int(x_q.abs().max()) <= 127 and int(qw.q.abs().max()) <= 127
    assert int(x_q.abs().max()) == 127  # the largest magnitude uses the full range
    acc = x_q.long() @ qw.q.long().T  # the exact int32 GEMM result
    y = acc.double() * (s_x.double() * qw.scale.double())[None, :]
    ref = x.double() @ w.double().T
    bound = error_bound(x, w)
    excess = (y - ref).abs() - (bound * 1.001 + 1e-9)
    assert float(excess.max()) <= 0, f"quantization error exceeds the analytic bound by {float(excess.max())}"


def test_pipeline_rejects_bad_inputs():
    from cutlass_gemm.cublaslt import ft_int8_linear

    with pytest.raises(InvalidArgumentError) as info:
        ft_int8_linear(torch.zeros(3, 4), torch.zeros(5, 4))
    assert info.value.argument == "x"
    with pytest.raises(InvalidArgumentError) as info:
        ft_int8_linear(torch.zeros(3, 4, dtype=torch.int8), torch.zeros(5, 4))
    assert info.value.argument == "x"


# ---- the Python glue driven against a numpy model of cuBLASLt (CPU) ---------------------------------------
# FakeLt implements the documented semantics of the cuBLASLt calls this package makes (column-major
# D = alpha * op(A) op(B), layouts with ROW/COL/IMMA orders, transform C = alpha * op(A)), with numpy on the
# host memory of CPU tensors, and the documented support rules (TN only for regular orders with N, K % 4;
# IMMA orders refused on "sm90"). It runs every Python path of transform.py / matmul.py / pipeline.py --
# argument passing, the row-major <-> column-major mapping, fallbacks, plan caching -- without a GPU.
# It cannot say anything about the real library's behaviour: tests/test_cublaslt_gpu.py does that.

import contextlib
import ctypes

_NP_TYPES = {3: np.int8, 10: np.int32, 0: np.float32}


class FakeLtError(Exception):
    """What the bindings raise on a failed status (nvmath's cuBLASLtError carries `.status` the same way)."""

    def __init__(self, status):
        super().__init__(f"status {status}")
        self.status = status


def _fail(status):
    raise FakeLtError(status)


_SIZED = {4: ctypes.c_int32, 8: ctypes.c_uint64}


class FakeLt:
    """The functions of nvmath.bindings.cublasLt this package calls (integers in, results out, a failed status
    raised), with cuBLASLt's documented semantics on host memory."""

    def __init__(self, sm=90, refuse_row=False, refuse_int_scale=False, tn_vector_mode=4, refuse_transform=None,
                 corrupt_transform=None, refuse_matmul=None, refuse_launch=None):
        self.sm, self.refuse_row, self.refuse_int_scale, self.tn_vector_mode = sm, refuse_row, refuse_int_scale, tn_vector_mode
        # optional predicates: refuse_transform(src layout, dst layout, transa) -> bool;
        # corrupt_transform(src, dst, transa) -> bool (accept, but write a wrong result);
        # refuse_matmul(desc, a, b, d) -> bool (heuristic refuses); refuse_launch(desc, a, b, d) -> bool
        self.refuse_transform, self.corrupt_transform = refuse_transform, corrupt_transform
        self.refuse_matmul, self.refuse_launch = refuse_matmul, refuse_launch
        self.objs, self.next, self.calls = {}, 4096, []
        self.heuristic_calls = 0

    # -- descriptors -------------------------------------------------------------------------------------
    def _new(self, obj):
        self.next += 64
        self.objs[self.next] = obj
        return self.next

    def _set(self, desc, attr, buf, size, sizes):
        obj = self.objs[desc]
        assert isinstance(buf, int) and buf, "attribute values are passed by address"
        if size != sizes.get(attr, size) or size not in _SIZED:
            _fail(7)  # CUBLAS_STATUS_INVALID_VALUE, as the real library on a size mismatch
        obj[attr] = _SIZED[size].from_address(buf).value

    def create(self):
        return self._new({})

    def get_version(self):
        return 130100

    def matrix_layout_create(self, dtype, rows, cols, ld):
        assert all(isinstance(v, int) for v in (dtype, rows, cols, ld))
        return self._new({"type": dtype, "rows": rows, "cols": cols, "ld": ld, 1: 0})

    def matrix_layout_set_attribute(self, desc, attr, buf, size):
        self._set(desc, attr, buf, size, {0: 4, 1: 4})

    def matmul_desc_create(self, compute, scale):
        return self._new({"compute": int(compute), "scale": int(scale), 2: 0, 3: 0, 4: 0})

    def matmul_desc_set_attribute(self, desc, attr, buf, size):
        self._set(desc, attr, buf, size, {2: 4, 3: 4, 4: 4})

    def matrix_transform_desc_create(self, scale):
        return self._new({"scale": int(scale), 2: 0})

    def matrix_transform_desc_set_attribute(self, desc, attr, buf, size):
        self._set(desc, attr, buf, size, {2: 4})

    def matmul_preference_create(self):
        return self._new({})

    def matmul_preference_set_attribute(self, desc, attr, buf, size):
        self._set(desc, attr, buf, size, {1: 8, 5: 4, 6: 4, 7: 4, 8: 4})

    def __getattr__(self, name):  # *_destroy
        if name.endswith("destroy"):
            return lambda desc: self.__dict__.setdefault("destroyed", []).append((name, desc))
        raise AttributeError(name)

    def _scalar(self, addr, scale):
        return (ctypes.c_int32 if scale == 10 else ctypes.c_float).from_address(addr).value

    # -- memory ------------------------------------------------------------------------------------------
    def _index(self, lay):
        rows, cols, ld, order = lay["rows"], lay["cols"], lay["ld"], lay[1]
        r, c = np.arange(rows)[:, None], np.arange(cols)[None, :]
        if order == 0:
            assert ld >= rows
            return c * ld + r
        if order == 1:
            assert ld >= cols
            return r * ld + c
        assert ld == layouts.leading_dim(rows, order), (ld, rows, order)
        return layouts.offsets(rows, cols, order)

    def _array(self, addr, lay):
        idx = self._index(lay)
        ctype = np.ctypeslib.as_ctypes_type(np.dtype(_NP_TYPES[lay["type"]]))
        return np.ctypeslib.as_array((ctype * (int(idx.max()) + 1)).from_address(addr)), idx

    def read(self, addr, lay):
        arr, idx = self._array(addr, lay)
        return arr[idx].copy()

    def write(self, addr, lay, value):
        arr, idx = self._array(addr, lay)
        arr[idx] = value

    # -- operations --------------------------------------------------------------------------------------
    def matrix_transform(self, h, desc, alpha, a, adesc, beta, b, bdesc, c, cdesc, stream):
        d, la, lc = self.objs[desc], self.objs[adesc], self.objs[cdesc]
        assert b == 0 and bdesc == 0 and self._scalar(beta, d["scale"]) == 0
        if self.refuse_row and 1 in (la[1], lc[1]):
            _fail(15)
        if self.refuse_int_scale and d["scale"] == 10:
            _fail(15)
        if self.refuse_transform is not None and self.refuse_transform(la, lc, d[2]):
            _fail(15)
        if la["type"] != lc["type"]:
            _fail(7)
        m = self.read(a, la)
        if d[2] == 1:
            m = m.T
        if m.shape != (lc["rows"], lc["cols"]):
            _fail(7)
        self.calls.append(("transform", la[1], lc[1], d[2], d["scale"]))
        if self.corrupt_transform is not None and self.corrupt_transform(la, lc, d[2]):
            m = m[::-1].copy()  # rows reversed: a plausible wrong reading of a layout
            m[0, 0] = m[0, 0] + 1
        self.write(c, lc, m * self._scalar(alpha, d["scale"]))

    def _supported(self, d, la, lb, ld_):
        types = (d["compute"], d["scale"], la["type"], ld_["type"])
        imma = la[1] != 0 or lb[1] != 0 or ld_[1] != 0
        if imma:
            if self.sm >= 90 or (lb[1] == 4 and self.sm < 80):
                return False
            return (la[1] == 2 and ld_[1] == 2 and lb[1] in (3, 4) and d[3] == 0 and d[4] == 1
                    and d[2] in (0, 1, 2, 3) and types in ((72, 10, 3, 10), (72, 0, 3, 3)))
        m, k = la["cols"], la["rows"]  # op(A) = A^T: A is k x m
        return (d[3] == 1 and d[4] == 0 and m % 4 == 0 and k % 4 == 0
                and all(x["ld"] % 4 == 0 for x in (la, lb, ld_))
                and d[2] in (0, 1, self.tn_vector_mode)
                and types in ((72, 10, 3, 10), (72, 0, 3, 3), (68, 0, 3, 0)))

    def matmul_algo_get_heuristic(self, h, desc, adesc, bdesc, cdesc, ddesc, pref, count, results, returned):
        from cutlass_gemm.cublaslt._lib import HeuristicResult
        d = self.objs[desc]
        la, lb, ld_ = (self.objs[x] for x in (adesc, bdesc, ddesc))
        self.heuristic_calls += 1
        if not self._supported(d, la, lb, ld_) or (self.refuse_matmul is not None and self.refuse_matmul(d, la, lb, ld_)):
            ctypes.c_int.from_address(returned).value = 0
            _fail(15)
        first = HeuristicResult.from_address(results)
        first.state = 0
        first.workspaceSize = 1024
        ctypes.c_int.from_address(returned).value = 1

    def matmul(self, h, desc, alpha, a, adesc, b, bdesc, beta, c, cdesc, dptr, ddesc, algo, ws, ws_size, stream):
        d = self.objs[desc]
        la, lb, ld_ = (self.objs[x] for x in (adesc, bdesc, ddesc))
        assert c == dptr and ws and ws_size >= 1024 and algo
        if self.refuse_launch is not None and self.refuse_launch(d, la, lb, ld_):
            _fail(15)
        opa = self.read(a, la).astype(np.int64)
        opb = self.read(b, lb).astype(np.int64)
        opa = opa.T if d[3] else opa
        opb = opb.T if d[4] else opb
        acc = opa @ opb
        if d["scale"] == 10:
            out = acc * self._scalar(alpha, 10)
        elif d[2] in (2, 3, 4):
            vec = np.ctypeslib.as_array((ctypes.c_float * ld_["rows"]).from_address(alpha))
            out = acc.astype(np.float32) * vec[:, None]
        else:
            out = acc.astype(np.float32) * np.float32(self._scalar(alpha, 0))
        if ld_["type"] == 3:
            out = np.clip(np.rint(out), -128, 127)
        self.calls.append(("matmul", la[1], lb[1], d[2], d["compute"], d["scale"]))
        self.write(dptr, ld_, out.astype(_NP_TYPES[ld_["type"]]))


@pytest.fixture
def fake_lt(monkeypatch):
    """Install a FakeLt (returned as a factory taking FakeLt's keyword arguments)."""
    from cutlass_gemm.cublaslt import _descriptors, _lib, _matmul_args, _matmul_plans, _validate, matmul, pipeline
    from cutlass_gemm.cublaslt import transforms as transform

    def permissive(x, name, dtypes, ndim=None, contiguous=True):
        """Every check of _validate.cuda_tensor but the device one (a meta tensor keeps dtype/shape/strides)."""
        if isinstance(x, torch.Tensor) and x.device.type == "cpu":
            meta = x.to("meta")
            dtypes = tuple(dtypes)
            if meta.dtype not in dtypes:
                raise InvalidArgumentError(name, f"dtype {meta.dtype}")
            if ndim is not None and meta.dim() != ndim:
                raise InvalidArgumentError(name, f"rank {meta.dim()}")
            if meta.numel() == 0:
                raise InvalidArgumentError(name, "empty")
            if contiguous and not x.is_contiguous():
                raise InvalidArgumentError(name, "not contiguous")
            return x
        return _validate.cuda_tensor(x, name, dtypes, ndim, contiguous)

    state = {}

    def install(**kwargs):
        fake = FakeLt(**kwargs)
        state["fake"] = fake
        monkeypatch.setattr(_lib, "_lib", fake)
        for module in (transform, matmul, _matmul_args, pipeline):
            monkeypatch.setattr(module, "cuda_tensor", permissive)
        for module in (transform, matmul):
            monkeypatch.setattr(module, "handle", lambda device: 1)
        for module in (transform, _matmul_plans):
            monkeypatch.setattr(module, "stream_ptr", lambda device: 0)
        monkeypatch.setattr(_matmul_plans, "workspace", lambda device, stream: torch.empty(1 << 20, dtype=torch.uint8))
        monkeypatch.setattr(torch.cuda, "device", lambda *a, **k: contextlib.nullcontext())
        monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a, **k: divmod(fake.sm, 10))
        _descriptors.clear_caches()
        matmul.clear_plans()
        transform.clear_state()
        return fake

    yield install
    _descriptors.clear_caches()
    matmul.clear_plans()
    transform.clear_state()


def _rand_int(shape, dtype, seed, low=None, high=None):
    g = torch.Generator().manual_seed(seed)
    info = torch.iinfo(dtype)
    low = info.min if low is None else low
    high = info.max if high is None else high
    return torch.randint(low, high + 1, shape, generator=g, dtype=torch.int64).to(dtype)


@pytest.mark.parametrize("refuse_row", [False, True])
@pytest.mark.parametrize("dtype", [torch.int8, torch.int32])
@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
@pytest.mark.parametrize("rows,cols", [(37, 70), (1, 33), (64, 96)])
def test_glue_transform_roundtrip(fake_lt, order, dtype, refuse_row, rows, cols):
    import warnings

    from cutlass_gemm.cublaslt.transforms import chosen_strategy, transform, transform_backend, untransform

    fake = fake_lt(refuse_row=refuse_row, refuse_int_scale=refuse_row)
    x = _rand_int((rows, cols), dtype, rows + cols)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        buf = transform(x, order)
        back = untransform(buf, order, rows, cols)
    assert buf.dtype == dtype and buf.shape == (layouts.buffer_size(rows, cols, order),)
    np.testing.assert_array_equal(buf.numpy(), layouts.to_order(x.numpy(), order))  # padding zeroed too
    torch.testing.assert_close(back, x, rtol=0, atol=0)
    int32_refused = dtype == torch.int32 and refuse_row  # int32 takes only the int scale type: gather
    for direction in ("to", "from"):
        info = transform_backend(order, direction, "cuda:0", dtype)  # device index None on CPU -> current (0)
        assert info.path == ("gather" if int32_refused else "cublaslt"), (direction, info, fake.calls)
        assert info.cublaslt_calls + info.gather_calls == 1 and info.last_path == info.path
    if int32_refused:
        assert chosen_strategy("cuda:0", dtype, order, "to") is None
        assert [w.category.__name__ for w in caught] == ["CublasLtFallbackWarning"] * 2, caught
        return
    assert not caught, [str(w.message) for w in caught]
    index, scale = chosen_strategy("cuda:0", dtype, order, "to")
    assert index == (1 if refuse_row else 0)
    want_scale = "CUDA_R_32F" if dtype == torch.int8 else "CUDA_R_32I"
    assert scale == want_scale, fake.calls
    assert transform_backend(order, "to", "cuda:0", dtype).verified  # checked once against the gather


def test_glue_transform_all_refused_falls_back_to_gather(fake_lt):
    from cutlass_gemm.cublaslt import CublasLtFallbackWarning
    from cutlass_gemm.cublaslt.transforms import transform, transform_backend, untransform

    fake = fake_lt()
    fake.matrix_transform = lambda *a: _fail(15)
    x = _rand_int((37, 70), torch.int8, 3)
    with pytest.warns(CublasLtFallbackWarning, match="refused.*gather"):
        buf = transform(x, Order.COL4_4R2_8C)
    np.testing.assert_array_equal(buf.numpy(), layouts.to_order(x.numpy(), Order.COL4_4R2_8C))
    info = transform_backend(Order.COL4_4R2_8C, "to", "cuda:0")
    assert info.path == "gather" and "CUBLAS_STATUS_NOT_SUPPORTED" in info.reason and "ROW" in info.reason
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the warning is given once per kind; the remembered choice is reused
        buf2 = transform(_rand_int((5, 9), torch.int8, 4), Order.COL4_4R2_8C)
    assert buf2.shape == (layouts.buffer_size(5, 9, Order.COL4_4R2_8C),)
    assert transform_backend(Order.COL4_4R2_8C, "to", "cuda:0").gather_calls == 2
    with pytest.warns(CublasLtFallbackWarning):
        back = untransform(buf, Order.COL4_4R2_8C, 37, 70)
    torch.testing.assert_close(back, x, rtol=0, atol=0)


def test_glue_transform_strict_backend_raises_typed(fake_lt):
    from cutlass_gemm.cublaslt.transforms import transform, untransform

    fake = fake_lt()
    fake.matrix_transform = lambda *a: _fail(15)
    with pytest.raises(CublasLtError) as info:
        transform(torch.zeros(4, 4, dtype=torch.int8), Order.COL32, backend="cublaslt")
    assert info.value.status_name == "CUBLAS_STATUS_NOT_SUPPORTED" and "ROW" in str(info.value)
    with pytest.raises(CublasLtError):
        untransform(torch.zeros(128, dtype=torch.int8), Order.COL32, 4, 4, backend="cublaslt")
    with pytest.raises(InvalidArgumentError) as info:
        transform(torch.zeros(4, 4, dtype=torch.int8), Order.COL32, backend="fast")
    assert info.value.argument == "backend"


def _imma_src(la, lc, transa):
    return la[1] in (int(Order.COL4_4R2_8C), int(Order.COL32_2R_4R4))


@pytest.mark.parametrize("order", [Order.COL4_4R2_8C, Order.COL32_2R_4R4], ids=lambda o: o.name)
@pytest.mark.parametrize("rows,cols", [(37, 70), (1, 33), (64, 96)])
def test_glue_inverse_takes_plain_col_destination(fake_lt, order, rows, cols):
    """The H100 behaviour: from COL4_4R2_8C, ROW destinations and TRANSA=T are refused. The plain COL
    destination (R x C, ld = R, TRANSA=N) plus a torch transpose must be found, and be exact."""
    from cutlass_gemm.cublaslt.transforms import (
        transform, transform_backend, untransform, untransform_to_col_major,
    )

    fake = fake_lt(refuse_transform=lambda la, lc, t: _imma_src(la, lc, t) and (lc[1] == 1 or t == 1))
    x = _rand_int((rows, cols), torch.int8, rows * cols)
    buf = transform(x, order)
    torch.testing.assert_close(untransform(buf, order, rows, cols), x, rtol=0, atol=0)
    torch.testing.assert_close(untransform_to_col_major(buf, order, rows, cols), x.t().contiguous(), rtol=0, atol=0)
    frm = transform_backend(order, "from", "cuda:0")
    assert (frm.path, frm.index, frm.verified) == ("cublaslt", 2, True), frm
    assert "staged" in frm.description and "COL" in frm.description
    col = transform_backend(order, "from_col", "cuda:0")
    assert (col.path, col.index) == ("cublaslt", 0), col
    assert ("transform", int(order), 0, 0, 0) in fake.calls


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
@pytest.mark.parametrize("dtype", [torch.int8, torch.int32])
def test_glue_inverse_refused_everywhere_uses_gather(fake_lt, order, dtype):
    from cutlass_gemm.cublaslt import CublasLtFallbackWarning
    from cutlass_gemm.cublaslt.transforms import (
        transform, transform_backend, untransform, untransform_to_col_major,
    )

    fake_lt(refuse_transform=lambda la, lc, t: la[1] in (2, 3, 4))  # every transform *from* an IMMA order
    x = _rand_int((33, 65), dtype, 9)
    buf = transform(x, order)
    with pytest.warns(CublasLtFallbackWarning, match=f"from:{order.name}"):
        back = untransform(buf, order, 33, 65)
    with pytest.warns(CublasLtFallbackWarning, match=f"from_col:{order.name}"):
        back_col = untransform_to_col_major(buf, order, 33, 65)
    torch.testing.assert_close(back, x, rtol=0, atol=0)
    torch.testing.assert_close(back_col, x.t().contiguous(), rtol=0, atol=0)
    assert transform_backend(order, "to", "cuda:0", dtype).path == "cublaslt"
    for direction in ("from", "from_col"):
        info = transform_backend(order, direction, "cuda:0", dtype)
        assert info.path == "gather" and info.gather_calls == 1 and "NOT_SUPPORTED" in info.reason, info


def test_glue_transform_mismatch_is_caught_and_not_used(fake_lt):
    """cuBLASLt accepting a description but computing something else must not reach the caller."""
    from cutlass_gemm.cublaslt import CublasLtFallbackWarning
    from cutlass_gemm.cublaslt.transforms import transform, transform_backend

    # ROW-source descriptions are "accepted but wrong"; the COL-source ones are right
    fake_lt(corrupt_transform=lambda la, lc, t: la[1] == 1)
    x = _rand_int((37, 70), torch.int8, 5)
    buf = transform(x, Order.COL32)
    np.testing.assert_array_equal(buf.numpy(), layouts.to_order(x.numpy(), Order.COL32))
    info = transform_backend(Order.COL32, "to", "cuda:0")
    assert (info.path, info.index, info.verified) == ("cublaslt", 1, True), info

    fake_lt(corrupt_transform=lambda la, lc, t: True)  # every accepted description is wrong
    with pytest.warns(CublasLtFallbackWarning, match="differs from the index formulas"):
        buf = transform(x, Order.COL32)
    np.testing.assert_array_equal(buf.numpy(), layouts.to_order(x.numpy(), Order.COL32))
    info = transform_backend(Order.COL32, "to", "cuda:0")
    assert info.path == "gather" and "differs" in info.reason


def test_glue_shape_specific_refusal_keeps_cublaslt_for_other_shapes(fake_lt):
    from cutlass_gemm.cublaslt import CublasLtFallbackWarning
    from cutlass_gemm.cublaslt.transforms import transform, transform_backend

    fake = fake_lt(refuse_transform=lambda la, lc, t: 5 in (la["rows"], la["cols"]))  # any 5-row/col matrix
    x = _rand_int((37, 70), torch.int8, 1)
    transform(x, Order.COL32)
    with pytest.warns(CublasLtFallbackWarning):
        small = transform(_rand_int((5, 9), torch.int8, 2), Order.COL32)
    np.testing.assert_array_equal(small.numpy(), layouts.to_order(_rand_int((5, 9), torch.int8, 2).numpy(), Order.COL32))
    attempts = len(fake.calls)
    transform(_rand_int((5, 9), torch.int8, 3), Order.COL32)  # remembered: straight to the gather
    buf = transform(x, Order.COL32)  # other shapes keep cuBLASLt
    np.testing.assert_array_equal(buf.numpy(), layouts.to_order(x.numpy(), Order.COL32))
    assert len(fake.calls) == attempts + 1
    info = transform_backend(Order.COL32, "to", "cuda:0")
    assert (info.path, info.cublaslt_calls, info.gather_calls, info.last_path) == ("cublaslt", 2, 2, "cublaslt"), info


def test_glue_forced_gather_backend(fake_lt):
    from cutlass_gemm.cublaslt.transforms import transform, transform_backend, untransform

    fake = fake_lt()
    x = _rand_int((9, 40), torch.int32, 6)
    buf = transform(x, Order.COL32_2R_4R4, backend="gather")
    torch.testing.assert_close(untransform(buf, Order.COL32_2R_4R4, 9, 40, backend="gather"), x, rtol=0, atol=0)
    np.testing.assert_array_equal(buf.numpy(), layouts.to_order(x.numpy(), Order.COL32_2R_4R4))
    assert not [c for c in fake.calls if c[0] == "transform"]
    assert transform_backend(Order.COL32_2R_4R4, "to", "cuda:0", torch.int32).last_path == "gather"


# ---- the device-side offset tables (torch on CPU) ---------------------------------------------------------

@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
@pytest.mark.parametrize("rows,cols", SIZES)
def test_offset_table_matches_numpy_reference(order, rows, cols):
    from cutlass_gemm.cublaslt import _gather

    _gather.clear_tables()
    table = _gather.offset_table(rows, cols, order, "cpu")
    assert table.dtype == torch.int64 and table.shape == (rows * cols,) and table.device.type == "cpu"
    np.testing.assert_array_equal(table.numpy(), layouts.offsets(rows, cols, order).ravel())
    assert _gather.offset_table(rows, cols, order, "cpu") is table  # cached
    x = _rand_int((rows, cols), torch.int8, rows + 3 * cols)
    size = layouts.buffer_size(rows, cols, order)
    buf = _gather.scatter(x, order, size)
    np.testing.assert_array_equal(buf.numpy(), layouts.to_order(x.numpy(), order))
    torch.testing.assert_close(_gather.gather(buf, order, rows, cols), x, rtol=0, atol=0)
    back_col = _gather.gather_col_major(buf, order, rows, cols)
    assert back_col.is_contiguous() and back_col.shape == (cols, rows)
    torch.testing.assert_close(back_col, x.t().contiguous(), rtol=0, atol=0)


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
def test_offsets_from_indices_is_the_findings_formula(order):
    rows = 45
    r = torch.arange(rows, dtype=torch.int64)[:, None]
    c = torch.arange(100, dtype=torch.int64)[None, :]
    got = layouts.offsets_from_indices(r, c, rows, order)
    for rr in range(rows):
        for cc in range(100):
            assert int(got[rr, cc]) == findings_offset(rr, cc, rows, order)


def test_offset_table_cache_is_bounded(monkeypatch):
    from cutlass_gemm.cublaslt import _gather

    _gather.clear_tables()
    monkeypatch.setattr(_gather, "CACHE_BYTES", 3 * 64 * 64 * 8)
    for rows in range(60, 66):
        _gather.offset_table(rows, 64, Order.COL32, "cpu")
    assert _gather.cached_tables() <= 3 and _gather._bytes <= _gather.CACHE_BYTES
    big = _gather.offset_table(200, 200, Order.COL32, "cpu")  # larger than the cap: built, not kept
    assert big.numel() == 200 * 200 and _gather.cached_tables() <= 3
    _gather.clear_tables()


@pytest.mark.parametrize("tn_vector_mode", [4, 3])
@pytest.mark.parametrize("m,n,k", [(37, 36, 68), (1, 4, 4), (64, 96, 128), (5, 8, 12)])
def test_glue_tn_matmul(fake_lt, m, n, k, tn_vector_mode):
    from cutlass_gemm.cublaslt import int8_matmul

    fake = fake_lt(tn_vector_mode=tn_vector_mode)
    a, b = _rand_int((m, k), torch.int8, m), _rand_int((n, k), torch.int8, n + 1)
    ref = a.numpy().astype(np.int64) @ b.numpy().astype(np.int64).T
    c = int8_matmul(a, b)
    assert c.dtype == torch.int32 and c.shape == (m, n) and c.is_contiguous()
    np.testing.assert_array_equal(c.numpy(), ref)
    assert fake.calls[-1][:2] == ("matmul", 0)

    alpha = torch.linspace(0.001, 0.05, n, dtype=torch.float32)
    y = int8_matmul(a, b, alpha=alpha, out_dtype=torch.float32)
    np.testing.assert_allclose(y.numpy(), ref * alpha.numpy().astype(np.float64)[None, :], rtol=1e-5, atol=1e-6)
    assert fake.calls[-1][3] == tn_vector_mode  # the pointer mode that the heuristic accepted
    q = int8_matmul(a, b, alpha=alpha, out_dtype=torch.int8)
    want = np.clip(np.rint(ref * alpha.numpy()[None, :]), -128, 127)
    assert np.abs(q.numpy().astype(np.int64) - want).max() <= 1
    s = int8_matmul(a, b, alpha=0.5, out_dtype=torch.float32)
    np.testing.assert_allclose(s.numpy(), ref * 0.5, rtol=1e-6)


def _is_vector_mode(d, la, lb, ld_):
    return d[2] in (3, 4)


@pytest.mark.parametrize("where", ["heuristic", "launch"])
@pytest.mark.parametrize("m,n,k", [(37, 36, 68), (1, 4, 4), (64, 96, 128)])
def test_glue_tn_alpha_vector_refused_falls_back_to_torch_epilogue(fake_lt, m, n, k, where):
    from cutlass_gemm.cublaslt import CublasLtFallbackWarning, int8_matmul, matmul_backend

    fake_lt(**({"refuse_matmul": _is_vector_mode} if where == "heuristic" else {"refuse_launch": _is_vector_mode}))
    a, b = _rand_int((m, k), torch.int8, m + 1), _rand_int((n, k), torch.int8, n + 2)
    ref = a.numpy().astype(np.int64) @ b.numpy().astype(np.int64).T
    alpha = torch.linspace(0.001, 0.05, n, dtype=torch.float32)
    with pytest.warns(CublasLtFallbackWarning, match="alpha=vector"):
        q = int8_matmul(a, b, alpha=alpha, out_dtype=torch.int8)
    want = np.clip(np.rint(ref * alpha.numpy().astype(np.float64)[None, :]), -128, 127)
    assert q.dtype == torch.int8 and q.shape == (m, n)
    assert np.abs(q.numpy().astype(np.int64) - want).max() <= 1
    info = matmul_backend(torch.int8, "vector", "cuda:0")
    assert info.last_path == "cublaslt-int32+torch-epilogue" and "NOT_SUPPORTED" in info.reason, info
    with pytest.warns(CublasLtFallbackWarning, match="float32 output and alpha=vector"):
        y = int8_matmul(a, b, alpha=alpha, out_dtype=torch.float32)
    np.testing.assert_allclose(y.numpy(), ref * alpha.numpy().astype(np.float64)[None, :], rtol=1e-5, atol=1e-6)
    assert y.dtype == torch.float32
    assert matmul_backend(torch.float32, "vector", "cuda:0").last_path == "cublaslt-int32+torch-epilogue"
    # scalar alpha still goes through cuBLASLt's own epilogue
    s = int8_matmul(a, b, alpha=0.5, out_dtype=torch.float32)
    np.testing.assert_allclose(s.numpy(), ref * 0.5, rtol=1e-6)
    assert matmul_backend(torch.float32, "scalar", "cuda:0").last_path == "cublaslt"
    q2 = int8_matmul(a, b, alpha=alpha, out_dtype=torch.int8)
    torch.testing.assert_close(q2, q, rtol=0, atol=0)
    assert matmul_backend(torch.int8, "vector", "cuda:0").calls == {"cublaslt-int32+torch-epilogue": 2}
    # the refusal is remembered (plan keys hold the operands' alignment, which varies on CPU: ask directly)
    from cutlass_gemm.cublaslt import _matmul_plans

    refused = [key for key in _matmul_plans._refused if key[5] == torch.int8 and key[6]]
    assert refused, _matmul_plans._refused
    with pytest.raises(CublasLtError, match="remembered refusal"):
        _matmul_plans._get_plan(refused[0], lambda: pytest.fail("asked cuBLASLt again"), imma=False)


def test_glue_tn_float_output_refused_falls_back(fake_lt):
    from cutlass_gemm.cublaslt import CublasLtFallbackWarning, int8_matmul, matmul_backend

    fake_lt(refuse_matmul=lambda d, la, lb, ld_: d["compute"] == 68)  # no COMPUTE_32F with int8 inputs
    a, b = _rand_int((37, 68), torch.int8, 1), _rand_int((36, 68), torch.int8, 2)
    ref = a.numpy().astype(np.int64) @ b.numpy().astype(np.int64).T
    with pytest.warns(CublasLtFallbackWarning):
        y = int8_matmul(a, b, alpha=0.0123, out_dtype=torch.float32)
    np.testing.assert_allclose(y.numpy(), ref * 0.0123, rtol=1e-6, atol=1e-6)
    with pytest.warns(CublasLtFallbackWarning):
        y1 = int8_matmul(a, b, out_dtype=torch.float32)
    np.testing.assert_array_equal(y1.numpy(), ref.astype(np.float32))
    assert matmul_backend(torch.float32, "scalar", "cuda:0").last_path == "cublaslt-int32+torch-epilogue"


@pytest.mark.parametrize("m", [1, 5, 16, 17])
def test_glue_tn_small_m_refused_is_padded(fake_lt, m):
    import warnings

    from cutlass_gemm.cublaslt import CublasLtFallbackWarning, int8_matmul, matmul_backend

    # refuse cuBLAS n = M <= 16 (what torch._int_mm guards against); B' = a is K x M
    fake_lt(refuse_matmul=lambda d, la, lb, ld_: lb["cols"] <= 16)
    a, b = _rand_int((m, 64), torch.int8, m), _rand_int((32, 64), torch.int8, 99)
    ref = a.numpy().astype(np.int64) @ b.numpy().astype(np.int64).T
    if m > 16:
        c = int8_matmul(a, b)
        assert matmul_backend(torch.int32, "none", "cuda:0").last_path == "cublaslt"
    else:
        with pytest.warns(CublasLtFallbackWarning, match=f"M={m}"):
            c = int8_matmul(a, b)
        assert matmul_backend(torch.int32, "none", "cuda:0").last_path == "cublaslt-padded-m"
    assert c.shape == (m, 32) and c.dtype == torch.int32 and c.is_contiguous()
    np.testing.assert_array_equal(c.numpy(), ref)
    alpha = torch.full((32,), 0.25, dtype=torch.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = int8_matmul(a, b, alpha=alpha, out_dtype=torch.float32)  # small M: padded int32 + torch epilogue
    np.testing.assert_allclose(y.numpy(), ref * 0.25, rtol=1e-6)
    assert len(caught) == (1 if m <= 16 else 0), [str(w.message) for w in caught]
    if m <= 16:
        assert matmul_backend(torch.float32, "vector", "cuda:0").last_path == "cublaslt-padded-m-int32+torch-epilogue"


def test_glue_tn_int32_refused_everywhere_raises_typed(fake_lt):
    from cutlass_gemm.cublaslt import int8_matmul

    fake_lt(refuse_matmul=lambda d, la, lb, ld_: True)
    with pytest.raises(CublasLtError) as info:
        int8_matmul(_rand_int((5, 8), torch.int8, 1), _rand_int((4, 8), torch.int8, 2))
    assert info.value.status_name == "CUBLAS_STATUS_NOT_SUPPORTED"
    assert "padded to 32" in str(info.value) and "M=5" in str(info.value)
    assert not isinstance(info.value, UnsupportedOrderError)


@pytest.mark.parametrize("sm", [75, 80])
@pytest.mark.parametrize("b_order", [Order.COL4_4R2_8C, Order.COL32_2R_4R4], ids=lambda o: o.name)
@pytest.mark.parametrize("m,n,k", [(37, 40, 70), (64, 96, 128), (1, 3, 5)])
def test_glue_imma_matmul(fake_lt, sm, b_order, m, n, k):
    from cutlass_gemm.cublaslt import int8_matmul

    fake = fake_lt(sm=sm)
    a, b = _rand_int((m, k), torch.int8, m + 7), _rand_int((n, k), torch.int8, n + 9)
    ref = a.numpy().astype(np.int64) @ b.numpy().astype(np.int64).T
    if b_order == Order.COL32_2R_4R4 and sm < 80:
        with pytest.raises(UnsupportedOrderError):
            int8_matmul(a, b, order=b_order)
        return
    c = int8_matmul(a, b, order=b_order)
    np.testing.assert_array_equal(c.numpy(), ref)
    assert ("matmul", int(Order.COL32), int(b_order)) == fake.calls[-2][:3]  # then the untransform
    alpha = torch.linspace(0.001, 0.05, n, dtype=torch.float32)
    q = int8_matmul(a, b, alpha=alpha, out_dtype=torch.int8, order=b_order)
    want = np.clip(np.rint(ref * alpha.numpy()[None, :]), -128, 127)
    assert np.abs(q.numpy().astype(np.int64) - want).max() <= 1
    assert c.shape == (m, n) and q.dtype == torch.int8


def test_glue_auto_order_by_sm(fake_lt):
    from cutlass_gemm.cublaslt import select_order

    for sm, want in ((75, Order.COL4_4R2_8C), (80, Order.COL32_2R_4R4), (86, Order.COL32_2R_4R4),
                     (89, "tn"), (90, "tn"), (100, "tn")):
        fake_lt(sm=sm)
        assert select_order(0) == want
        assert select_order(0, torch.float32) == "tn"


def test_glue_imma_on_sm90_raises_unsupported_order(fake_lt):
    from cutlass_gemm.cublaslt import int8_matmul

    fake_lt(sm=90)
    a, b = _rand_int((64, 128), torch.int8, 1), _rand_int((96, 128), torch.int8, 2)
    with pytest.raises(UnsupportedOrderError) as info:
        int8_matmul(a, b, order="COL4_4R2_8C")
    assert info.value.status_name == "CUBLAS_STATUS_NOT_SUPPORTED"
    assert "COL4_4R2_8C" in str(info.value) and "sm90" in str(info.value)
    np.testing.assert_array_equal(int8_matmul(a, b).numpy(),  # auto -> TN on sm90
                                  a.numpy().astype(np.int64) @ b.numpy().astype(np.int64).T)


def test_glue_matmul_validation(fake_lt):
    from cutlass_gemm.cublaslt import int8_matmul

    fake_lt()
    a, b = torch.zeros(5, 8, dtype=torch.int8), torch.zeros(4, 8, dtype=torch.int8)
    cases = [
        (lambda: int8_matmul(a, torch.zeros(6, 8, dtype=torch.int8)), "b_nk"),    # N % 4
        (lambda: int8_matmul(torch.zeros(5, 6, dtype=torch.int8), torch.zeros(4, 6, dtype=torch.int8)), "a"),  # K % 4
        (lambda: int8_matmul(a, torch.zeros(4, 12, dtype=torch.int8)), "b_nk"),   # K mismatch
        (lambda: int8_matmul(a, torch.zeros(8, 4, dtype=torch.int8).t()), "b_nk"),  # non-contiguous (4, 8)
        (lambda: int8_matmul(a, torch.zeros(2, 4, 8, dtype=torch.int8)), "b_nk"),  # rank 3
        (lambda: int8_matmul(torch.zeros(41, dtype=torch.int8)[1:].view(5, 8), b), "a"),  # misaligned
        (lambda: int8_matmul(a, b, alpha=2.0), "alpha"),                          # int32 output takes no alpha
        (lambda: int8_matmul(a, b, alpha=torch.ones(3), out_dtype=torch.float32), "alpha"),  # wrong length
        (lambda: int8_matmul(a, b, alpha=torch.ones(4, dtype=torch.float64), out_dtype=torch.float32), "alpha"),
        (lambda: int8_matmul(a, b, alpha="x", out_dtype=torch.float32), "alpha"),
        (lambda: int8_matmul(a, b, out_dtype=torch.float16), "out_dtype"),
        (lambda: int8_matmul(a, b, order="COL32"), "order"),
        (lambda: int8_matmul(a, b, out_dtype=torch.float32, order="COL4_4R2_8C"), "out_dtype"),
    ]
    for call, argument in cases:
        with pytest.raises(InvalidArgumentError) as info:
            call()
        assert info.value.argument == argument, (argument, str(info.value))


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("sm", [80, 90])
@pytest.mark.parametrize("m,n,k", [(37, 50, 70), (3, 5, 7), (64, 96, 128)])
def test_glue_ft_pipeline(fake_lt, m, n, k, sm, fused):
    from cutlass_gemm.cublaslt.pipeline import error_bound, ft_int8_linear, quantize_weight

    fake_lt(sm=sm)
    g = torch.Generator().manual_seed(m + n + k)
    x, w = torch.randn(m, k, generator=g), torch.randn(n, k, generator=g)
    y = ft_int8_linear(x, w, fused_alpha=fused)
    assert y.shape == (m, n) and y.dtype == x.dtype
    err = (y.double() - x.double() @ w.double().T).abs()
    assert float((err - error_bound(x, w) * 1.001 - 1e-4).max()) <= 0
    y2 = ft_int8_linear(x, quantize_weight(w), fused_alpha=fused)
    torch.testing.assert_close(y, y2, rtol=0, atol=0)


def test_glue_descriptors_are_destroyed_by_the_library_that_made_them(fake_lt):
    import gc

    from cutlass_gemm.cublaslt import _descriptors, int8_matmul
    from cutlass_gemm.cublaslt.matmul import clear_plans

    fake = fake_lt()
    int8_matmul(torch.zeros(8, 8, dtype=torch.int8), torch.zeros(4, 8, dtype=torch.int8))
    made = set(fake.objs)
    _descriptors.clear_caches()
    clear_plans()
    gc.collect()
    destroyed = {ptr for _, ptr in fake.__dict__.get("destroyed", [])}
    assert destroyed and destroyed <= made  # released through the fake, never through another library
    names = {name for name, _ in fake.destroyed}
    assert {"matrix_layout_destroy", "matmul_desc_destroy", "matmul_preference_destroy"} <= names
