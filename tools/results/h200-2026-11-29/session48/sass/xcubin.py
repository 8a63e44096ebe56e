import struct, subprocess, sys
so, out = sys.argv[1], sys.argv[2]
nm = subprocess.run(["nm", so], capture_output=True, text=True).stdout
addr = int([l for l in nm.splitlines() if l.endswith(" cg_cubin_image")][0].split()[0], 16)
data = open(so, "rb").read()
# map vaddr -> file offset via program headers
e_phoff, = struct.unpack_from("<Q", data, 0x20); e_phentsize, e_phnum = struct.unpack_from("<HH", data, 0x36)
for i in range(e_phnum):
    p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz = struct.unpack_from("<IIQQQQ", data, e_phoff + i * e_phentsize)
    if p_type == 1 and p_vaddr <= addr < p_vaddr + p_filesz:
        off = addr - p_vaddr + p_offset; break
c = data[off:]
assert c[:4] == b"\x7fELF"
shoff, = struct.unpack_from("<Q", c, 0x28); shentsize, shnum = struct.unpack_from("<HH", c, 0x3A)
end = shoff + shentsize * shnum
phoff, = struct.unpack_from("<Q", c, 0x20); phes, phn = struct.unpack_from("<HH", c, 0x36)
end = max(end, phoff + phes * phn)
for i in range(shnum):
    sh_type, = struct.unpack_from("<I", c, shoff + i * shentsize + 4)
    o, sz = struct.unpack_from("<QQ", c, shoff + i * shentsize + 0x18)
    if sh_type != 8: end = max(end, o + sz)
for i in range(phn):
    o, = struct.unpack_from("<Q", c, phoff + i * phes + 8); fs, = struct.unpack_from("<Q", c, phoff + i * phes + 0x20)
    end = max(end, o + fs)
open(out, "wb").write(c[:end])
