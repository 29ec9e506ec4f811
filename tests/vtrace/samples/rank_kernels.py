"""Each rank of a 2-rank job runs the same few elementwise kernels on its own GPU, no NCCL (vtrace's access-mode
ranks test: one trace of both ranks must keep their launch 0 of each kernel apart, each on its GPU).

Run under torchrun (torchrun --nproc_per_node 2 rank_kernels.py) or with RANK and LOCAL_RANK set.
"""
import os

import torch


def main():
    rank = int(os.environ["RANK"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    x = torch.arange(4096, device="cuda", dtype=torch.float32)
    y = x * 2 + rank
    z = y.sum()
    torch.cuda.synchronize()
    print(f"rank {rank} on cuda:{local}: {z.item():.0f}")


if __name__ == "__main__":
    main()
