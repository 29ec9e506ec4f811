# Real programs for access mode, as the GPU tests and bench/gpu-access.sh run them (native, under memcheck, under
# vtrace run --accesses). Usage: real_programs.py PROGRAM
#   torch_loop      2 x randn(512, 512), 5 x softmax(x @ y) + 1 (cuBLAS GEMMs through cp.async)
#   gpt2_forward    HuggingFace GPT2LMHeadModel(GPT2Config()), random init (no download), one eval forward, B=2 T=128
#   gpt2_train      the same model, one training step: bf16 autocast, AdamW
#   compiled        torch.compile'd MLP block (Inductor's Triton kernels), 3 calls
#   triton_add      masked Triton add, n = 1000, BLOCK = 1024
#   triton_offbyone the same kernel with a planted off-by-one: mask offs <= n reads x[n], one float past x's end
#                   (run with PYTORCH_NO_CUDA_MEMORY_CACHING=1 so x is its own allocation of exactly 4000 bytes)
#   tma_copy        Triton tensor descriptors created on the device (triton.set_allocator): a 256x64 fp32 copy
import sys

import torch

program = sys.argv[1] if len(sys.argv) > 1 else "torch_loop"
torch.manual_seed(0)


def triton_add(off_by_one):
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, PAST: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        if PAST:
            x = tl.load(x_ptr + offs, mask=offs <= n, other=0.0)  # the planted bug: reads x[n]
        else:
            x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x + tl.load(y_ptr + offs, mask=mask), mask=mask)

    n = 1000
    x = torch.ones(n, device="cuda")
    y = torch.ones(n, device="cuda")
    out = torch.empty(n, device="cuda")
    add_kernel[(1,)](x, y, out, n, BLOCK=1024, PAST=off_by_one, num_warps=4)
    torch.cuda.synchronize()
    assert float(out.sum()) == 2 * n
    print("x at", hex(x.data_ptr()))


if program == "torch_loop":
    x = torch.randn(512, 512, device="cuda")
    y = torch.randn(512, 512, device="cuda")
    for _ in range(5):
        z = torch.softmax(x @ y, dim=-1) + 1
    torch.cuda.synchronize()
    print("torch_loop", float(z.sum()))
elif program in ("gpt2_forward", "gpt2_train"):
    from transformers import GPT2Config, GPT2LMHeadModel

    model = GPT2LMHeadModel(GPT2Config()).cuda()
    tokens = torch.randint(0, 50257, (2, 128), device="cuda")
    if program == "gpt2_forward":
        model.eval()
        with torch.no_grad():
            logits = model(tokens).logits
        torch.cuda.synchronize()
        print("gpt2_forward", tuple(logits.shape), float(logits.float().abs().mean()))
    else:
        model.train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(tokens, labels=tokens).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        print("gpt2_train loss", float(loss))
elif program == "compiled":
    mlp = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256)).cuda()
    norm = torch.nn.LayerNorm(256).cuda()
    f = torch.compile(lambda x: norm(x + mlp(x)))
    for _ in range(3):
        out = f(torch.randn(64, 256, device="cuda"))
    torch.cuda.synchronize()
    print("compiled", float(out.sum()))
elif program == "triton_add":
    triton_add(False)
elif program == "triton_offbyone":
    triton_add(True)
elif program == "tma_copy":
    import triton
    import triton.language as tl

    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))

    @triton.jit
    def tma_copy(src, dst, M, N, BM: tl.constexpr, BN: tl.constexpr):
        s = tl.make_tensor_descriptor(src, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
        d = tl.make_tensor_descriptor(dst, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
        m = tl.program_id(0) * BM
        d.store([m, 0], s.load([m, 0]))

    a = torch.randn(256, 64, device="cuda")
    b = torch.empty_like(a)
    tma_copy[(256 // 64,)](a, b, 256, 64, BM=64, BN=64)
    torch.cuda.synchronize()
    assert torch.equal(a, b)
    print("tma_copy done")
else:
    sys.exit(f"real_programs.py: unknown program {program}")
