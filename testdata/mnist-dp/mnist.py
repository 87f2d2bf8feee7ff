"""Data-parallel training of a small MNIST-shaped classifier with DistributedDataParallel.

Runs one process per pod: the rendezvous comes from the env the operator or our controller
injects (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE) through init_process_group("env://").
The data is synthetic (28x28 "digits" drawn around ten fixed class templates), so the job
needs no download and the loss falls within a few epochs on a CPU.
"""
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

EPOCHS = int(os.environ.get("EPOCHS", "5"))
SAMPLES = int(os.environ.get("SAMPLES", "4096"))
BATCH = int(os.environ.get("BATCH_SIZE", "64"))


def synthetic_mnist(samples: int, seed: int = 0) -> TensorDataset:
    gen = torch.Generator().manual_seed(seed)
    templates = torch.rand(10, 1, 28, 28, generator=gen)
    labels = torch.randint(0, 10, (samples,), generator=gen)
    noise = 2.5 * torch.randn(samples, 1, 28, 28, generator=gen)
    images = (templates[labels] + noise - 0.5) / 0.5
    return TensorDataset(images, labels)


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 8, kernel_size=5, stride=2)
        self.fc1 = nn.Linear(8 * 12 * 12, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.conv(x))
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


def main() -> int:
    missing = [v for v in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE") if v not in os.environ]
    if missing:
        print(f"error: {', '.join(missing)} not set: this pod got no torch.distributed env "
              "(see `kubectl pytorch env`)", file=sys.stderr, flush=True)
        return 2
    started = time.monotonic()
    dist.init_process_group(backend="gloo", init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234)

    dataset = synthetic_mnist(SAMPLES)
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=7)
    loader = DataLoader(dataset, batch_size=BATCH, sampler=sampler)
    model = DistributedDataParallel(Net())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)

    print(f"rank {rank}/{world}: {len(sampler)} samples per epoch, master "
          f"{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", flush=True)
    for epoch in range(1, EPOCHS + 1):
        sampler.set_epoch(epoch)
        model.train()
        total, batches = 0.0, 0
        for images, labels in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(images), labels)
            loss.backward()
            optimizer.step()
            total += loss.item()
            batches += 1
        mean = torch.tensor([total / max(batches, 1)])
        dist.all_reduce(mean)
        print(f"rank {rank} epoch {epoch}/{EPOCHS} loss {total / max(batches, 1):.4f} "
              f"(mean over ranks {mean.item() / world:.4f})", flush=True)

    dist.barrier()
    if rank == 0:
        print(f"training done in {time.monotonic() - started:.1f}s", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
