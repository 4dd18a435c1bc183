#!/usr/bin/env python3
"""Lists, or slims in place, the CUDA fat binaries in an ELF shared library (ci/gpu.sh stage).

    python3 ci/gpu_fatbin.py LIB                       # list: kind, arch, count, bytes
    python3 ci/gpu_fatbin.py --keep-ptx-and-sm 90 LIB  # slim in place

Deepwave 0.1.0's libdeepwave_C.so (363 MB) holds, in its .nv_fatbin section, 292 fat binaries
of three entries each: PTX for compute_50 and cubins for sm_86 and sm_89. An H100/H200 (sm_90)
can run none of those cubins (a cubin runs only on its own major architecture), so the driver
compiles the PTX. Slimming rewrites each fat binary in place with only the entries that
device can use (every PTX entry, and cubins whose arch is in --keep-ptx-and-sm) packed after
its header, its size field reduced, and the bytes freed zeroed: every fat binary keeps its
start offset (the only address the library's registration code holds), the file keeps its
size and layout, and the zeros cost nothing once compressed (the wheel's 100 MB -> ~35 MB xz).

Fat binary layout (NVIDIA's fatbinary, as read by cuobjdump): a 16-byte header (u32 magic
0xBA55ED50, u16 version, u16 header size, u64 size of the entries), then entries, each a
header (u16 kind: 1 PTX, 2 ELF; u16; u32 header size; u64 payload size; ...; u32 arch at
offset 28) followed by its payload.
"""
import argparse
import collections
import struct
import sys

MAGIC = 0xBA55ED50


def section(data, name):
    """(offset, size) of the ELF64 section `name`."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise SystemExit("not an ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def sh(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    stroff = sh(shstrndx)[4]
    for i in range(shnum):
        h = sh(i)
        end = data.index(b"\0", stroff + h[0])
        if data[stroff + h[0]:end].decode() == name:
            return h[4], h[5]
    raise SystemExit(f"no {name} section")


def containers(data, off, size):
    """Yields (start, header size, entries) for each fat binary of the section."""
    p, end = off, off + size
    while p + 16 <= end:
        magic, _ver, hsize, fsize = struct.unpack_from("<IHHQ", data, p)
        if magic != MAGIC:
            p += 8  # fat binaries are 8-byte aligned; padding between them
            continue
        entries, q = [], p + hsize
        while q < p + hsize + fsize:
            kind, _u, ehsize, psize = struct.unpack_from("<HHIQ", data, q)
            arch, = struct.unpack_from("<I", data, q + 28)
            entries.append((q, kind, ehsize, psize, arch))
            q += ehsize + psize
        yield p, hsize, fsize, entries
        p += hsize + fsize


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lib")
    ap.add_argument("--keep-ptx-and-sm", metavar="ARCHS",
                    help="slim in place: keep PTX entries and cubins of these archs (e.g. 90,100)")
    a = ap.parse_args()
    if a.keep_ptx_and_sm is not None:
        a.keep_ptx_and_sm = [int(x) for x in a.keep_ptx_and_sm.split(",") if x]
    with open(a.lib, "rb") as f:
        data = bytearray(f.read())
    off, size = section(data, ".nv_fatbin")
    count, nbytes, kept = collections.Counter(), collections.Counter(), 0
    for start, hsize, fsize, entries in containers(data, off, size):
        for _q, kind, ehsize, psize, arch in entries:
            key = ("PTX" if kind == 1 else "ELF" if kind == 2 else f"kind{kind}", arch)
            count[key] += 1
            nbytes[key] += psize
        if a.keep_ptx_and_sm is None:
            continue
        keep = [e for e in entries if e[1] == 1 or (e[1] == 2 and e[4] in a.keep_ptx_and_sm)]
        if not keep:
            raise SystemExit(f"fat binary at {start:#x}: nothing the device could use")
        blob = b"".join(bytes(data[q:q + eh + ps]) for q, _k, eh, ps, _a in keep)
        body = start + hsize
        data[body:body + fsize] = blob + bytes(fsize - len(blob))
        struct.pack_into("<Q", data, start + 8, len(blob))
        kept += len(blob)
    for key in sorted(count):
        print(f"{key[0]} sm_{key[1]}: {count[key]} entries, {nbytes[key] / 1e6:.1f} MB")
    if a.keep_ptx_and_sm is not None:
        print(f"kept {kept / 1e6:.1f} MB of the {size / 1e6:.1f} MB section; rest zeroed")
        # Check: the slimmed section parses and holds only what was kept.
        again = collections.Counter()
        for _s, _h, _f, entries in containers(data, off, size):
            for _q, kind, _eh, _ps, arch in entries:
                again[(kind, arch)] += 1
        bad = [k for k in again if k[0] == 2 and k[1] not in a.keep_ptx_and_sm]
        if bad or sum(again.values()) == 0:
            raise SystemExit("slimming check failed")
        with open(a.lib, "r+b") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
