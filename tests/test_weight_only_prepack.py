"""Weight-only prepack (CPU): the "wo_mma_sm80_v1" layout round-trips for every format, reads back as the
kernel reads it (its fragment view emulated here from wo_gemm.cuh's indexing), the kernel's magic-number
arithmetic is exact, and mismatched packings are typed errors naming the argument."""
import pytest
import torch

from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.quant import PackedWeight, dequantize_packed, prepack, quantize_weight_only, unpack
from cutlass_gemm.quant.prepack import LAYOUT, check_packed
from cutlass_gemm.quant.weight_only import WeightOnlyQuant

FORMATS = [(bits, group, zp) for bits in (4, 8) for group in (None, 32, 64, 128) for zp in (False, True)]


def _wq(n, k, bits, group, zp, seed=0, scale_dtype=torch.bfloat16):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(n, k, generator=g) * torch.logspace(-2, 0, n).unsqueeze(1)
    return quantize_weight_only(w, bits, group, zero_point=zp, scale_dtype=scale_dtype)


@pytest.mark.parametrize("bits,group,zp", FORMATS)
@pytest.mark.parametrize("scale_dtype", [torch.float16, torch.bfloat16])
def test_prepack_unpack_round_trip(bits, group, zp, scale_dtype):
    wq = _wq(96, 384, bits, group, zp, seed=bits, scale_dtype=scale_dtype)
    p = prepack(wq)
    assert p.layout == LAYOUT and p.bits == bits and p.group_size == group and (p.n, p.k) == (96, 384)
    assert p.has_zero == zp and p.scale_dtype == scale_dtype and p.qweight.dtype == torch.int32
    assert tuple(p.qweight.shape) == (96 // 32, 384 * bits) and tuple(p.scales.shape) == (384 // (group or 384), 96)
    back = unpack(p)
    assert torch.equal(back.q, wq.q) and torch.equal(back.scale, wq.scale) and back.bits == bits
    assert (back.zero is None) == (not zp) and (not zp or torch.equal(back.zero, wq.zero))
    assert torch.equal(back.dequantize(), wq.dequantize())
    assert "int%d" % bits in p.name and p.name == prepack(wq).name  # deterministic
    # the fallback's dequantization is the kernel's: (q - z) * s rounded once to the dtype
    want = wq.dequantize(torch.float64)
    got = dequantize_packed(p, scale_dtype).double()
    assert ((got - want).abs() <= want.abs() * 2.0 ** -8 + 1e-30).all()


def test_prepack_extremes_and_act_order():
    n, k = 64, 128
    for bits in (4, 8):
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        q = torch.tensor([lo, hi, 0, -1], dtype=torch.int16).repeat(n, k // 4)
        wq = WeightOnlyQuant(q, torch.ones(n, 1, dtype=torch.float16), None, bits, None,
                             torch.randperm(k, generator=torch.Generator().manual_seed(3)))
        back = unpack(prepack(wq))
        assert torch.equal(back.q, q) and torch.equal(back.perm, wq.perm)
        zq = WeightOnlyQuant((q - lo).to(torch.int16), torch.ones(n, 2, dtype=torch.bfloat16),
                             torch.full((n, 2), 2 ** bits, dtype=torch.int16), bits, 64)  # GPTQ v1 zero 2^b
        assert torch.equal(unpack(prepack(zq)).zero, zq.zero)


def _kernel_view(p: PackedWeight):
    """What wo_gemm.cuh's warps read: the stored unsigned value at every (n, k) and the scale each lane
    applies there, rebuilt from the kernel's own indexing (words wr[4v + c] from 16-byte vector v of lane
    l; int4 word t8 * 2 + h -> pairs (nibble i, nibble i + 4), i = 0..3 -> B registers of k16 steps 2h,
    2h + 1; int8 word t8 * 4 + step -> bytes 0..3; lane g reads scale position 4g + t8)."""
    n, k, bits = p.n, p.k, p.bits
    nb, kb = n // 32, k // 64
    words = p.qweight.to(torch.int64).reshape(nb, kb, -1, 32, 4) & 0xFFFFFFFF  # (nb, kb, v, lane, c)
    wr = words.permute(0, 1, 3, 2, 4).reshape(nb, kb, 32, -1)                   # lane's wr[4v + c]
    u = torch.full((n, k), -1, dtype=torch.int64)
    lane = torch.arange(32)
    g, t = lane // 4, lane % 4
    frag = [0, 1, 8, 9]  # B fragment: b0, b1 at k = 2t, 2t + 1; b2, b3 at 2t + 8, 2t + 9
    nbi = torch.arange(nb).view(-1, 1, 1)
    kbi = torch.arange(kb).view(1, -1, 1)
    for h in range(2):
        for t8 in range(4):
            col = nbi * 32 + t8 * 8 + g.view(1, 1, -1)
            if bits == 4:
                word = wr[:, :, :, t8 * 2 + h]
                regs = [((word >> (4 * i)) & 0xF, (word >> (4 * i + 16)) & 0xF) for i in range(4)]
                pieces = [(2 * h, regs[0], 0), (2 * h, regs[1], 2), (2 * h + 1, regs[2], 0), (2 * h + 1, regs[3], 2)]
            else:
                pieces = []
                for j in range(2):
                    word = wr[:, :, :, t8 * 4 + 2 * h + j]
                    b = [(word >> (8 * e)) & 0xFF for e in range(4)]
                    pieces += [(2 * h + j, (b[0], b[1]), 0), (2 * h + j, (b[2], b[3]), 2)]
            for step, (lo, hi), f in pieces:
                k0 = kbi * 64 + step * 16 + 2 * t.view(1, 1, -1)
                u[col, k0 + frag[f]] = lo
                u[col, k0 + frag[f + 1]] = hi
    scale = torch.empty_like(p.scales)
    for gq in range(8):
        for t8 in range(4):  # lane group gq applies stored position 4 gq + t8 to column 8 t8 + gq
            scale[:, torch.arange(nb) * 32 + t8 * 8 + gq] = p.scales[:, torch.arange(nb) * 32 + gq * 4 + t8]
    return u, scale


@pytest.mark.parametrize("bits,group,zp", [(4, 128, False), (4, 32, True), (8, None, False), (8, 64, True)])
def test_kernel_fragment_view_reads_the_weight(bits, group, zp):
    wq = _wq(64, 256, bits, group, zp, seed=5)
    p = prepack(wq)
    u, scale = _kernel_view(p)
    stored = wq.q.to(torch.int64) + (0 if zp else 2 ** (bits - 1))
    assert (u >= 0).all() and torch.equal(u, stored)
    assert torch.equal(scale.t(), wq.scale)


def test_magic_number_arithmetic_is_exact():
    """The constants of wo_common.cuh / wo_gemm.cuh: 0x6400 | v = 1024 + v (fp16), 0x4300 | v = 128 + v
    (bf16), magic + 8 = 0x6408 / 0x4308, float 0x4B000000 | b = 2^23 + b; (u - z) and u - (magic + z)
    exact for every nibble / byte and zero point up to 2^bits."""
    v = torch.arange(16, dtype=torch.int32)
    assert torch.equal((0x6400 | v).to(torch.int16).view(torch.float16).float(), 1024.0 + v.float())
    assert torch.equal((0x4300 | v).to(torch.int16).view(torch.bfloat16).float(), 128.0 + v.float())
    assert torch.tensor(0x6408, dtype=torch.int16).view(torch.float16).item() == 1032.0
    assert torch.tensor(0x4308, dtype=torch.int16).view(torch.bfloat16).item() == 136.0
    for dt, magic in ((torch.float16, 1024.0), (torch.bfloat16, 128.0)):
        z = torch.arange(17, dtype=torch.float32).view(-1, 1)
        off = (torch.tensor(magic, dtype=dt) + z.to(dt))  # __hadd2(z, magic) in the dtype
        assert torch.equal(off.float(), magic + z)
        assert torch.equal(((magic + v.float()).to(dt) - off).float(), v.float() - z)
    b = torch.arange(256, dtype=torch.int32)
    f = (0x4B000000 | b).view(torch.float32)
    assert torch.equal(f - (8388608.0 + 128.0), b.float() - 128.0)
    for dt in (torch.float16, torch.bfloat16):  # |u - z| <= 256 packs exactly into either dtype
        d = torch.arange(-256, 256, dtype=torch.float32)
        assert torch.equal(d.to(dt).float(), d)


def test_prepack_rejects_unservable_shapes_and_formats():
    for n, k in ((48, 128), (64, 96)):
        wq = quantize_weight_only(torch.randn(n, k), 4, 32)
        with pytest.raises(InvalidArgumentError) as e:
            prepack(wq)
        assert e.value.argument == "weight"
    with pytest.raises(InvalidArgumentError) as e:
        prepack(_wq(32, 64, 4, 32, False), layout="machete")
    assert e.value.argument == "layout"
    with pytest.raises(InvalidArgumentError) as e:
        prepack("not a quant")
    assert e.value.argument == "wq"
    q = torch.zeros(32, 64, dtype=torch.int16)
    for bad in (WeightOnlyQuant(q + 8, torch.ones(32, 1).half(), None, 4, None),           # symmetric int4: 8
                WeightOnlyQuant(q + 16, torch.ones(32, 1).half(), q[:, :1], 4, None),       # unsigned int4: 16
                WeightOnlyQuant(q, torch.ones(32, 1).half(), q[:, :1] + 257, 8, None)):     # zero point 257
        with pytest.raises(InvalidArgumentError) as e:
            prepack(bad)
        assert e.value.argument == "wq"


def test_check_packed_names_the_mismatch():
    p = prepack(_wq(64, 256, 4, 64, True))
    ok = dict(layout=p.layout, bits=4, group_size=64, n=64, k=256)
    check_packed(p.qweight, p.scales, p.zeros, **ok)
    cases = [
        (dict(ok, layout="wo_mma_sm80_v0"), (p.qweight, p.scales, p.zeros), "layout"),
        (dict(ok, bits=8), (p.qweight, p.scales, p.zeros), "qweight"),      # int4 words read as int8
        (dict(ok, group_size=128), (p.qweight, p.scales, p.zeros), "scales"),
        (dict(ok, group_size=48), (p.qweight, p.scales, p.zeros), "group_size"),
        (dict(ok, n=96), (p.qweight, p.scales, p.zeros), "qweight"),
        (dict(ok, k=320), (p.qweight, p.scales, p.zeros), "qweight"),
        (dict(ok, k=300), (p.qweight, p.scales, p.zeros), "qweight"),
        (ok, (p.qweight.float(), p.scales, p.zeros), "qweight"),
        (ok, (p.qweight, p.scales.float(), p.zeros), "scales"),
        (ok, (p.qweight, p.scales, p.zeros.half()), "zeros"),
        (ok, (p.qweight, p.scales, p.zeros[:, :32]), "zeros"),
        (ok, (p.qweight.t().contiguous().t(), p.scales, p.zeros), "qweight"),
    ]
    for kwargs, tensors, arg in cases:
        with pytest.raises(InvalidArgumentError) as e:
            check_packed(*tensors, **kwargs)
        assert e.value.argument == arg, (kwargs, arg, str(e.value))
