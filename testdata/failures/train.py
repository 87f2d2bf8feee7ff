"""A small data-parallel loop that fails on purpose, the way training jobs fail.

FAIL says how the rank FAIL_RANK (default 1) fails at step 3; the other ranks are the collateral:
  exception  raises RuntimeError
  sigkill    kills itself with SIGKILL, as the out-of-memory killer would
  exit       exits with code 3 and no traceback (a peer that is just gone)
  hang       stops without a word while the others wait in all_reduce
  import     every rank imports a module that is not installed, before joining the group
Any other value trains STEPS steps (default 5) and succeeds. The group's timeout is TIMEOUT
seconds (default 60), so that a collective with a missing peer ends within a test's time.
"""
import datetime
import os
import signal
import sys
import time

import torch
import torch.distributed as dist

MODE = os.environ.get("FAIL", "")
FAIL_RANK = int(os.environ.get("FAIL_RANK", "1"))
STEPS = int(os.environ.get("STEPS", "5"))
TIMEOUT = int(os.environ.get("TIMEOUT", "60"))


def main() -> int:
    if MODE == "import":
        import kpt_no_such_module  # noqa: F401
    dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=TIMEOUT))
    rank = dist.get_rank()
    for step in range(1, STEPS + 1):
        print(f"rank {rank} step {step}", flush=True)
        if rank == FAIL_RANK and step == 3:
            if MODE == "exception":
                raise RuntimeError(f"loss is NaN at step {step}")
            if MODE == "sigkill":
                os.kill(os.getpid(), signal.SIGKILL)
            if MODE == "exit":
                sys.stdout.flush()
                os._exit(3)
            if MODE == "hang":
                time.sleep(3600)
            if MODE == "segv":  # a native crash (SIGSEGV), as a bad extension or driver gives
                __import__("ctypes").string_at(0)
        total = torch.ones(1)
        dist.all_reduce(total)
        time.sleep(0.2)
    print(f"rank {rank} done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
