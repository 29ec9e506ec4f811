#!/usr/bin/env python3
"""PyTorch peer of vbench (superseded by `vbench run --impl 'python3 -m vbench_impl.torch_gpt [--compile]'`, which
puts the same model through vbench's gate and statistics): the same GPT forward (minGPT architecture, GPT-2 tensor names) on the same weights.

Loads one or more .safetensors files written by `vbench init --config X -o w.safetensors` (the config comes from the
file's __metadata__), times the forward in eager mode and with torch.compile(mode="reduce-overhead") using CUDA events
around each call, and writes one vtools.bench document per mode (backend "pytorch-eager" / "pytorch-compile") plus
each model's logits as float32 .npy [B][T][V] for the cross-check with vbench (bench/gpu-vbench.sh).

    torch_gpt.py --weights nano.safetensors gpt2.safetensors --dtype bf16 -B 4 -T 64 \
        --compile-configs gpt_nano,gpt2 --out-eager eager.json --out-compile compile.json --logits-dir logits/

-B and -T take lists too (-B 1,4,16): every model at every (B, T), keyed "<config>/B:<b>/T:<t>" as `vbench run`
keys a sweep, so `vbench compare` pairs them; the logits files are then named <config>.B<b>.T<t>.<dtype>.<backend>.npy.

Tokens: --tokens FILE.npy (int32 [B][T], e.g. from vbench_cuda_logits --tokens-out), else vbench's own seeded
tokens (tools/vbench/harness.hpp make_tokens: SplitMix64 from seed ^ fnv1a64("tokens"), token = next() % V).
"""
import argparse
import datetime
import json
import os
import socket
import struct
import sys

import numpy as np
import torch

# The model is the vbench_impl helper's (python/vbench_impl/torch_gpt.py), the one `vbench run --impl
# 'python3 -m vbench_impl.torch_gpt [--compile]'` times through vbench's gate and statistics; this script keeps its
# command line and documents for the scripts that call it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from vbench_impl.torch_gpt import Gpt  # noqa: E402

MASK64 = (1 << 64) - 1


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & MASK64
    return h


def vbench_tokens(B, T, V, seed):
    """vbench's make_tokens: SplitMix64 (Steele et al. 2014) from seed ^ fnv1a64("tokens"), next() % V."""
    state = (seed ^ fnv1a64("tokens")) & MASK64
    out = np.empty(B * T, dtype=np.int64)
    for i in range(B * T):
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        out[i] = (z ^ (z >> 31)) % V
    return out.reshape(B, T)


def read_safetensors(path):
    """(tensors as float32 torch tensors by name, __metadata__). Format: 8-byte little-endian header size N, N bytes
    of JSON {name: {dtype, shape, data_offsets}}, then the data (https://github.com/huggingface/safetensors)."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise SystemExit(f"torch_gpt.py: error: {path}: truncated safetensors file")
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        raise SystemExit(f"torch_gpt.py: error: {path}: header of {n} bytes runs past the end of the file")
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {}) or {}
    data = memoryview(raw)[8 + n:]
    tensors = {}
    try:
        from safetensors.torch import load_file  # the reference reader, when installed
        loaded = load_file(path)
        tensors = {k: v.float() for k, v in loaded.items()}
    except ImportError:
        for name, info in header.items():
            begin, end = info["data_offsets"]
            buf = data[begin:end]
            if info["dtype"] == "F32":
                arr = np.frombuffer(buf, dtype="<f4")
            elif info["dtype"] == "F16":
                arr = np.frombuffer(buf, dtype="<f2").astype(np.float32)
            elif info["dtype"] == "BF16":
                arr = (np.frombuffer(buf, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
            else:
                raise SystemExit(f"torch_gpt.py: error: {path}: tensor '{name}' has unsupported dtype {info['dtype']}")
            tensors[name] = torch.from_numpy(arr.copy()).reshape(info["shape"])
    tensors = {k[len("transformer."):] if k.startswith("transformer.") else k: v for k, v in tensors.items()}
    return tensors, meta


def config_from_metadata(meta, path):
    try:
        return {
            "name": meta.get("config", os.path.basename(path)),
            "n_layer": int(meta["n_layer"]), "n_head": int(meta["n_head"]), "n_embd": int(meta["n_embd"]),
            "vocab_size": int(meta["vocab_size"]), "block_size": int(meta["block_size"]),
            "tied_head": meta.get("tied_head", "true") == "true",
        }
    except KeyError as e:
        raise SystemExit(f"torch_gpt.py: error: {path}: __metadata__ lacks {e} (write it with `vbench init`)")


def l2_flusher(caches):
    """None for warm caches; for cold, a function that reads twice the L2 size of zeros (vbench run --caches cold
    flushes the same amount; a read leaves clean lines, where a memset's dirty ones would be written back while the
    next forward runs)."""
    if caches != "cold":
        return None
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 0) or (50 << 20)
    buf = torch.zeros(2 * l2 // 4, dtype=torch.int32, device="cuda")
    return lambda: buf.sum()


def time_calls(fn, idx, warmup, iters, mark_step, flush=None):
    """Milliseconds per call from a CUDA event pair around each of `iters` calls after `warmup` untimed ones; with
    `flush`, it runs (untimed) before every call."""
    for _ in range(warmup):
        if mark_step:
            torch.compiler.cudagraph_mark_step_begin()
        if flush:
            flush()
        fn(idx)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        if mark_step:
            torch.compiler.cudagraph_mark_step_begin()
        if flush:
            flush()
        starts[i].record()
        fn(idx)
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]


def timing_summary(samples):
    """vbench's statistics: mean, sample std (0 for n < 2), min, max, percentiles by linear interpolation."""
    a = np.asarray(samples, dtype=np.float64)
    pct = {f"p{p}": float(np.percentile(a, p)) for p in (5, 25, 75, 95, 99)}
    return {"mean": float(a.mean()), "std": float(a.std(ddof=1)) if a.size > 1 else 0.0, "min": float(a.min()),
            "max": float(a.max()), "median": float(np.median(a)), "p5": pct["p5"], "p25": pct["p25"],
            "p75": pct["p75"], "p95": pct["p95"], "p99": pct["p99"], "n": int(a.size), "samples_ms": list(map(float, a))}


def shape_list(text, flag):
    """'1,4,16' -> [1, 4, 16]: positive, each once (as vbench's -B/-T lists)."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise SystemExit(f"torch_gpt.py: error: {flag} takes integers separated by commas, not '{text}'")
    if any(v <= 0 for v in values) or len(set(values)) != len(values):
        raise SystemExit(f"torch_gpt.py: error: {flag} values must be positive and listed once: '{text}'")
    return values


def bench_document(backend, args, results, notes):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    major, minor = torch.cuda.get_device_capability()
    props = torch.cuda.get_device_properties(0)
    doc = {
        "format": "vtools.bench", "version": 1, "tool": {"name": "torch_gpt.py", "version": torch.__version__},
        "created": now,
        "metadata": {
            "timestamp": now, "gpu_name": torch.cuda.get_device_name(), "compute_capability": f"{major}.{minor}",
            "cuda_version": torch.version.cuda, "device_name": torch.cuda.get_device_name(),
            "sm_count": props.multi_processor_count, "memory_bytes": props.total_memory, "backend": backend,
            "dtype": args.dtype, "batch_size": args.batches[0] if len(args.shapes) == 1 else None,
            "seq_len": args.seqs[0] if len(args.shapes) == 1 else None, "warmup": args.warmup,
            "iters": args.iters, "caches": args.caches, "seed": args.seed, "weights": " ".join(args.weights),
            "host": socket.gethostname(),
            "command_line": " ".join(sys.argv), "torch_version": torch.__version__, "notes": notes,
        },
        "benchmarks": results,
    }
    if len(args.shapes) > 1:
        doc["metadata"]["sweep"] = {"batch_sizes": args.batches, "seq_lens": args.seqs}
    return doc


def write_json(path, doc):
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weights", nargs="+", required=True, help=".safetensors files from `vbench init`")
    ap.add_argument("--dtype", choices=["fp32", "tf32", "bf16"], default="fp32")
    ap.add_argument("-B", "--batch", default="4", help="batch size, or a list 1,4,16 (a sweep, as vbench run's)")
    ap.add_argument("-T", "--seq", default="64", help="sequence length, or a list 64,128")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--caches", choices=["warm", "cold"], default="warm",
                    help="cold: read twice the L2 size before each forward, untimed (as vbench run --caches cold)")
    ap.add_argument("--seed", type=int, default=1337, help="vbench's token seed (when --tokens is not given)")
    ap.add_argument("--tokens", help="int32 .npy [B][T] to run instead of vbench's seeded tokens")
    ap.add_argument("--compile-configs", default="", help="configs to also time with torch.compile (a,b; 'all')")
    ap.add_argument("--out-eager", required=True, help="vtools.bench document for pytorch-eager")
    ap.add_argument("--out-compile", help="vtools.bench document for pytorch-compile")
    ap.add_argument("--logits-dir", help="write <config>.<dtype>.<backend>.npy (float32 [B][T][V]) here")
    args = ap.parse_args()
    args.batches, args.seqs = shape_list(args.batch, "--batch"), shape_list(args.seq, "--seq")
    args.shapes = [(b, t) for b in args.batches for t in args.seqs]  # batches outer, as vbench run
    if args.tokens and len(args.shapes) > 1:
        raise SystemExit("torch_gpt.py: error: --tokens holds one [B][T]; it cannot go with a list of B or T")
    if not torch.cuda.is_available():
        print("torch_gpt.py: error: no CUDA device visible to PyTorch", file=sys.stderr)
        return 69
    torch.set_float32_matmul_precision("high" if args.dtype == "tf32" else "highest")  # "highest": no tf32
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float32
    compile_set = set(filter(None, args.compile_configs.split(",")))
    if args.logits_dir:
        os.makedirs(args.logits_dir, exist_ok=True)
    results = {"pytorch-eager": {}, "pytorch-compile": {}}
    notes = [f"torch {torch.__version__}", "eager: F.linear + scaled_dot_product_attention(is_causal=True)"]
    for path in args.weights:
        tensors, meta = read_safetensors(path)
        cfg = config_from_metadata(meta, path)
        if max(args.seqs) > cfg["block_size"]:
            raise SystemExit(f"torch_gpt.py: error: sequence length {max(args.seqs)} exceeds the block size of "
                             f"{cfg['name']}")
        model = Gpt(cfg, tensors, dtype, "cuda").eval()
        del tensors
        for batch, seq in args.shapes:
            # A sweep's keys name their shape, as vbench's do ("gpt2/B:4/T:64"), so `vbench compare` pairs them.
            key = cfg["name"] if len(args.shapes) == 1 else f"{cfg['name']}/B:{batch}/T:{seq}"
            if args.tokens:
                tokens = np.load(args.tokens).astype(np.int64).reshape(batch, seq)
            else:
                tokens = vbench_tokens(batch, seq, cfg["vocab_size"], args.seed)
            idx = torch.from_numpy(tokens).to("cuda")
            modes = [("pytorch-eager", model, False)]
            if "all" in compile_set or cfg["name"] in compile_set:
                torch._dynamo.reset()  # no graphs or guards carried over from the previous model or shape
                modes.append(("pytorch-compile", torch.compile(model, mode="reduce-overhead"), True))
            with torch.no_grad():
                for backend, fn, compiled in modes:
                    warmup = max(args.warmup, 3) if compiled else args.warmup  # cudagraph trees record on the 3rd call
                    samples = time_calls(fn, idx, warmup, args.iters, compiled, l2_flusher(args.caches))
                    if compiled:
                        torch.compiler.cudagraph_mark_step_begin()
                    logits = fn(idx).float().cpu().numpy()
                    if args.logits_dir:
                        name = key.replace("/", ".").replace(":", "")
                        np.save(os.path.join(args.logits_dir, f"{name}.{args.dtype}.{backend}.npy"), logits)
                    t = timing_summary(samples)
                    results[backend][key] = {
                        "config": {k: cfg[k] for k in ("n_layer", "n_head", "n_embd", "vocab_size", "block_size",
                                                       "tied_head")},
                        "status": "unchecked", "backend": backend, "dtype": args.dtype, "batch_size": batch,
                        "seq_len": seq, "caches": args.caches, "timing": t,
                        "throughput_tokens_per_sec": 1e3 * batch * seq / t["median"] if t["median"] > 0 else 0,
                    }
                    print(f"{key:<24} {backend:<16} {args.dtype} median {t['median'] * 1e3:9.1f} us", flush=True)
        del model
        torch.cuda.empty_cache()
    write_json(args.out_eager, bench_document("pytorch-eager", args, results["pytorch-eager"], notes))
    if args.out_compile and results["pytorch-compile"]:
        write_json(args.out_compile, bench_document("pytorch-compile", args, results["pytorch-compile"],
                                                    notes + ['torch.compile(mode="reduce-overhead")']))
    return 0


if __name__ == "__main__":
    sys.exit(main())
