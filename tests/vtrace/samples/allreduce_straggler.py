"""A 2-rank NCCL job whose rank 1 sleeps before each all-reduce (the straggler of vtrace's GPU ranks test).

Run under torchrun (torchrun --nproc_per_node 2 allreduce_straggler.py) or as one process per rank with RANK,
WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT set. --sleep-ms: rank 1's sleep; --steps: all-reduces.
Each step: a GEMM, a synchronize (so the sleep delays rank 1's launch, not just its host), the sleep on rank 1,
then the all-reduce.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sleep-ms", type=float, default=20.0)
    ap.add_argument("--steps", type=int, default=10)
    a = ap.parse_args()
    rank = int(os.environ["RANK"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    x = torch.randn(1024, 1024, device="cuda")
    y = torch.ones(1 << 20, device="cuda")
    for _ in range(3):  # warm-up: NCCL's connection setup out of the measured steps
        dist.all_reduce(y)
    torch.cuda.synchronize()
    dist.barrier()
    for _ in range(a.steps):
        z = x @ x
        torch.cuda.synchronize()
        if rank == 1:
            time.sleep(a.sleep_ms / 1000)
        dist.all_reduce(y)
        torch.cuda.synchronize()
    del z
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
