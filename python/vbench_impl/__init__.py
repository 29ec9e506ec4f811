"""The implementation's side of vbench's external-forward protocol (`vbench run --impl CMD`, man vbench(1),
IMPLEMENTATIONS; messages in schemas/vbench.impl.schema.json).

vbench starts CMD with a JSON request on standard input; this module reads it, loads the weights (vbench init's
safetensors, GPT-2 names) and the tokens, builds your forward, writes its logits for the gate, times it (CUDA events
around each forward on a GPU, the host clock on the CPU; the caches flushed untimed before each forward with
`caches: cold`) and writes the reply. vbench computes every statistic from the raw samples.

    import vbench_impl

    def make_forward(request, weights):       # weights: {GPT-2 name: float32 numpy array}
        model = build_my_model(request.config, weights, request.dtype)
        return lambda tokens: model(tokens)   # tokens [B][T]; returns logits [B][T][V]

    vbench_impl.serve(make_forward, name="my-gpt", version="0.3", on="cuda")

Adapters shipped: vbench_impl.numpy_gpt (numpy, CPU), vbench_impl.torch_gpt (minGPT, eager or --compile),
vbench_impl.hf_gpt2 (transformers GPT2LMHeadModel). Run one as `vbench run --impl 'python3 -m vbench_impl.hf_gpt2'`:
vbench puts this module's folder on PYTHONPATH (from a checkout: PYTHONPATH=<checkout>/python).
"""
import json
import os
import struct
import sys
import time
import traceback

PROTOCOL = "vbench.impl"
VERSION = 1  # keep in sync with tools/vbench/impl_protocol.hpp and schemas/vbench.impl.schema.json


class ProtocolError(Exception):
    """A request this module cannot serve; serve() prints it as one line and exits 1."""


class Request:
    """The request: config (dict: name, n_layer, n_head, n_embd, vocab_size, block_size, tied_head), dtype
    (fp32|tf32|bf16), batch_size, seq_len, weights, tokens, warmup, iters, min_time_s, repetitions, caches
    (warm|cold), gpu (int or None), logits (path or None: no gate), reply (path)."""

    def __init__(self, fields):
        if fields.get("protocol") != PROTOCOL or fields.get("version") != VERSION:
            raise ProtocolError(f"expected a {PROTOCOL} version {VERSION} request, got "
                                f"{fields.get('protocol')!r} version {fields.get('version')!r}")
        self.__dict__.update(fields)


def read_request(stream=None):
    text = (stream or sys.stdin).read()
    try:
        return Request(json.loads(text))
    except json.JSONDecodeError as e:
        raise ProtocolError(f"the request on standard input is not JSON: {e}") from None


def read_safetensors(path):
    """({name: float32 numpy array}, __metadata__) of a safetensors file (https://huggingface.co/docs/safetensors:
    8-byte little-endian header size N, N bytes of JSON {name: {dtype, shape, data_offsets}}, then the data). F32 as
    is; BF16 and F16 widened. A leading "transformer." is dropped from names (Hugging Face checkpoints)."""
    import numpy as np
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ProtocolError(f"{path}: truncated safetensors file")
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        raise ProtocolError(f"{path}: header of {n} bytes runs past the end of the file")
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {}) or {}
    data = memoryview(raw)[8 + n:]
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        buf = data[begin:end]
        if info["dtype"] == "F32":
            arr = np.frombuffer(buf, dtype="<f4").copy()  # writable, as torch.as_tensor wants
        elif info["dtype"] == "F16":
            arr = np.frombuffer(buf, dtype="<f2").astype(np.float32)
        elif info["dtype"] == "BF16":
            arr = (np.frombuffer(buf, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            raise ProtocolError(f"{path}: tensor '{name}' has unsupported dtype {info['dtype']}")
        key = name[len("transformer."):] if name.startswith("transformer.") else name
        tensors[key] = arr.reshape(info["shape"])
    return tensors, meta


def read_tokens(request):
    """The tokens as int32 numpy [B][T]."""
    import numpy as np
    tokens = np.fromfile(request.tokens, dtype="<i4")
    if tokens.size != request.batch_size * request.seq_len:
        raise ProtocolError(f"{request.tokens}: {tokens.size} tokens, expected {request.batch_size}x{request.seq_len}")
    return tokens.reshape(request.batch_size, request.seq_len)


class CpuDevice:
    """Host timing (time.perf_counter_ns around each forward); cold caches: a 64 MiB read first."""

    name = "cpu"

    def __init__(self):
        self.flush_buffer = None

    def inputs(self, tokens):
        return tokens

    def logits(self, out):
        import numpy as np
        return np.ascontiguousarray(np.asarray(out, dtype=np.float32))

    def flush(self):
        import numpy as np
        if self.flush_buffer is None:
            self.flush_buffer = np.ones(64 << 18, dtype=np.float32)
        self.flush_buffer.sum()

    def time(self, forward, inputs, count, cold, before):
        samples = []
        for _ in range(count):
            if cold:
                self.flush()
            before()
            t0 = time.perf_counter_ns()
            forward(inputs)
            samples.append((time.perf_counter_ns() - t0) / 1e6)
        return samples


class CudaDevice:
    """CUDA-event timing (an event pair around each forward, read after one synchronize); cold caches: a read of
    twice the L2 size first, untimed (as vbench's cuda backend flushes)."""

    def __init__(self, gpu):
        import torch
        if not torch.cuda.is_available():
            raise ProtocolError("no CUDA device visible to PyTorch")
        self.torch = torch
        self.device = torch.device("cuda", gpu or 0)
        torch.cuda.set_device(self.device)
        self.name = torch.cuda.get_device_name(self.device)
        self.flush_buffer = None

    def inputs(self, tokens):
        return self.torch.from_numpy(tokens.astype("int64")).to(self.device)

    def logits(self, out):
        return out.float().cpu().numpy()

    def flush(self):
        if self.flush_buffer is None:
            props = self.torch.cuda.get_device_properties(self.device)
            l2 = getattr(props, "L2_cache_size", 0) or (50 << 20)
            self.flush_buffer = self.torch.zeros(2 * l2 // 4, dtype=self.torch.int32, device=self.device)
        self.flush_buffer.sum()

    def time(self, forward, inputs, count, cold, before):
        torch = self.torch
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
        torch.cuda.synchronize()
        for i in range(count):
            if cold:
                self.flush()
            before()
            starts[i].record()
            forward(inputs)
            ends[i].record()
        torch.cuda.synchronize()
        return [s.elapsed_time(e) for s, e in zip(starts, ends)]


def time_repetition(device, forward, inputs, request, before):
    """One repetition: warm-up, `iters` timed forwards, then more until they add up to min_time_s."""
    cold = request.caches == "cold"
    if request.warmup:
        device.time(forward, inputs, request.warmup, cold, before)
    samples = device.time(forward, inputs, request.iters, cold, before)
    while sum(samples) < 1e3 * request.min_time_s and len(samples) < 100000:
        mean = sum(samples) / len(samples)
        more = int(min(max(1, (1e3 * request.min_time_s - sum(samples)) / mean), 100000 - len(samples)))
        samples += device.time(forward, inputs, more, cold, before)
    return samples


def write_atomic(path, data):
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def serve(make_forward, *, name, version="", on="cpu", before_each=None, notes=(), request=None):
    """Runs the protocol for `make_forward(request, weights) -> forward` (weights: {GPT-2 name: float32 numpy
    array}; forward(tokens) -> logits [B][T][V], tokens a CUDA int64 tensor with on="cuda", else int32 numpy).
    `name` may be a function of the request. `before_each`: called before every forward, untimed (e.g.
    torch.compiler.cudagraph_mark_step_begin). Exits the process: 0 after the reply, 1 with one line on stderr."""
    prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "vbench_impl"
    try:
        request = request or read_request()
        device = CudaDevice(request.gpu) if on == "cuda" else CpuDevice()
        weights, _ = read_safetensors(request.weights)
        forward = make_forward(request, weights)
        del weights
        inputs = device.inputs(read_tokens(request))
        before = before_each or (lambda: None)
        if request.logits:
            before()
            logits = device.logits(forward(inputs))
            want = (request.batch_size, request.seq_len, request.config["vocab_size"])
            if tuple(logits.shape) != want:
                raise ProtocolError(f"the forward returned logits of shape {tuple(logits.shape)}, expected {want}")
            write_atomic(request.logits, logits.astype("<f4").tobytes())
            del logits
        reps = [{"samples_ms": time_repetition(device, forward, inputs, request, before)}
                for _ in range(request.repetitions)]
        reply = {"protocol": PROTOCOL, "version": VERSION,
                 "implementation": {"name": name(request) if callable(name) else name, "version": version,
                                    "device": device.name},
                 "repetitions": reps, "notes": list(notes)}
        write_atomic(request.reply, (json.dumps(reply) + "\n").encode())
    except ProtocolError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # the forward's own failure: one line, then the traceback for its author
        print(f"{prog}: error: {type(e).__name__}: {e}", file=sys.stderr)
        traceback.print_exc()
        sys.exit(1)
    sys.exit(0)
