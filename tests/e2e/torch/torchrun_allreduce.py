"""One worker process that torchrun started: joins the group from torchrun's env and checks it.

Usage: torchrun torchrun_allreduce.py EXPECTED_WORLD_SIZE [TIMEOUT_SECONDS]
Prints "rank R/W local L node N ok: all_reduce=S" and exits 0 when the group has the expected size and
an all_reduce agrees across every process; 1 otherwise.
"""
import datetime
import os
import sys

import torch
import torch.distributed as dist


def main() -> int:
    expected_world = int(sys.argv[1])
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 30.0
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    total = torch.tensor([rank + 1], dtype=torch.int64)
    dist.all_reduce(total, op=dist.ReduceOp.SUM)
    want = world * (world + 1) // 2
    if world != expected_world or int(total.item()) != want:
        print(f"error: world {world} (want {expected_world}), all_reduce {int(total.item())} (want {want})",
              file=sys.stderr)
        return 1
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {rank}/{world} local {os.environ['LOCAL_RANK']} node {os.environ['GROUP_RANK']} "
          f"ok: all_reduce={want}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
