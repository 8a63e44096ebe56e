"""int8 activation chaining between convolutions, on the CPU (the op's float64 reference path): the int8-output
conv kernels' config / emission, the op `conv2d_int8_igemm(..., out_dtype=torch.int8, scale_out=...)` against an
independent computation of its rule (float32 value x reciprocal scale, round half to even, saturate, NaN -> 0) and
its typed errors, opcheck; `fold_batchnorm` + `chain_int8` on a small bottleneck network (the links it makes and
skips, outputs against the unchained quantized model and the float model, NaN carried to the chain's end,
torch.compile(fullgraph=True), re-chaining after a state_dict round trip)."""
import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

import cutlass_gemm.nn as cnn
from cutlass_gemm import Int8ConvActivation
from cutlass_gemm.errors import InvalidArgumentError, UnsupportedConvError
from cutlass_gemm.kernels.conv2d import Conv2dConfig, co_align, select_config
from cutlass_gemm.ops.conv_igemm import conv2d_int8_igemm

CL = torch.channels_last


# ------------------------------------------------------------------------------------ kernels
def test_int8_output_configs_and_emission():
    pytest.importorskip("cutlass_library")
    from cutlass_gemm.kernels.emit_conv import emit_conv_source
    cfg = select_config("s8", "relu", 32 * 28 * 28, 128, 128)
    assert cfg.name == "sm90_conv2d_fprop_int8_s8_relu_t128x128x128_c1x1x1_s0"
    assert Conv2dConfig.from_name(cfg.name) == cfg and co_align("s8") == 16 and co_align("bf16") == 8
    src = emit_conv_source(cfg)
    for piece in ("using ElementOut = int8_t;", "using ElementBias = float;", "using ScaleOut = Sm90ScalarBroadcast",
                  "Sm90Compute<cutlass::multiplies, ElementOut, float, RN>, ScaleOut, EVTAct>",
                  "Sm90Compute<cg_act::ReLU, float, float, RN>", "void const* scale_out"):
        assert piece in src, piece
    bf = emit_conv_source(select_config("bf16", "relu", 32 * 28 * 28, 128, 128))
    assert "ScaleOut" not in bf and "using ElementBias = ElementOut;" in bf and "void const* scale_out" in bf


# ------------------------------------------------------------------------------------ the op, int8 output
def _operands(n=2, h=9, w=11, ci=64, co=32, k=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-128, 128, (n, h, w, ci), generator=g, dtype=torch.int8)
    wt = torch.randint(-127, 128, (co, k, k, ci), generator=g, dtype=torch.int8)
    sx = torch.tensor([0.02])
    sw = torch.rand(co, generator=g) * 1e-3 + 1e-4
    b = torch.randn(co, generator=g)
    return x, wt, sx, sw, b


@pytest.mark.parametrize("activation", [None, "relu", "relu6"])
def test_int8_output_follows_its_rule(activation):
    x, wt, sx, sw, b = _operands()
    inv = torch.tensor([1 / 0.03], dtype=torch.float32)
    q = conv2d_int8_igemm(x, wt, sx, sw, b, (2, 1), (1, 1), (1, 1), activation, torch.int8, scale_out=inv)
    # independent: F.conv2d in float64, the float32 value, x the float32 reciprocal, rint, saturate
    y = F.conv2d(x.permute(0, 3, 1, 2).double(), wt.permute(0, 3, 1, 2).double(), None, (2, 1), (1, 1)) \
        * 0.02 * sw.double().reshape(1, -1, 1, 1) + b.double().reshape(1, -1, 1, 1)
    y = torch.relu(y) if activation == "relu" else (y.clamp(0, 6) if activation == "relu6" else y)
    expect = torch.round(y.float() * inv).clamp(-128, 127).to(torch.int8).permute(0, 2, 3, 1)
    assert q.dtype == torch.int8 and q.shape == expect.shape and torch.equal(q, expect)
    assert (q == 127).any() or (q == -128).any() or activation is not None  # the saturating range is reached
    # the float output of the same call divided by the scale agrees to within the rounding step
    yb = conv2d_int8_igemm(x, wt, sx, sw, b.bfloat16(), (2, 1), (1, 1), (1, 1), activation, torch.bfloat16)
    inside = (yb.float() * inv).abs() < 120
    assert ((yb.float() * inv - q.float()).abs()[inside] <= 0.5 + 0.02 * (yb.float() * inv).abs()[inside]).all()


def test_int8_output_errors():
    x, wt, sx, sw, b = _operands()
    inv = torch.tensor([10.0])
    with pytest.raises(InvalidArgumentError, match="^scale_out"):
        conv2d_int8_igemm(x, wt, sx, sw, b, (1, 1), (1, 1), (1, 1), None, torch.int8)
    with pytest.raises(InvalidArgumentError, match="^scale_out"):
        conv2d_int8_igemm(x, wt, sx, sw, b, (1, 1), (1, 1), (1, 1), None, torch.int8, scale_out=inv.double())
    with pytest.raises(InvalidArgumentError, match="^scale_out"):
        conv2d_int8_igemm(x, wt, sx, sw, b.bfloat16(), (1, 1), (1, 1), (1, 1), None, torch.bfloat16, scale_out=inv)
    with pytest.raises(InvalidArgumentError, match="^bias"):
        conv2d_int8_igemm(x, wt, sx, sw, b.bfloat16(), (1, 1), (1, 1), (1, 1), None, torch.int8, scale_out=inv)
    x2, wt2, sx2, sw2, b2 = _operands(co=24)
    with pytest.raises(InvalidArgumentError, match="^w: an int8 output needs Co % 16"):
        conv2d_int8_igemm(x2, wt2, sx2, sw2, b2, (1, 1), (1, 1), (1, 1), None, torch.int8, scale_out=inv)


@pytest.mark.parametrize("out_dtype", [torch.int8, torch.bfloat16])
def test_scale_guard_keeps_a_finite_scale_and_voids_a_non_finite_one(out_dtype):
    x, wt, sx, sw, b = _operands()
    kw = dict(scale_out=torch.tensor([1 / 0.03])) if out_dtype == torch.int8 else {}
    bias = b if out_dtype == torch.int8 else b.bfloat16()
    plain = conv2d_int8_igemm(x, wt, sx, sw, bias, (1, 1), (1, 1), (1, 1), "relu", out_dtype, **kw)
    for g in (0.37, 1e30, -2.0, 0.0):  # any finite guard: the same bits as none
        guarded = conv2d_int8_igemm(x, wt, sx, sw, bias, (1, 1), (1, 1), (1, 1), "relu", out_dtype,
                                    scale_guard=torch.tensor([g]), **kw)
        assert torch.equal(guarded, plain), g
    assert (plain != 0).any()
    for g in (float("nan"), float("inf"), float("-inf")):  # a non-finite guard: NaN scale (int8: 0, torch's rule)
        void = conv2d_int8_igemm(x, wt, sx, sw, bias, (1, 1), (1, 1), (1, 1), "relu", out_dtype,
                                 scale_guard=torch.tensor([g]), **kw)
        assert (void == 0).all() if out_dtype == torch.int8 else torch.isnan(void).all(), g
    with pytest.raises(InvalidArgumentError, match="^scale_guard"):
        conv2d_int8_igemm(x, wt, sx, sw, bias, (1, 1), (1, 1), (1, 1), None, out_dtype, scale_guard=torch.ones(2),
                          **kw)
    with pytest.raises(InvalidArgumentError, match="^scale_guard"):
        conv2d_int8_igemm(x, wt, sx, sw, bias, (1, 1), (1, 1), (1, 1), None, out_dtype,
                          scale_guard=torch.ones(1, dtype=torch.float64), **kw)


def test_int8_output_opcheck():
    x, wt, sx, sw, b = _operands(n=1, h=5, w=6)
    torch.library.opcheck(torch.ops.cutlass_gemm.conv2d_int8_igemm,
                          (x, wt, sx, sw, b, [1, 1], [1, 1], [1, 1], "relu", torch.int8, torch.tensor([7.0])))
    torch.library.opcheck(torch.ops.cutlass_gemm.conv2d_int8_igemm,
                          (x, wt, sx, sw, b, [1, 1], [1, 1], [1, 1], "relu", torch.int8, torch.tensor([7.0]),
                           torch.tensor([0.5])))


# ------------------------------------------------------------------------------------ chain_int8
class _OpLog(TorchDispatchMode):
    """The ops dispatched while active (a custom op's own implementation runs below the mode, unlogged)."""

    def __enter__(self):
        self.ops = []
        return super().__enter__()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))


class _Bottleneck(nn.Module):
    """ResNet's bottleneck (conv-bn-relu x 2, conv-bn, + identity, relu), one shared ReLU module as torchvision's."""

    def __init__(self, c=64, mid=64, stride=1):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(c, mid, 1, bias=False), nn.BatchNorm2d(mid)
        self.conv2, self.bn2 = nn.Conv2d(mid, mid, 3, stride, 1, bias=False), nn.BatchNorm2d(mid)
        self.conv3, self.bn3 = nn.Conv2d(mid, c, 1, bias=False), nn.BatchNorm2d(c)
        self.relu = nn.ReLU(inplace=True)
        self.down = None if stride == 1 else nn.Sequential(nn.Conv2d(c, c, 1, stride, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + idt)


def _net(seed=0):
    torch.manual_seed(seed)
    net = nn.Sequential(_Bottleneck(), _Bottleneck(stride=2)).eval()
    for m in net.modules():  # non-trivial running statistics, so folding matters
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    return net


def _quantized(net, batches):
    folded = cnn.fold_batchnorm(net)
    cals = cnn.calibrate(folded, batches)
    cnn.quantize_model(folded, "w8a8-int8-static", calibration=cals)
    return folded


def test_chain_links_a_bottleneck_and_stays_close():
    net = _net()
    xs = [torch.randn(2, 64, 12, 12, generator=torch.Generator().manual_seed(i)).contiguous(memory_format=CL)
          for i in range(3)]
    with torch.no_grad():
        ref = net(xs[0]).double()
        plain = _quantized(net, xs)
        assert not any(isinstance(m, nn.BatchNorm2d) for m in plain.modules())
        chained, report = cnn.chain_int8(copy.deepcopy(plain))
        y_plain, y_chain = plain(xs[0]).double(), chained(xs[0]).double()
    assert sorted(report.chained) == [("0.conv1", "0.conv2"), ("0.conv2", "0.conv3"),
                                      ("1.conv1", "1.conv2"), ("1.conv2", "1.conv3")]
    assert {n for n, _ in report.skipped} == {"0.conv3", "1.down.0", "1.conv3"}  # into the residual add
    c2 = chained.get_submodule("0.conv2")
    assert c2.int8_output and c2.implicit_gemm and chained.get_submodule("0.conv1").implicit_gemm
    assert "int8_output=True" in repr(c2)
    assert not any(n.op == "call_module" and isinstance(chained.get_submodule(n.target), nn.ReLU)
                   and n.args[0].target in ("0.conv1", "0.conv2") for n in chained.graph.nodes)
    rel = lambda a, b: ((a - b).norm() / b.norm()).item()  # noqa: E731
    assert rel(y_chain, y_plain) < 2e-2 and rel(y_chain, ref) < 5e-2, (rel(y_chain, y_plain), rel(y_chain, ref))
    # the intermediate is an int8 NHWC tensor with the consumer's scale
    with torch.no_grad():
        mid = chained.get_submodule("0.conv1")(xs[0])
    assert isinstance(mid, Int8ConvActivation) and mid.q.dtype == torch.int8
    assert mid.q.shape == (2, 12, 12, 64) and mid.q.is_contiguous()  # NHWC
    assert mid.scale is chained.get_submodule("0.conv2").linear.input_scale  # the buffer itself: no op made it
    assert mid.guard is not None and torch.isfinite(mid.guard).all()
    # the chain's middle layer runs the conv op and nothing else (the guard rides along, no scale op)
    with torch.no_grad(), _OpLog() as log:
        mid2 = chained.get_submodule("0.conv2")(mid)
    assert log.ops == ["cutlass_gemm.conv2d_int8_igemm.default"], log.ops
    assert mid2.guard is mid.guard and mid2.scale is chained.get_submodule("0.conv3").linear.input_scale
    deq = mid.dequantize()
    assert deq.shape == (2, 64, 12, 12) and torch.equal(deq, mid.q.permute(0, 3, 1, 2).float() * mid.scale)


def test_chain_carries_nan_to_its_end_and_compiles():
    net = _net(1)
    xs = [torch.randn(1, 64, 8, 8, generator=torch.Generator().manual_seed(i)) for i in range(2)]
    with torch.no_grad():
        chained, _ = cnn.chain_int8(_quantized(net, xs))
        bad = xs[0].clone()
        bad[0, 3, 2, 2] = float("nan")
        y = chained(bad)
        assert torch.isnan(y).all()  # the chain's guard is NaN: no plausible output
        mid = chained.get_submodule("0.conv1")(bad)
        assert torch.isnan(mid.guard).all() and torch.isnan(mid.dequantize()).all()
        assert torch.isfinite(mid.scale).all()  # the consumer's calibrated scale, untouched
        compiled = torch.compile(chained, fullgraph=True)
        assert torch.equal(compiled(xs[1]), chained(xs[1]))


def test_chain_state_dict_round_trip_and_errors():
    net = _net(2)
    xs = [torch.randn(1, 64, 8, 8, generator=torch.Generator().manual_seed(i)) for i in range(2)]
    with torch.no_grad():
        plain = _quantized(net, xs)
        chained, _ = cnn.chain_int8(copy.deepcopy(plain))
        sd = chained.state_dict()
        assert not any("_chain" in k for k in sd)  # the chain is not saved
        fresh = copy.deepcopy(plain)
        fresh.load_state_dict(sd)
        again, report = cnn.chain_int8(fresh)
        assert len(report.chained) == 4 and torch.equal(again(xs[1]), chained(xs[1]))
        # a chained model takes another state_dict in place: its links read the new scales and biases
        other = _quantized(_net(3), [x * 3 for x in xs])
        other_chained, _ = cnn.chain_int8(copy.deepcopy(other))
        before = chained(xs[1])
        chained.load_state_dict(other.state_dict())
        after = chained(xs[1])
        assert not torch.equal(before, after) and torch.equal(after, other_chained(xs[1]))
        # .to() replaces buffers with new tensors: the link follows the consumer's current one
        cons = chained.get_submodule("0.conv2")
        mid = chained.get_submodule("0.conv1")(xs[1])
        cons.linear._buffers["input_scale"] = cons.linear.input_scale * 2
        mid2 = chained.get_submodule("0.conv1")(xs[1])
        assert torch.equal(mid2.scale, cons.linear.input_scale) and not torch.equal(mid2.q, mid.q)
    layer = copy.deepcopy(plain.get_submodule("0.conv2"))
    with pytest.raises(InvalidArgumentError, match="^scale"):
        layer.set_int8_output(torch.ones(2))
    with pytest.raises(InvalidArgumentError, match="^scale"):
        layer.set_int8_output(torch.ones(1, dtype=torch.float64))
    dynamic = cnn.Int8Conv2d.from_float(nn.Conv2d(64, 64, 3, padding=1))
    with pytest.raises(InvalidArgumentError, match="^scale: the next layer's activations"):
        layer.set_int8_output(dynamic)
    with pytest.raises(UnsupportedConvError, match="^activation"):
        layer.set_int8_output(torch.ones(1), "silu")
    one = copy.deepcopy(plain.get_submodule("0.conv3"))  # 1x1: the GEMM until use_implicit_gemm
    with pytest.raises(UnsupportedConvError, match="^kernel_size"):
        one.set_int8_output(torch.ones(1))
    with pytest.raises(InvalidArgumentError, match="^x"):
        one(Int8ConvActivation(torch.zeros(1, 4, 4, 64, dtype=torch.int8), torch.ones(1)))
    with pytest.raises(InvalidArgumentError, match="^x: an Int8ConvActivation's q"):
        layer(Int8ConvActivation(torch.zeros(1, 64, 4, 4, dtype=torch.int8).permute(0, 2, 3, 1), torch.ones(1)))
    with pytest.raises(InvalidArgumentError, match="^model"):
        cnn.fold_batchnorm(_net().train())


def test_chain_traces_a_plain_module_with_the_layers_as_leaves():
    """A model that is not a GraphModule is traced (the library's layers kept whole); no BatchNorm here."""
    torch.manual_seed(4)
    net = nn.Sequential(nn.Conv2d(64, 64, 1), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(),
                        nn.Conv2d(64, 32, 3, padding=1)).eval()
    xs = [torch.randn(1, 64, 8, 8, generator=torch.Generator().manual_seed(i)) for i in range(2)]
    with torch.no_grad():
        cnn.quantize_model(net, "w8a8-int8-static", calibration=cnn.calibrate(net, xs))
        plain = copy.deepcopy(net)
        chained, report = cnn.chain_int8(net)
        y, y_plain = chained(xs[1]).double(), plain(xs[1]).double()
    assert isinstance(chained, torch.fx.GraphModule) and report.chained == [("0", "2"), ("2", "4")]
    assert ((y - y_plain).norm() / y_plain.norm()).item() < 2e-2
