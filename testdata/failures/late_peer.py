"""Two ranks; rank 1 reaches all_reduce 15 s late, after the group's 5 s timeout: rank 0 times out
in the collective, and rank 1 then finds its peer gone."""
import datetime
import time

import torch
import torch.distributed as dist

dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=5))
rank = dist.get_rank()
print(f"rank {rank} joined", flush=True)
if rank == 1:
    time.sleep(15)
total = torch.ones(1)
dist.all_reduce(total)
print(f"rank {rank} done", flush=True)
