"""One rank of one of several jobs that must run at the same time.

Usage: side_by_side.py DIR JOBS
Writes DIR/up-<job>-<rank>, waits until every rank of every job has written its file (so all of
them are alive at once: none goes on before the last one arrived), then forms its job's gloo
process group from the env alone (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE) and all-reduces in
it. Prints what it saw; exits 1 on a timeout or a wrong result.
"""
import datetime
import os
import sys
import time

directory, jobs = sys.argv[1], int(sys.argv[2])
job, rank, world = os.environ["JOB"], int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
open(os.path.join(directory, f"up-{job}-{rank}"), "w").close()
deadline = time.monotonic() + 120
while len([f for f in os.listdir(directory) if f.startswith("up-")]) < jobs * world:
    if time.monotonic() > deadline:
        print("error: the other jobs' ranks did not come up", file=sys.stderr)
        sys.exit(1)
    time.sleep(0.05)

import torch  # noqa: E402  (after the wait: the imports of all ranks overlap less on two cores)
import torch.distributed as dist  # noqa: E402

dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=60))
total = torch.tensor([rank + 1])
dist.all_reduce(total)
ok = dist.get_world_size() == world and int(total.item()) == world * (world + 1) // 2
print(f"{job} rank {dist.get_rank()} of {dist.get_world_size()} via {os.environ['MASTER_ADDR']}:"
      f"{os.environ['MASTER_PORT']} pgid-is-pid={os.getpgid(0) == os.getpid()} sum {int(total.item())}",
      flush=True)
sys.exit(0 if ok else 1)
