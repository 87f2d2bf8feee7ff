"""Data-parallel training of a small CNN (two 5x5 convolutions, 8 and 16 channels) on Fashion-MNIST
with DistributedDataParallel.

Runs one process per pod: the rendezvous comes from the env the operator or our controller
injects (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE) through init_process_group("env://"); under
torchrun, torchrun sets the same variables. The data is the real Fashion-MNIST set (60,000
training and 10,000 test images, 28x28 grey, 10 classes) in the standard IDX files that Debian's
dataset-fashion-mnist package installs; DATA_DIR points elsewhere. Each rank trains on its own
half (DistributedSampler), gradients are averaged by DDP, and the test set is split the same way
so that the accuracy rank 0 prints counts every test image once.
"""
import gzip
import os
import struct
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

DATA_DIR = os.environ.get("DATA_DIR", "/usr/share/datasets/fashion-mnist")
EPOCHS = int(os.environ.get("EPOCHS", "3"))
BATCH = int(os.environ.get("BATCH_SIZE", "64"))
# SAMPLES=N trains on the first N training images only (a quicker run); 0 means all of them.
SAMPLES = int(os.environ.get("SAMPLES", "0"))
# Fashion-MNIST's pixel mean and standard deviation over the training set.
MEAN, STD = 0.2860, 0.3530
CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot")


class DataError(Exception):
    pass


def read_idx(path: str, magic: int, dims: int) -> torch.Tensor:
    """An IDX file: a big-endian header (magic, then one int32 per dimension) and unsigned bytes."""
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise DataError(f"reading '{path}': {e.strerror or e}") from None
    header = 4 + 4 * dims
    if len(raw) < header or struct.unpack(">I", raw[:4])[0] != magic:
        raise DataError(f"'{path}' is not an IDX file with {dims} dimension(s)")
    shape = struct.unpack(f">{dims}I", raw[4:header])
    count = 1
    for d in shape:
        count *= d
    if len(raw) - header != count:
        raise DataError(f"'{path}': header says {count} bytes of data, file has {len(raw) - header}")
    return torch.frombuffer(bytearray(raw[header:]), dtype=torch.uint8).reshape(shape)


def load_split(prefix: str, limit: int = 0) -> TensorDataset:
    images = read_idx(os.path.join(DATA_DIR, f"{prefix}-images-idx3-ubyte.gz"), 2051, 3)
    labels = read_idx(os.path.join(DATA_DIR, f"{prefix}-labels-idx1-ubyte.gz"), 2049, 1)
    if images.shape[0] != labels.shape[0]:
        raise DataError(f"{prefix}: {images.shape[0]} images but {labels.shape[0]} labels")
    if limit:
        images, labels = images[:limit], labels[:limit]
    x = (images.unsqueeze(1).float() / 255.0 - MEAN) / STD
    return TensorDataset(x, labels.long())


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=5, padding=2)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=5, padding=2)
        self.fc = nn.Linear(16 * 7 * 7, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def evaluate(model: nn.Module, loader: DataLoader) -> torch.Tensor:
    """[correct, seen] over this rank's share of the test set."""
    model.eval()
    counts = torch.zeros(2, dtype=torch.long)
    with torch.no_grad():
        for images, labels in loader:
            counts[0] += (model(images).argmax(dim=1) == labels).sum()
            counts[1] += labels.numel()
    return counts


def main() -> int:
    missing = [v for v in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE") if v not in os.environ]
    if missing:
        print(f"error: {', '.join(missing)} not set: this pod got no torch.distributed env "
              "(see `kubectl pytorch env`)", file=sys.stderr, flush=True)
        return 2
    try:
        train, test = load_split("train", SAMPLES), load_split("t10k")
    except DataError as e:
        print(f"error: Fashion-MNIST: {e} (install Debian's dataset-fashion-mnist, or set DATA_DIR "
              "to a folder with its four IDX files)", file=sys.stderr, flush=True)
        return 2
    # Pods share the machine's cores when run locally; one thread each avoids oversubscription.
    torch.set_num_threads(int(os.environ.get("TORCH_THREADS", "1")))
    started = time.monotonic()
    dist.init_process_group(backend="gloo", init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234)

    sampler = DistributedSampler(train, num_replicas=world, rank=rank, shuffle=True, seed=7)
    loader = DataLoader(train, batch_size=BATCH, sampler=sampler)
    test_sampler = DistributedSampler(test, num_replicas=world, rank=rank, shuffle=False)
    test_loader = DataLoader(test, batch_size=500, sampler=test_sampler)
    model = DistributedDataParallel(Net())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    print(f"rank {rank}/{world}: {len(sampler)} of {len(train)} Fashion-MNIST training images per epoch, "
          f"master {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", flush=True)
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

    counts = evaluate(model, test_loader)
    dist.all_reduce(counts)
    if rank == 0:
        correct, seen = counts.tolist()
        print(f"test accuracy {100.0 * correct / seen:.2f}% ({correct}/{seen} test images); "
              f"training done in {time.monotonic() - started:.1f}s", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
