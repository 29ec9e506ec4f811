# Triton workload for the vtrace gpu test: add_kernel launched 3 times over n = 10000 with BLOCK = 1024, num_warps = 4
# (grid 10, 128 threads per block). TRITON_ADD_BLOCK=512 compiles the same-named kernel to other code (the diff test).
import os

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


n = 10000
x = torch.ones(n, device="cuda")
y = torch.ones(n, device="cuda")
out = torch.empty_like(x)
block = int(os.environ.get("TRITON_ADD_BLOCK", "1024"))
for _ in range(3):
    add_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK=block, num_warps=4)
torch.cuda.synchronize()
assert float(out.sum()) == 2 * n
print("triton_add: done")
