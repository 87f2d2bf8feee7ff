"""Prints what torch's own launcher (torch.distributed.run, i.e. torchrun) makes of the PET_* env.

Only the argument parsing is exercised: Debian's torch 1.13 launcher fails to start workers on
Python 3.11 (AttributeError in elastic/multiprocessing/api.py to_map, a known upstream bug), so the
proof for torchrun is that its parser resolves nnodes, node rank, nproc-per-node and the master
endpoint from the env alone. Output: one line "min_nodes max_nodes nproc_per_node node_rank endpoint backend".
"""
import logging
import sys

from torch.distributed.run import config_from_args, get_args_parser


def main() -> int:
    logging.disable(logging.WARNING)  # keep the OMP_NUM_THREADS banner out of the output
    args = get_args_parser().parse_args(["train.py"])  # no flags: everything comes from PET_*
    config, _, _ = config_from_args(args)
    print(config.min_nodes, config.max_nodes, config.nproc_per_node, config.rdzv_configs.get("rank"),
          config.rdzv_endpoint, config.rdzv_backend)
    return 0


if __name__ == "__main__":
    sys.exit(main())
