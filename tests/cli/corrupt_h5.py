#!/usr/bin/env python3
"""Write copies of a scene (or checkpoint) file with one corruption each that tests/fuzz found to
crash or hang HDF5 1.10 inside the readers (tests/cli/test_corrupt_hdf5.sh). Each edit changes a
few bytes, found by their structure (HDF5 file format spec, version 0 superblock files as HDF5
writes by default), never by a fixed offset.
Usage: corrupt_h5.py CASE IN OUT"""
import struct
import sys

import h5py
import numpy as np


def header_addr(path, name):
    with h5py.File(path, "r") as f:
        return h5py.h5o.get_info(f[name].id).addr if name else h5py.h5o.get_info(f.id).addr


def vlen_ref(data, addr_of_header):
    """Offset of the 16-byte reference (length, collection address, index) of the first variable-length
    string after an object header: the first one naming a global heap collection."""
    heaps = {i for i in range(len(data)) if data[i:i + 4] == b"GCOL"}
    for i in range(addr_of_header, len(data) - 16):
        n, addr, idx = struct.unpack("<IQI", data[i:i + 16])
        if addr in heaps and 0 < n < 4096 and 0 < idx < 1000:
            return i, addr
    raise SystemExit("no variable-length string reference found")


def float64_type(data, start):
    """Offset of the first IEEE float64 little-endian datatype message body after start."""
    pattern = bytes([0x11, 0x20, 0x3F, 0x00, 0x08, 0x00, 0x00, 0x00])
    i = data.find(pattern, start)
    if i < 0:
        raise SystemExit("no float64 type found")
    return i


def attr_message(data, addr, name):
    """Offset of the body of attribute message `name` in the version-1 object header at addr (HDF5
    file format spec IV.A.1.a: a 16-byte prefix, then messages of 8-byte type/size/flags headers;
    continuation messages, type 0x10, give further blocks)."""
    blocks = [(addr + 16, struct.unpack("<I", data[addr + 8:addr + 12])[0])]
    want = name.encode() + b"\0"
    while blocks:
        start, size = blocks.pop(0)
        p = start
        while p + 8 <= start + size:
            mtype, msize = struct.unpack("<HH", data[p:p + 4])
            body = p + 8
            if mtype == 0x10:
                blocks.append(struct.unpack("<QQ", data[body:body + 16]))
            elif mtype == 0x0C and data[body + 8:body + 8 + len(want)] == want:
                return body
            p = body + msize
    raise SystemExit("attribute %s not found" % name)


def message(data, addr, want):
    """Offset of the body of the first message of type `want` in the version-1 object header at addr."""
    blocks = [(addr + 16, struct.unpack("<I", data[addr + 8:addr + 12])[0])]
    while blocks:
        start, size = blocks.pop(0)
        p = start
        while p + 8 <= start + size:
            mtype, msize = struct.unpack("<HH", data[p:p + 4])
            if mtype == 0x10:
                blocks.append(struct.unpack("<QQ", data[p + 8:p + 24]))
            elif mtype == want:
                return p + 8
            p += 8 + msize
    raise SystemExit("no message of type %#x found" % want)


def continuation(data, addr):
    """Offset of the body (address, length) of the first continuation message in the first block of
    the version-1 object header at addr."""
    p, end = addr + 16, addr + 16 + struct.unpack("<I", data[addr + 8:addr + 12])[0]
    while p + 8 <= end and struct.unpack("<H", data[p:p + 2])[0] != 0x10:
        p += 8 + struct.unpack("<H", data[p + 2:p + 4])[0]
    if p + 8 > end:
        raise SystemExit("the header at %d has no continuation in its first block" % addr)
    return p + 8


def symbol_table_message(data, addr):
    """Offset of the body of the symbol table message (type 0x11: B-tree address, heap address) of
    the version-1 object header at addr."""
    return message(data, addr, 0x11)


def edit(case, src, dst):
    if case == "compact_friction":  # a compact dataset whose stored size says 0 bytes
        with h5py.File(src, "r") as f:
            fr = f["materials/friction"][...]
        with h5py.File(dst, "r+") as f:
            del f["materials/friction"]
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            dcpl.set_layout(h5py.h5d.COMPACT)
            space = h5py.h5s.create_simple(fr.shape)
            d = h5py.h5d.create(f.id, b"materials/friction", h5py.h5t.IEEE_F64LE, space, dcpl=dcpl)
            d.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(fr, dtype="<f8"))
        data = bytearray(open(dst, "rb").read())
        raw = struct.pack("<d", fr.flat[0])
        at = data.find(struct.pack("<BBH", 3, 0, 8 * fr.size) + raw)  # layout v3, compact, size
        if at < 0:
            raise SystemExit("compact layout not found")
        data[at + 2:at + 4] = b"\0\0"
    else:
        data = bytearray(open(src, "rb").read())
        if case == "float_size":  # /bodies/velocity: values of 2 GB each
            at = float64_type(data, header_addr(src, "bodies/velocity"))
            data[at + 4:at + 8] = struct.pack("<I", 0x88000000)
        elif case == "float_fields":  # /bodies/size: a precision past its 8 bytes
            at = float64_type(data, header_addr(src, "bodies/size"))
            data[at + 10:at + 12] = struct.pack("<H", 0x1000)
        elif case in ("vlen_length", "vlen_index", "heap_object_size"):  # the root attribute kind
            ref, heap = vlen_ref(data, header_addr(src, None))
            if case == "vlen_length":
                data[ref:ref + 4] = struct.pack("<I", 1 << 20)
            elif case == "vlen_index":
                data[ref + 12:ref + 16] = struct.pack("<I", 1 << 30)
            else:  # the first object of the collection claims 4000 bytes: HDF5's parser loops
                data[heap + 24:heap + 32] = struct.pack("<Q", 4000)
        elif case in ("fill_shared_scene", "fill_shared_fclib"):
            # the fill value message of a dataset below the root (/bodies/size; FCLIB's
            # /fclib_global/vectors/w) flagged shared (tests/fuzz: fuzz_scene): its body (version 2,
            # then the allocation time, 1 in a scene: set here) then reads as a message shared
            # through a table (version 2, type 1) that a file of superblock 0 has not, and H5Dopen2
            # crashed in H5SM_get_fheap_addr (serial and core drivers)
            name = "bodies/size" if case == "fill_shared_scene" else "fclib_global/vectors/w"
            at = message(data, header_addr(src, name), 0x05)
            if data[at] != 2:
                raise SystemExit("the fill value message is not of version 2")
            data[at + 1] = 1
            data[at - 4] |= 2
        elif case == "vlen_type_size":
            # the root attribute kind's variable-length string type with its size 16 -> 48 (tests/fuzz,
            # ASan: fuzz_scene): H5Aexists copied 48 bytes of data from a message that holds 16
            at = attr_message(data, header_addr(src, None), "kind")
            nsz = struct.unpack("<H", data[at + 2:at + 4])[0]
            t = at + 8 + (nsz + 7) // 8 * 8
            if data[t] & 15 != 9 or struct.unpack("<I", data[t + 4:t + 8])[0] != 16:
                raise SystemExit("kind is not a variable-length type of 16 bytes")
            data[t + 4:t + 8] = struct.pack("<I", 48)
        elif case == "vlen_base_offset":
            # the root attribute kind's variable-length string with its one-byte character's bit offset
            # 0 -> 0xff00 (tests/fuzz: fuzz_scene, valgrind): HDF5 1.10 converted the string bit by bit
            # from past the heap object, from freed memory, so the result changed from one read to the next
            at = attr_message(data, header_addr(src, None), "kind")
            nsz = struct.unpack("<H", data[at + 2:at + 4])[0]
            t = at + 8 + (nsz + 7) // 8 * 8
            base = t + 8  # the vlen type's 8-byte header, then its base: an integer of one byte
            if data[t] & 15 != 9 or data[base] & 15 != 0 or data[base + 4:base + 12] != bytes([1, 0, 0, 0, 0, 0, 8, 0]):
                raise SystemExit("kind is not a variable-length string of one-byte integers")
            data[base + 8:base + 10] = struct.pack("<H", 0xFF00)
        elif case == "driver_block_size":
            # the superblock (version 0) pointing at a driver information block, appended, that claims
            # 0xa0000000 bytes (tests/fuzz: fuzz_scene, a 298-byte file): H5Fopen allocated and read 2.7 GB
            if data[8] != 0 or data[13] != 8:
                raise SystemExit("not a version-0 superblock with 8-byte addresses")
            data[48:56] = struct.pack("<Q", len(data))  # after base, free-space and end-of-file addresses
            data += struct.pack("<B3xI8s", 0, 0xA0000000, b"NCSAmult")
        elif case == "vlen_flags_free_zero":
            # the root attribute kind's reserved byte (version 1: no flags) 0xff, and its collection's
            # free-space record 0 bytes long (tests/fuzz: fuzz_checkpoint): HDF5 1.10's parser of the
            # collection never moves past that record
            at = attr_message(data, header_addr(src, None), "kind")
            data[at + 1] = 0xFF
            ref, heap = vlen_ref(data, header_addr(src, None))
            size = struct.unpack("<Q", data[heap + 8:heap + 16])[0]
            p = heap + 16
            while p + 16 <= heap + size and struct.unpack("<H", data[p:p + 2])[0] != 0:
                p += 16 + (struct.unpack("<Q", data[p + 8:p + 16])[0] + 7) // 8 * 8
            if p + 16 > heap + size:
                raise SystemExit("the collection has no free-space record")
            data[p + 8:p + 16] = struct.pack("<Q", 0)
        elif case == "empty_vlen_index":
            # the reference of /hooks/state's names, an empty string, with its index 2 -> 0xFFFFFF02
            # (tests/fuzz: fuzz_checkpoint): HDF5 reads a reference whose length is 0 from its
            # collection too, and indexed past the collection's objects
            at = attr_message(data, header_addr(src, "hooks/state"), "names")
            nsz, tsz, ssz = struct.unpack("<HHH", data[at + 2:at + 8])
            ref = at + 8 + sum((k + 7) // 8 * 8 for k in (nsz, tsz, ssz))  # version 1: padded parts
            n, addr, idx = struct.unpack("<IQI", data[ref:ref + 16])
            if data[at] != 1 or n != 0 or addr == 0:
                raise SystemExit("names is not an empty string in the heap (%d bytes at %d)" % (n, addr))
            data[ref + 12:ref + 16] = struct.pack("<I", 0xFFFFFF00 | idx)
        elif case in ("attr_space_size", "next_gid_space_size"):
            # an attribute message's dataspace size one byte larger (8 -> 9, padded to 16), as
            # tests/fuzz did to /bodies next_gid: its data then lies past the message
            obj, name = (None, "format_version") if case == "attr_space_size" else ("bodies", "next_gid")
            at = attr_message(data, header_addr(src, obj), name)
            ssz = struct.unpack("<H", data[at + 6:at + 8])[0]
            data[at + 6:at + 8] = struct.pack("<H", ssz + 1)
        elif case == "root_btree_addr":  # the root group's B-tree address 8 bytes off (tests/fuzz: fuzz_fclib)
            at = symbol_table_message(data, header_addr(src, None))
            btree = struct.unpack("<Q", data[at:at + 8])[0]
            data[at:at + 8] = struct.pack("<Q", btree + 8)
        elif case == "root_heap_reserved":
            # the root group's name heap with a reserved byte set and a data size of 256 TB (tests/fuzz:
            # fuzz_checkpoint); HDF5 skips the reserved bytes and allocates the size before reading
            at = symbol_table_message(data, header_addr(src, None))
            heap = struct.unpack("<Q", data[at + 8:at + 16])[0]
            data[heap + 5] = 1
            data[heap + 8:heap + 16] = struct.pack("<Q", 0x1000000000100)
        elif case == "root_cont_length":
            # the length of the root group header's continuation block 2^55 (tests/fuzz: fuzz_checkpoint):
            # H5Fopen allocates it when it loads the root group
            at = continuation(data, header_addr(src, None)) + 8
            data[at:at + 8] = struct.pack("<Q", 1 << 55)
        elif case == "base_cont_length":
            # the superblock's base address 256 and the length of /bodies' continuation block
            # 0xf1000000000058 (tests/fuzz: fuzz_scene): HDF5 reads the file from the superblock's own
            # address whatever the base says, and allocates the length when a lookup loads /bodies
            data[24:32] = struct.pack("<Q", 256)
            at = continuation(data, header_addr(src, "bodies")) + 8
            data[at:at + 8] = struct.pack("<Q", 0xF1000000000058)
        elif case == "contiguous_extent":  # FCLIB M/p: 4e9 values, a stored size of 42 TB (tests/fuzz: fuzz_fclib)
            addr = header_addr(src, "fclib_global/M/p")
            space = message(data, addr, 0x0001)  # dataspace: version, rank, flags, then the dimensions
            version, rank, flags = data[space], data[space + 1], data[space + 2]
            dims = space + (8 if version == 1 else 4)
            data[dims:dims + 8] = struct.pack("<Q", 4278190129)
            if flags & 1:  # the maximum dimensions follow the dimensions
                data[dims + 8 * rank:dims + 8 * rank + 8] = struct.pack("<Q", 4278190129)
            layout = message(data, addr, 0x0008)  # version 3, contiguous: address, then size
            if data[layout] != 3 or data[layout + 1] != 1:
                raise SystemExit("M/p is not a version-3 contiguous dataset")
            data[layout + 10:layout + 18] = struct.pack("<Q", 0x25F800000000)
        elif case == "chunk_rank":  # /bodies/shape's layout class 1 -> 2 (chunked), dimensionality 0 (tests/fuzz: fuzz_scene)
            layout = message(data, header_addr(src, "bodies/shape"), 0x0008)
            if data[layout] != 3 or data[layout + 1] != 1:
                raise SystemExit("/bodies/shape is not a version-3 contiguous dataset")
            data[layout + 1] = 2
            data[layout + 2] = 0
        elif case == "name_heap_size":  # the first group name heap's data size 16 GB (tests/fuzz)
            at = data.find(b"HEAP\0\0\0\0")
            data[at + 8:at + 16] = struct.pack("<Q", 0x4000000B0)
        elif case == "name_heap_loop":  # the first group name heap's free list points to itself
            at = data.find(b"HEAP\0\0\0\0")
            head = struct.unpack("<Q", data[at + 16:at + 24])[0]
            dseg = struct.unpack("<Q", data[at + 24:at + 32])[0]
            if head == 1:
                raise SystemExit("the name heap has no free list")
            data[dseg + head:dseg + head + 8] = struct.pack("<Q", head)
        else:
            raise SystemExit("unknown case " + case)
    open(dst, "wb").write(data)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    if sys.argv[1] == "compact_friction":
        open(sys.argv[3], "wb").write(open(sys.argv[2], "rb").read())
    edit(sys.argv[1], sys.argv[2], sys.argv[3])
