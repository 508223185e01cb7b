#!/usr/bin/python3
"""Regenerates the tensor I/O test data in this folder (run with Debian's
/usr/bin/python3; needs numpy and onnx):

  npy/*.npy.bin          small arrays written by numpy itself, plus files the
                         reader must refuse (fortran order, big-endian, object);
                         named .npy.bin because the repository ignores *.npy
  pb/*.pb                TensorProtos written by onnx.helper with the typed
                         fields (float_data, int32_data, ...), not raw_data
  expected.txt           one line per tensor file: path, ONNX dtype, dims and
                         the FNV-1a 64 hash of the little-endian element bytes
                         as numpy sees them (or REFUSE for string tensors)

Values are deterministic: element i of a fixture is f(i) as written below.
"""
import glob
import io
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_DATA = os.path.join(os.environ.get("LOOM_ONNX_TESTDATA") or "/usr/share/libonnx-testdata/data", "node")
NODE_CASES = ["test_relu", "test_add", "test_gather_0"]


def fnv1a64(data: bytes) -> str:
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def values(dtype, n):
    i = np.arange(n)
    if dtype == np.bool_:
        return (i % 3 == 0)
    if np.issubdtype(dtype, np.floating):
        return ((i - n / 2) * 0.75).astype(dtype)
    if np.issubdtype(dtype, np.signedinteger):
        return (i * 37 - 50).astype(dtype)
    return (i * 37).astype(dtype)


def line(rel, data_type, dims, raw):
    return "%s %d %s %s" % (rel, data_type, "x".join(str(d) for d in dims) or "scalar", fnv1a64(raw))


def main():
    os.makedirs(os.path.join(HERE, "npy"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "pb"), exist_ok=True)
    lines = []
    # numpy-written arrays of every supported dtype.
    for code, shape in [("f2", (2, 3)), ("f4", (3, 4)), ("f8", (5,)), ("i1", (4,)), ("i2", (2, 2)),
                        ("i4", (2, 3, 2)), ("i8", (7,)), ("u1", (6,)), ("u2", (3,)), ("u4", (2, 2)),
                        ("u8", (3,)), ("b1", (5,)), ("f4", ()), ("f4", (0, 3))]:
        dtype = np.dtype("?" if code == "b1" else code)
        a = values(dtype.type, int(np.prod(shape))).reshape(shape)
        name = "%s_%s.npy.bin" % (code, "x".join(str(d) for d in shape) or "scalar")
        with open(os.path.join(HERE, "npy", name), "wb") as f:
            np.save(f, a)
        onnx_type = helper.np_dtype_to_tensor_dtype(dtype) if hasattr(helper, "np_dtype_to_tensor_dtype") else \
            onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[dtype]
        lines.append(line("npy/" + name, onnx_type, shape, a.astype(dtype.newbyteorder("<")).tobytes()))
    # A version 2.0 file.
    with open(os.path.join(HERE, "npy", "v2_f4_2x2.npy.bin"), "wb") as f:
        a = values(np.float32, 4).reshape(2, 2)
        np.lib.format.write_array(f, a, version=(2, 0))
    lines.append(line("npy/v2_f4_2x2.npy.bin", 1, (2, 2), a.tobytes()))
    # Files the reader must refuse.
    for name, a in [("bad_fortran", np.asfortranarray(np.ones((2, 3), np.float32))),
                    ("bad_bigendian", np.ones((3,), dtype=">f4")),
                    ("bad_object", np.array([1, "a"], dtype=object))]:
        with open(os.path.join(HERE, "npy", name + ".npy.bin"), "wb") as f:
            np.save(f, a, allow_pickle=True)

    # TensorProtos with typed fields (helper.make_tensor with raw=False).
    typed = [
        ("float_data", onnx.TensorProto.FLOAT, np.float32, (2, 3)),
        ("double_data", onnx.TensorProto.DOUBLE, np.float64, (4,)),
        ("int32_data", onnx.TensorProto.INT32, np.int32, (5,)),
        ("int32_data_int8", onnx.TensorProto.INT8, np.int8, (6,)),
        ("int32_data_uint16", onnx.TensorProto.UINT16, np.uint16, (3,)),
        ("int32_data_bool", onnx.TensorProto.BOOL, np.bool_, (4,)),
        ("int32_data_float16", onnx.TensorProto.FLOAT16, np.float16, (2, 2)),
        ("int64_data", onnx.TensorProto.INT64, np.int64, (3,)),
        ("uint64_data", onnx.TensorProto.UINT64, np.uint64, (3,)),
        ("uint64_data_uint32", onnx.TensorProto.UINT32, np.uint32, (2,)),
        ("scalar_float", onnx.TensorProto.FLOAT, np.float32, ()),
        ("empty_float", onnx.TensorProto.FLOAT, np.float32, (0, 4)),
    ]
    for name, onnx_type, np_type, shape in typed:
        a = values(np_type, int(np.prod(shape))).reshape(shape)
        vals = a.flatten().tolist() if np_type != np.float16 else a.flatten()
        t = helper.make_tensor(name, onnx_type, shape, vals, raw=False)
        data = t.SerializeToString()
        with open(os.path.join(HERE, "pb", name + ".pb"), "wb") as f:
            f.write(data)
        check = numpy_helper.to_array(t)
        assert np.array_equal(check, a), name
        lines.append(line("pb/" + name + ".pb", onnx_type, shape, a.tobytes()))

    # ONNX's own test data (raw_data), checked by path under NODE_DATA.
    for case in NODE_CASES + sorted(os.path.basename(p) for p in glob.glob(NODE_DATA + "/test_cast_*")):
        for path in sorted(glob.glob(os.path.join(NODE_DATA, case, "test_data_set_0", "*.pb"))):
            t = onnx.TensorProto()
            with open(path, "rb") as f:
                t.ParseFromString(f.read())
            rel = "node/" + os.path.relpath(path, NODE_DATA)
            if t.data_type == onnx.TensorProto.STRING:
                lines.append(rel + " REFUSE")
                continue
            raw = t.raw_data if t.HasField("raw_data") else numpy_helper.to_array(t).tobytes()
            lines.append(line(rel, t.data_type, list(t.dims), raw))

    with open(os.path.join(HERE, "expected.txt"), "w") as f:
        f.write("# path dtype dims fnv1a64 -- generated by make_testdata.py\n")
        f.write("\n".join(lines) + "\n")
    print("wrote %d expectations" % len(lines))


if __name__ == "__main__":
    sys.exit(main())
