"""A minGPT forward in numpy (fp32, on the CPU): the protocol's reference implementation and the one its CPU tests
run. `python3 -m vbench_impl.numpy_gpt` serves a request (vbench run --impl 'python3 -m vbench_impl.numpy_gpt').

Test hooks (tests/vbench/CMakeLists.txt), each a way an implementation can go wrong: --scale-logits X (wrong
logits), --sleep S (too slow), --crash (killed by a signal), --exit N, --reply-text TEXT (a reply written as given),
--samples N (that many samples per repetition), --short-logits (a truncated logits file), --name NAME, --copy-reply
PATH (keep a copy of the reply, for the schema test)."""
import argparse
import atexit
import math
import os
import shutil
import signal
import sys
import time

import numpy as np

import vbench_impl


def layer_norm(x, w, b, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def make_forward(request, w):
    cfg = request.config
    C, NH = cfg["n_embd"], cfg["n_head"]
    head = w["wte.weight"] if cfg["tied_head"] else w["lm_head.weight"]
    layers = [{k: w[f"h.{l}.{k}"] for k in (
        "ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.weight", "attn.c_proj.bias",
        "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight", "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias")}
        for l in range(cfg["n_layer"])]
    wte, wpe, lnf_w, lnf_b = w["wte.weight"], w["wpe.weight"], w["ln_f.weight"], w["ln_f.bias"]

    def forward(idx):
        B, T = idx.shape
        hs = C // NH
        x = wte[idx] + wpe[:T]
        mask = np.triu(np.full((T, T), -np.inf, dtype=np.float32), 1)
        for p in layers:
            h = layer_norm(x, p["ln_1.weight"], p["ln_1.bias"])
            qkv = h @ p["attn.c_attn.weight"] + p["attn.c_attn.bias"]
            q, k, v = (z.reshape(B, T, NH, hs).transpose(0, 2, 1, 3) for z in np.split(qkv, 3, axis=-1))
            att = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(hs)) + mask
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            y = (att @ v).transpose(0, 2, 1, 3).reshape(B, T, C)
            x = x + y @ p["attn.c_proj.weight"] + p["attn.c_proj.bias"]
            h = layer_norm(x, p["ln_2.weight"], p["ln_2.bias"])
            h = gelu_tanh(h @ p["mlp.c_fc.weight"] + p["mlp.c_fc.bias"])
            x = x + h @ p["mlp.c_proj.weight"] + p["mlp.c_proj.bias"]
        return layer_norm(x, lnf_w, lnf_b) @ head.T

    return forward


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name", default="numpy-gpt")
    ap.add_argument("--scale-logits", type=float, default=1.0)
    ap.add_argument("--sleep", type=float, default=0.0)
    ap.add_argument("--crash", action="store_true")
    ap.add_argument("--exit", type=int)
    ap.add_argument("--reply-text")
    ap.add_argument("--samples", type=int)
    ap.add_argument("--short-logits", action="store_true")
    ap.add_argument("--copy-reply")
    a = ap.parse_args()
    request = vbench_impl.read_request()
    time.sleep(a.sleep)
    if a.crash:
        os.kill(os.getpid(), signal.SIGSEGV)
    if a.exit is not None:
        sys.exit(a.exit)
    if a.reply_text is not None:
        with open(request.reply, "w") as f:
            f.write(a.reply_text)
        sys.exit(0)
    if a.samples is not None:
        request.iters = a.samples
        request.min_time_s = 0
    def build(req, weights):
        forward = make_forward(req, weights)
        if a.scale_logits == 1.0:
            return forward
        return lambda idx: forward(idx) * np.float32(a.scale_logits)
    if a.short_logits:  # vbench checks the size: write one value short, past this module's own shape check
        out = make_forward(request, vbench_impl.read_safetensors(request.weights)[0])(vbench_impl.read_tokens(request))
        vbench_impl.write_atomic(request.logits, out.astype("<f4").tobytes()[:-4])
        request.logits = None
    if a.copy_reply:
        atexit.register(lambda: os.path.exists(request.reply) and shutil.copyfile(request.reply, a.copy_reply))
    vbench_impl.serve(build, name=a.name, version="numpy " + np.__version__, on="cpu", request=request,
                      notes=["numpy fp32 forward (vbench_impl.numpy_gpt)" +
                             ("" if request.dtype == "fp32" else f", whatever the dtype ({request.dtype} asked)")])


if __name__ == "__main__":
    main()
