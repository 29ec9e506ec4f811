# The workload of bench/gpu-vtrace.sh: a minGPT-style forward loop in PyTorch eager, fp32, ITERS timed iterations
# after 20 warm-up ones. Sizes: "mini" (6 layers, 6 heads, 192 embd, batch 8, seq 256; ~130 short kernels per
# forward, launch-bound: the worst case for a tracer's per-launch cost) or "gpt2" (12/12/768, batch 8, seq 512;
# GPU-bound, like a real inference loop). Prints "setup_s=<s> loop_s=<s> program_s=<s> iters=<n>" (setup_s: from
# before `import torch` to the model built on the GPU, CUDA and CUPTI start-up included; program_s: to the end).
import time

PROGRAM_START = time.perf_counter()

import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
SIZE = sys.argv[2] if len(sys.argv) > 2 else "mini"
L, H, C, V, T, B = {"mini": (6, 6, 192, 50257, 256, 8), "gpt2": (12, 12, 768, 50257, 512, 8)}[SIZE]


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(C), nn.LayerNorm(C)
        self.qkv, self.proj = nn.Linear(C, 3 * C), nn.Linear(C, C)
        self.fc, self.out = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)

    def forward(self, x):
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        shape = (B, T, H, C // H)
        q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(C // H)
        att = att.masked_fill(torch.ones(T, T, device=x.device).tril() == 0, float("-inf")).softmax(dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(B, T, C))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, C), nn.Embedding(T, C)
        self.blocks = nn.ModuleList(Block() for _ in range(L))
        self.ln_f, self.head = nn.LayerNorm(C), nn.Linear(C, V, bias=False)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(T, device=idx.device))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))


torch.manual_seed(0)
with torch.device("cuda"):  # initialise the weights on the GPU: seconds less of noisy CPU work at start-up
    model = GPT().eval()
idx = torch.randint(0, V, (B, T), device="cuda")
torch.cuda.synchronize()
setup_s = time.perf_counter() - PROGRAM_START
with torch.no_grad():
    for _ in range(20):
        model(idx)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(ITERS):
        model(idx)
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    print(f"setup_s={setup_s:.4f} loop_s={t1 - t0:.4f} program_s={t1 - PROGRAM_START:.4f} iters={ITERS}")
