# PyTorch workload for the vtrace gpu test: 5 x (matmul, softmax) on a 1024x1024 fp32 tensor, then synchronize.
# With --profile: torch.cuda.profiler.start() before the 4th iteration and stop() after the 5th (as for nsys's
# --capture-range cudaProfilerApi), so 2 of the 5 are in the range; and each iteration in an NVTX range
# "iteration".
import sys

import torch

profile = "--profile" in sys.argv[1:]
x = torch.randn(1024, 1024, device="cuda")
for i in range(5):
    if profile and i == 3:
        torch.cuda.profiler.start()
    if profile:
        torch.cuda.nvtx.range_push("iteration")
    y = torch.softmax(x @ x, dim=-1)
    if profile:
        torch.cuda.nvtx.range_pop()
if profile:
    torch.cuda.profiler.stop()
torch.cuda.synchronize()
print("torch_ops: done", float(y.sum()))
