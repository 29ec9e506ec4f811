#!/usr/bin/env python3
"""Writes hostile fuzz seeds derived from a target's fixture corpus: names of 30,000+ characters, numbers at the
limits of their types (int64, uint64, 2^53 + 1, the largest double, -0), and nesting just under the readers' depth
limit. Mutating the fixtures keeps the seeds valid enough to reach the code past each reader; libFuzzer sizes its
inputs (-max_len) from the largest seed, so these also let it grow inputs that long.

usage: fuzz_seeds.py KIND CORPUS_DIR OUT_DIR      KIND: json ttgir dot log safetensors raw blocks
"""
import json
import os
import re
import struct
import sys

LONG = 30_000
INT_LIMITS = [2**63 - 1, -(2**63), 2**64 - 1, 2**53 + 1, -1]
FLOAT_LIMITS = [1.7976931348623157e308, 5e-324, -0.0]
DEPTH = 250  # libcommon refuses JSON nested deeper than 256 levels: stay just inside


MAX_LONG = 2  # names made long per seed: enough to reach every place a name goes, small enough to run fast


def long_name(seed):
    unit = (seed or "k") + "_\u00e9\u6f22"  # multi-byte UTF-8 too: cutting a long name must not split a character
    return (unit * (LONG // len(unit) + 1))[: LONG + 7]


budget = [0]  # long names left to place in the document being mapped


def map_json(value, key_fn, int_fn, float_fn, key=None):
    if isinstance(value, dict):
        return {key_fn(k, True): map_json(v, key_fn, int_fn, float_fn, k) for k, v in value.items()}
    if isinstance(value, list):
        return [map_json(v, key_fn, int_fn, float_fn, key) for v in value]
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int_fn(value)
    if isinstance(value, float):
        return float_fn(value)
    if (isinstance(value, str) and key is not None and ("name" in key or key in ("kernel", "label", "config", "id"))
            and budget[0] > 0):
        budget[0] -= 1
        return long_name(value)
    return value


def nested(depth):
    return json.loads("[" * depth + "{\"a\": 1}" + "]" * depth)


def json_seeds(corpus, out):
    # The smallest documents of each format: large fixtures make every run of the target slow.
    files = sorted((f for f in os.listdir(corpus) if f.endswith(".json")),
                   key=lambda f: os.path.getsize(os.path.join(corpus, f)))[:6]
    for f in files:
        try:
            doc = json.load(open(os.path.join(corpus, f), encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        if not isinstance(doc, dict) or "format" not in doc:
            continue
        stem = f[: -len(".json")]
        # Keys of benchmarks (config names) are names too.
        def key_fn(k, _):
            return k
        budget[0] = MAX_LONG
        long_doc = map_json(doc, key_fn, lambda v: v, lambda v: v)
        if isinstance(long_doc.get("benchmarks"), dict):
            long_doc["benchmarks"] = {(long_name(k) if i == 0 else k): v
                                      for i, (k, v) in enumerate(long_doc["benchmarks"].items())}
        write(out, stem + ".long_names.json", json.dumps(long_doc))
        # One part of the document at a time (kernels, benchmarks, ...), so that a limit refused early in one part
        # does not hide the code reading the others.
        for part, value in doc.items():
            if not isinstance(value, (dict, list)) or part == "tool":
                continue
            for i, lim in enumerate(INT_LIMITS):
                limited = dict(doc)
                limited[part] = map_json(value, key_fn, lambda v, lim=lim: lim,
                                         lambda v, i=i: FLOAT_LIMITS[i % len(FLOAT_LIMITS)], part)
                write(out, "%s.%s.limits%d.json" % (stem, part, i), json.dumps(limited))
        deep = dict(doc)
        deep["x_deep"] = nested(DEPTH - 2)
        write(out, stem + ".nested.json", json.dumps(deep))


def text_seeds(corpus, out, ext, name_re, number_re):
    for f in sorted(os.listdir(corpus)):
        path = os.path.join(corpus, f)
        if not os.path.isfile(path) or not f.endswith(ext):
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        stem = f[: -len(ext)]
        write(out, stem + ".long_names" + ext, re.sub(name_re, lambda m: m.group(1) + long_name(m.group(2)), text,
                                                              count=MAX_LONG))
        for i, lim in enumerate(INT_LIMITS[:4]):
            write(out, "%s.limits%d%s" % (stem, i, ext), re.sub(number_re, str(abs(lim)), text))


def ttgir_seeds(corpus, out):
    text_seeds(corpus, out, ".ttgir", r"(@|loc\(\")([A-Za-z_][A-Za-z0-9_]*)", r"(?<=[<x])\d+(?=x)")
    # Deep loc(callsite(...)) chains.
    write(out, "deep_loc.ttgir", "#loc = loc(" + "callsite(" * DEPTH + "unknown" + " at unknown)" * DEPTH + ")\n"
          "module {\n}\n")


def dot_seeds(corpus, out):
    text_seeds(corpus, out, ".dot", r"(label=\")([A-Za-z_][A-Za-z0-9_]*)", r"(?<=size=)\d+|\d+(?= to )")
    write(out, "deep_subgraphs.dot", "digraph G {\n" + "subgraph cluster_x {\n" * DEPTH + "a;\n" + "}\n" * DEPTH + "}\n")


def log_seeds(corpus, out):
    text_seeds(corpus, out, ".log", r"(@|label=\")([A-Za-z_][A-Za-z0-9_]*)", r"(?<=size=)\d+|(?<=[<x])\d+(?=x)")


def safetensors(header, data=b""):
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + data


def safetensors_seeds(_corpus, out):
    t = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
    write(out, "long_name.safetensors", safetensors({long_name("ln_f.weight"): t}, b"\0" * 8), binary=True)
    for i, lim in enumerate(INT_LIMITS[:3]):
        write(out, "shape_limit%d.safetensors" % i,
              safetensors({"w": {"dtype": "F32", "shape": [abs(lim), 1], "data_offsets": [0, 8]}}, b"\0" * 8), True)
        write(out, "offset_limit%d.safetensors" % i,
              safetensors({"w": {"dtype": "F32", "shape": [2], "data_offsets": [abs(lim) - 8, abs(lim)]}}, b"\0" * 8),
              True)
    write(out, "deep_metadata.safetensors", safetensors({"__metadata__": {"x": nested(DEPTH - 3)}, "w": t}, b"\0" * 8),
          True)


def frame(tag, payload):
    return struct.pack("<II", tag, len(payload)) + payload


def raw_seeds(_corpus, out):
    u64 = 2**64 - 1
    process = frame(1, struct.pack("<qQ", 2**63 - 1, u64))
    name = long_name("_Z6kernelPf").encode()
    device = frame(2, struct.pack("<IIIIQ", 0, 9, 0, 2**32 - 1, u64) + name)
    # start > end, grid and block at int32 limits, byte counts at uint64 limits.
    kernel = frame(3, struct.pack("<QQIIII3i3i3IIiiIIQQII", u64, 0, 0, 1, 7, 1, 2**31 - 1, 2**31 - 1, 2**31 - 1,
                                  -(2**31), 1, 1, 2**32 - 1, 1, 1, 255, 2**31 - 1, -1, 2**32 - 1, 1, u64, u64,
                                  2**32 - 1, 0) + name)
    memcpy = frame(4, struct.pack("<QQQIIIIII", 0, u64, u64, 1, 0, 1, 7, 2, 0))
    alloc = frame(6, struct.pack("<QQQIIII", 1, u64 - 15, u64, 1, 2, 0, 1))
    end = frame(10, b"")
    write(out, "limits.bin", b"VTRAW001" + process + device + kernel + memcpy + alloc + end, True)


def blocks_seeds(_corpus, out):
    write(out, "every_u64max", "every:%d" % (2**64 - 1))
    write(out, "every_past_u64", "every:%d" % 2**64)
    write(out, "range_u64", "0-%d" % (2**64 - 1))
    write(out, "long_list", ",".join(str(i) for i in range(7000)))  # about 33,000 characters
    write(out, "long_digits", "1" * LONG)


def write(out, name, content, binary=False):
    with open(os.path.join(out, name), "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
        f.write(content)


KINDS = {"json": json_seeds, "ttgir": ttgir_seeds, "dot": dot_seeds, "log": log_seeds,
         "safetensors": safetensors_seeds, "raw": raw_seeds, "blocks": blocks_seeds}

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in KINDS:
        sys.exit(__doc__)
    os.makedirs(sys.argv[3], exist_ok=True)
    KINDS[sys.argv[1]](sys.argv[2], sys.argv[3])
