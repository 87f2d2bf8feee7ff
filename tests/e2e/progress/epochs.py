#!/usr/bin/env python3
"""A training loop that prints only "Epoch i/N" (argv: N and the seconds an epoch takes)."""
import sys
import time

epochs, seconds = int(sys.argv[1]), float(sys.argv[2])
for epoch in range(1, epochs + 1):
    time.sleep(seconds)
    print(f"Epoch {epoch}/{epochs}", flush=True)
