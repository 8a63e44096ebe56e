"""CPU: the per-signature plan cache of `conv2d_int8_igemm` (ops/conv_igemm.py) — hits and misses by key, the
key's invalidation by dtype / device / activation / shape / strides / parameters, that a hit never skips a check
whose answer could differ (typed errors still name the argument), and the CUDA launch path (`_launch`) driven
with a stand-in kernel library: the launcher's arguments, the per-call 16-byte pointer check before any launch,
the workspace. Plus the eager-direct calls (no dispatcher) agreeing with the registered ops."""
import pytest
import torch

from cutlass_gemm.errors import InvalidArgumentError, UnsupportedConvError
from cutlass_gemm.ops import conv_igemm as ci
from cutlass_gemm.ops import quantize as qops


def _args(n=2, h=9, w=7, c=64, co=16, k=3, dtype=torch.bfloat16, bias=True, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-128, 128, (n, h, w, c), dtype=torch.int8, generator=g)
    wt = torch.randint(-127, 128, (co, k, k, c), dtype=torch.int8, generator=g)
    sx = torch.rand(1, generator=g) * 1e-2 + 1e-3
    sw = torch.rand(co, generator=g) * 1e-2 + 1e-3
    b = torch.randn(co, generator=g).to(dtype) if bias else None
    return x, wt, sx, sw, b


@pytest.fixture(autouse=True)
def _empty_cache():
    ci._plans.clear()
    yield
    ci._plans.clear()


def _call(x, w, sx, sw, b, act=None, out_dtype=torch.bfloat16, stride=(1, 1), padding=(1, 1)):
    return ci.conv2d_int8_igemm(x, w, sx, sw, b, stride, padding, (1, 1), act, out_dtype)


def test_hits_and_misses_by_key():
    x, w, sx, sw, b = _args()
    y = _call(x, w, sx, sw, b)
    assert len(ci._plans) == 1
    plan = next(iter(ci._plans.values()))
    assert plan.out_shape == (2, 9, 7, 16) and plan.sizes[-2:] == (9, 7) and plan.device == -1
    x2, w2, sx2, sw2, b2 = _args(seed=1)  # new data, same signature: a hit (the same plan object)
    y2 = _call(x2, w2, sx2, sw2, b2)
    assert len(ci._plans) == 1 and next(iter(ci._plans.values())) is plan
    assert torch.equal(y2, ci.reference(x2, w2, sx2, sw2, b2, (1, 1), (1, 1), (1, 1), None, torch.bfloat16))
    assert not torch.equal(y, y2)
    _call(x, w, sx, sw, b, act="relu")                                       # activation
    _call(x, w, sx, sw, b.half(), out_dtype=torch.float16)                  # output dtype
    _call(x, w, sx, sw, None)                                               # no bias
    _call(*_args(h=11))                                                     # shape
    _call(x, w, sx, sw, b, stride=(2, 2))                                   # conv parameters
    _call(x, w, sx, sw, b, padding=(0, 1))
    assert len(ci._plans) == 7


def test_key_covers_dtype_device_strides_and_activation():
    x, w, sx, sw, b = _args()
    base = ci.plan_key(x, w, sx, sw, b, [1, 1], [1, 1], [1, 1], None, torch.bfloat16)
    assert base == ci.plan_key(x.clone(), w, sx, sw, b, [1, 1], [1, 1], [1, 1], None, torch.bfloat16)
    variants = [
        (x.to("meta"), w, sx, sw, b, None, torch.bfloat16),                 # device
        (x, w, sx.double(), sw, b, None, torch.bfloat16),                   # dtype
        (x, w, sx, sw, b.half(), None, torch.bfloat16),                     # bias dtype
        (x, w, sx, sw, b, "relu", torch.bfloat16),                          # activation
        (x, w, sx, sw, b, None, torch.float16),                             # output dtype
        (x.permute(0, 2, 1, 3).contiguous().permute(0, 2, 1, 3), w, sx, sw, b, None, torch.bfloat16),  # strides
    ]
    keys = {ci.plan_key(a, ww, s1, s2, bb, [1, 1], [1, 1], [1, 1], act, od) for a, ww, s1, s2, bb, act, od in variants}
    assert base not in keys and len(keys) == len(variants)
    assert ci.plan_key(x.tolist(), w, sx, sw, b, [1, 1], [1, 1], [1, 1], None, torch.bfloat16) is None


def test_a_cached_signature_still_raises_typed_errors():
    x, w, sx, sw, b = _args()
    _call(x, w, sx, sw, b)
    with pytest.raises(InvalidArgumentError, match="^w:"):
        _call(x, w.to("meta"), sx, sw, b)
    with pytest.raises(InvalidArgumentError, match="^scale_x"):
        _call(x, w, sx.double(), sw, b)
    with pytest.raises(InvalidArgumentError, match="^x"):
        _call(x.permute(0, 2, 1, 3).contiguous().permute(0, 2, 1, 3), w, sx, sw, b)
    with pytest.raises(InvalidArgumentError, match="^bias"):
        _call(x, w, sx, sw, b.half())
    with pytest.raises(InvalidArgumentError, match="^activation"):
        _call(x, w, sx, sw, b, act="gelu")
    with pytest.raises(UnsupportedConvError, match="^stride"):
        _call(x, w, sx, sw, b, stride=(9, 1))
    with pytest.raises(InvalidArgumentError, match="^x"):
        _call(x.tolist(), w, sx, sw, b)
    assert len(ci._plans) == 1  # failed calls leave no plan


def test_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(ci, "_MAX_PLANS", 3)
    for h in range(5, 10):
        _call(*_args(h=h))
    assert 1 <= len(ci._plans) <= 3


class _FakeLib:
    """Stands in for a loaded Conv2dLibrary: records launches."""

    def __init__(self):
        self.calls = []

    def launch(self, *args):
        self.calls.append(args)


def _fake_plan(monkeypatch, ws_bytes=0, **kw):
    monkeypatch.setattr(ci, "_current_stream", lambda dev: 1234)
    args = _args(**kw)
    plan = ci.get_plan(*args, [1, 1], [1, 1], [1, 1], "relu", torch.bfloat16)
    lib = _FakeLib()
    return plan._replace(lib=lib, device=0, workspace_bytes=ws_bytes), lib, args


def test_launch_passes_the_launcher_its_arguments(monkeypatch):
    plan, lib, (x, w, sx, sw, b) = _fake_plan(monkeypatch)
    out = ci._launch(plan, x, w, sx, sw, b)
    assert out.shape == (2, 9, 7, 16) and out.dtype == torch.bfloat16
    (call,) = lib.calls
    assert call[:4] == (x.data_ptr(), w.data_ptr(), out.data_ptr(), sx.data_ptr())
    assert call[4] is None  # scale_guard: none given, a null pointer (the kernel reads scale_x as it is)
    assert call[5:7] == (sw.data_ptr(), b.data_ptr())
    assert call[7] is None  # scale_out: a bf16 output has none
    assert call[8:23] == (2, 9, 7, 64, 16, 3, 3, 1, 1, 1, 1, 1, 1, 9, 7)
    assert call[23:] == (None, 0, 1234)  # no workspace; the current stream
    ci._launch(plan, x, w, sx, sw, None)
    assert lib.calls[1][6] is None  # no bias: a null pointer (the kernel reads zeros)
    guard = torch.ones(1)
    ci._launch(plan, x, w, sx, sw, b, None, guard)
    assert lib.calls[2][4] == guard.data_ptr()


def test_launch_workspace_and_misaligned_pointers(monkeypatch):
    plan, lib, (x, w, sx, sw, b) = _fake_plan(monkeypatch, ws_bytes=256)
    ci._launch(plan, x, w, sx, sw, b)
    ws_ptr, ws_bytes = lib.calls[0][23:25]
    assert ws_ptr and ws_bytes == 256
    buf = torch.empty(x.numel() + 16, dtype=torch.int8)
    off = buf[1:1 + x.numel()].view(x.shape)
    off.copy_(x)
    with pytest.raises(InvalidArgumentError, match="^x: data pointer"):
        ci._launch(plan, off, w, sx, sw, b)
    bias_buf = torch.empty(b.numel() + 8, dtype=b.dtype)[1:1 + b.numel()]
    with pytest.raises(InvalidArgumentError, match="^bias: data pointer"):
        ci._launch(plan, x, w, sx, sw, bias_buf)
    assert len(lib.calls) == 1  # nothing launched for the bad calls


def test_empty_output_launches_nothing(monkeypatch):
    x, w, sx, sw, b = _args(n=0)
    y = _call(x, w, sx, sw, b)
    assert y.shape == (0, 9, 7, 16)
    plan = next(iter(ci._plans.values()))
    assert plan.lib is None


def test_eager_direct_matches_the_registered_ops():
    x, w, sx, sw, b = _args()
    direct = _call(x, w, sx, sw, b, act="relu6")
    via_op = torch.ops.cutlass_gemm.conv2d_int8_igemm(x, w, sx, sw, b, [1, 1], [1, 1], [1, 1], "relu6",
                                                      torch.bfloat16)
    assert torch.equal(direct, via_op)
    xf = torch.randn(3, 5, 64).bfloat16()
    for got, want in ((qops.quantize_per_tensor(xf), torch.ops.cutlass_gemm.quantize_per_tensor(xf, torch.int8)),
                      (qops.quantize_static(xf, torch.tensor([0.02])),
                       torch.ops.cutlass_gemm.quantize_static(xf, torch.tensor([0.02]), torch.int8))):
        assert all(torch.equal(a, b) for a, b in zip(got, want))


class _FakeFast:
    """Stands in for the extension's C++ entry (csrc/conv_fast.cpp): records registrations, answers calls."""

    def __init__(self, answer=None):
        self.registered, self.calls, self.answer = [], [], answer

    def register_conv_plan(self, *args):
        self.registered.append(args)

    def conv_fast(self, *args):
        self.calls.append(args)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_plan_registered_with_the_cpp_entry_in_its_key_order(monkeypatch):
    fast = _FakeFast()
    monkeypatch.setattr(ci.fastpath, "module", lambda: fast)
    plan, lib, (x, w, sx, sw, b) = _fake_plan(monkeypatch, ws_bytes=64)
    lib.function_address = 0xABC0
    ci._register_fast(plan, "relu6", True, False, True)
    (dims, out_dtype, p, q, ws, addr), = fast.registered
    # csrc/conv_fast.h: device, n, h, w, c, k, r, s, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w, activation,
    # has_bias, has_guard, has_scale_out
    assert dims == [0, 2, 9, 7, 64, 16, 3, 3, 1, 1, 1, 1, 1, 1, 2, 1, 0, 1]
    assert (out_dtype, p, q, ws, addr) == (torch.bfloat16, 9, 7, 64, 0xABC0)
    assert len(fast.calls) == 0
    cpu_fast = _FakeFast()
    monkeypatch.setattr(ci.fastpath, "module", lambda: cpu_fast)
    _call(x, w, sx, sw, b, "relu")  # a CPU plan (the reference) is never handed to the C++ entry
    assert cpu_fast.registered == [] and cpu_fast.calls == []


def test_an_eager_call_the_entry_does_not_serve_registers_its_plan_again(monkeypatch):
    """The C++ entry's table is bounded and cleared on its own (csrc/conv_fast.cpp): a signature whose plan stays in
    the Python cache must not stay on the Python path. Each eager call the entry does not serve hands the plan over
    again; a served call does not."""
    plan, lib, (x, w, sx, sw, b) = _fake_plan(monkeypatch)
    lib.function_address = 0xABC0
    monkeypatch.setattr(ci, "get_plan", lambda *a, **k: plan)
    ran = []
    monkeypatch.setattr(ci, "_run", lambda *a: ran.append(a) or "python path")
    args = (x, w, sx, sw, b, [1, 1], [1, 1], [1, 1], "relu", torch.bfloat16, None, None)
    table_cleared = _FakeFast(answer=None)
    monkeypatch.setattr(ci.fastpath, "module", lambda: table_cleared)
    assert ci._eager_cuda(*args) == "python path" and len(ran) == 1
    assert ci._eager_cuda(*args) == "python path" and len(ran) == 2
    assert len(table_cleared.registered) == 2 and len(table_cleared.calls) == 2
    assert table_cleared.registered[0][0][14] == 1  # relu's code
    y = torch.empty(1)
    serving = _FakeFast(answer=y)
    monkeypatch.setattr(ci.fastpath, "module", lambda: serving)
    assert ci._eager_cuda(*args) is y and len(ran) == 2 and serving.registered == []


def test_fast_call_answers_or_falls_back(monkeypatch):
    x, w, sx, sw, b = _args()
    args = (x, w, sx, sw, b, [2, 1], [1, 0], [1, 1], "relu", torch.int8, torch.ones(1), torch.zeros(1))
    y = torch.empty(1)
    fast = _FakeFast(answer=y)
    monkeypatch.setattr(ci.fastpath, "module", lambda: fast)
    assert ci._fast_call(*args) is y
    (call,) = fast.calls
    assert call[:7] == (x, w, sx, args[11], sw, b, args[10])  # scale_guard before w_scale, as the C++ signature
    assert call[7:] == (2, 1, 1, 0, 1, 1, 1, torch.int8)
    for answer in (None, 3, TypeError("incompatible function arguments")):  # not served, a failed launch, pybind
        monkeypatch.setattr(ci.fastpath, "module", lambda a=answer: _FakeFast(answer=a))
        assert ci._fast_call(*args) is None
    assert ci._fast_call(*args[:8], "silu", *args[9:]) is None  # not a conv activation: the Python path says so
    monkeypatch.setattr(ci.fastpath, "module", lambda: None)  # fast path off or extension not built
    assert ci._fast_call(*args) is None
