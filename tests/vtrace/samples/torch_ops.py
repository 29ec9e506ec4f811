# PyTorch workload for the vtrace gpu test: 5 x (matmul, softmax) on a 1024x1024 fp32 tensor, then synchronize.
import torch

x = torch.randn(1024, 1024, device="cuda")
for _ in range(5):
    y = torch.softmax(x @ x, dim=-1)
torch.cuda.synchronize()
print("torch_ops: done", float(y.sum()))
