"""One "pod" of a PyTorchJob: joins the process group from the env alone and checks it.

Usage: allreduce.py EXPECTED_RANK EXPECTED_WORLD_SIZE [TIMEOUT_SECONDS]
Exit 0 when init_process_group("gloo", init_method="env://") worked, the rank and world size are the
expected ones, and an all_reduce plus an all_gather agree across every process; 1 otherwise.
"""
import datetime
import os
import sys

import torch
import torch.distributed as dist

ENV_VARS = ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE")


def main() -> int:
    expected_rank, expected_world = int(sys.argv[1]), int(sys.argv[2])
    timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 15.0
    missing = [name for name in ENV_VARS if name not in os.environ]
    if missing:
        print(f"error: missing env for init_method='env://': {' '.join(missing)}", file=sys.stderr)
    try:
        dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=timeout))
    except (ValueError, RuntimeError) as e:  # torch names the first variable it misses
        print(f"error: init_process_group failed: {e}", file=sys.stderr)
        return 1
    rank, world = dist.get_rank(), dist.get_world_size()
    if (rank, world) != (expected_rank, expected_world):
        print(f"error: rank/world {rank}/{world}, expected {expected_rank}/{expected_world}", file=sys.stderr)
        return 1
    total = torch.tensor([rank + 1], dtype=torch.int64)
    dist.all_reduce(total, op=dist.ReduceOp.SUM)
    ranks = [torch.zeros(1, dtype=torch.int64) for _ in range(world)]
    dist.all_gather(ranks, torch.tensor([rank], dtype=torch.int64))
    want = world * (world + 1) // 2
    got_ranks = [int(t.item()) for t in ranks]
    if int(total.item()) != want or got_ranks != list(range(world)):
        print(f"error: all_reduce {int(total.item())} (want {want}), ranks {got_ranks}", file=sys.stderr)
        return 1
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {rank}/{world} ok: all_reduce={want} ranks={got_ranks}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
