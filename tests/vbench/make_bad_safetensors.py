#!/usr/bin/env python3
"""Regenerates the bad safetensors files of tests/data/bad/vbench from a good one written by
`vbench init --n-layer 1 --n-head 1 --n-embd 4 --vocab 11 --block 8 --seed 5 -o tiny.safetensors`.

Usage: make_bad_safetensors.py tiny.safetensors OUT_DIR
The exit code and error each file must give are rows of tests/data/bad/EXPECTATIONS.tsv (checked by
tests/hardening/bad_inputs_check.py); regenerating changes sizes and offsets, so rerun that check and update them.
"""
import os
import json
import struct
import sys


def split(path):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    return json.loads(raw[8:8 + n]), raw[8 + n:]


def write(name, header, data):
    raw(name, json.dumps(header).encode(), data)


def raw(name, text, data=b"", length=None):
    """A file of a u64 header length (that of `text` unless given), `text` and `data`."""
    with open(name, "wb") as f:
        f.write(struct.pack("<Q", len(text) if length is None else length) + text + data)


def main():
    header, data = split(sys.argv[1])
    os.chdir(sys.argv[2])
    # Truncated: the data buffer lost its last 8 bytes.
    write("truncated.safetensors", header, data[:-8])
    h = json.loads(json.dumps(header))
    h["wte.weight"]["dtype"] = "I32"
    write("wrong_dtype.safetensors", h, data)
    write("missing_tensor.safetensors", {k: v for k, v in header.items() if k != "h.0.mlp.c_fc.bias"}, data)
    h = json.loads(json.dumps(header))
    h["ln_f.weight"]["shape"] = [2, 2]
    write("misshaped_tensor.safetensors", h, data)
    h = json.loads(json.dumps(header))
    h["wpe.weight"]["data_offsets"] = [len(data), len(data) + 128]
    write("offsets_out_of_range.safetensors", h, data)
    # Huge numbers: a shape whose element count overflows 64 bits, an offset past 2^64.
    h = json.loads(json.dumps(header))
    h["ln_f.weight"]["shape"] = [1 << 32, (1 << 32) + 1]
    write("huge_shape.safetensors", h, data)
    h = json.loads(json.dumps(header))
    h["ln_f.weight"]["data_offsets"] = [0, 1 << 70]
    write("huge_offset.safetensors", h, data)
    raw("header_over_size.safetensors", b"a header that is not there", length=4096)
    raw("header_over_limit.safetensors", b"a header that is not there", length=1 << 40)
    raw("bad_header_json.safetensors", b"{not json}")
    raw("deep_nesting.safetensors", b'{"__metadata__": ' + b"[" * 1000 + b"]" * 1000 + b"}")
    # A tensor name whose bytes are not UTF-8 (JSON text must be).
    raw("invalid_utf8.safetensors", json.dumps(header).encode().replace(b'"wte.weight"', b'"wte\xff.weight"'), data)
    open("empty.safetensors", "wb").close()


if __name__ == "__main__":
    main()
