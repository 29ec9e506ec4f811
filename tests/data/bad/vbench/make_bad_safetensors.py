#!/usr/bin/env python3
"""Regenerates the bad safetensors files of this folder from a good one written by
`vbench init --n-layer 1 --n-head 1 --n-embd 4 --vocab 11 --block 8 --seed 5 -o tiny.safetensors`.

Usage: make_bad_safetensors.py tiny.safetensors
Each file states its expected exit code and error (after 'vbench: error: <file>: ') in its header's __metadata__
"expect" entry, or, where the header cannot be parsed, in the bytes after the length field. The CLI tests in
tests/vbench/CMakeLists.txt assert the same text.
"""
import json
import struct
import sys


def split(path):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    return json.loads(raw[8:8 + n]), raw[8 + n:]


def write(name, header, data, expect):
    header = dict(header)
    header["__metadata__"] = dict(header.get("__metadata__", {}), expect=expect)
    text = json.dumps(header).encode()
    open(name, "wb").write(struct.pack("<Q", len(text)) + text + data)


def main():
    header, data = split(sys.argv[1])
    # Truncated: the data buffer lost its last 8 bytes.
    last = max((k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"][1])
    end = header[last]["data_offsets"][1]
    write("truncated.safetensors", header, data[:-8],
          f"exit 65: tensor '{last}': data_offsets [{header[last]['data_offsets'][0]}, {end}] out of range of the "
          f"data buffer ({end - 8} bytes)")
    h = json.loads(json.dumps(header))
    h["wte.weight"]["dtype"] = "I32"
    write("wrong_dtype.safetensors", h, data, "exit 65: tensor 'wte.weight' has dtype I32; expected F32, BF16 or F16")
    h = {k: v for k, v in header.items() if k != "h.0.mlp.c_fc.bias"}
    write("missing_tensor.safetensors", h, data, "exit 65: missing tensor 'h.0.mlp.c_fc.bias' (config 'custom' needs [16])")
    h = json.loads(json.dumps(header))
    h["ln_f.weight"]["shape"] = [2, 2]
    write("misshaped_tensor.safetensors", h, data, "exit 65: tensor 'ln_f.weight' has shape [2, 2]; config 'custom' needs [4]")
    h = json.loads(json.dumps(header))
    h["wpe.weight"]["data_offsets"] = [len(data), len(data) + 128]
    write("offsets_out_of_range.safetensors", h, data,
          f"exit 65: tensor 'wpe.weight': data_offsets [{len(data)}, {len(data) + 128}] out of range of the data buffer "
          f"({len(data)} bytes)")
    note = b"expect exit 65: safetensors header of 4096 bytes runs past the end of the file"
    open("header_over_size.safetensors", "wb").write(struct.pack("<Q", 4096) + note)
    note = b"expect exit 65: safetensors header of 1099511627776 bytes is over the limit of 100000000"
    open("header_over_limit.safetensors", "wb").write(struct.pack("<Q", 1 << 40) + note)
    text = b"{expect exit 65: invalid JSON in the header}"
    open("bad_header_json.safetensors", "wb").write(struct.pack("<Q", len(text)) + text)


if __name__ == "__main__":
    main()
