#!/usr/bin/env python3
"""How soon after a rank fails `run --local` has its verdict on the screen: the seconds from the
failing rank's exception line (stdout) to run's last line (stderr), over RUNS runs of
testdata/failures/fail-exception.yaml on one local cluster (up for the runs, down after).

Usage: bench_verdict.py KUBECTL_PYTORCH [RUNS]
Prints min / median / max in seconds. Needs Debian's python3-torch and libnss-wrapper.
"""
import os
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def one_run(cmd, env):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ, "out")
    sel.register(p.stderr, selectors.EVENT_READ, "err")
    failed_at = verdict_at = None
    streams = 2
    while streams:
        for key, _ in sel.select():
            line = key.fileobj.readline()
            if not line:
                sel.unregister(key.fileobj)
                streams -= 1
                continue
            now = time.monotonic()
            if key.data == "out" and "loss is NaN" in line:
                failed_at = now
            if key.data == "err" and " failed after " in line:
                verdict_at = now
    p.wait()
    return verdict_at - failed_at if failed_at and verdict_at else None


def main():
    binary = os.path.realpath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    work = tempfile.mkdtemp(prefix="kpt-bench-verdict.")
    env = dict(os.environ, HOME=os.path.join(work, "home"), XDG_STATE_HOME=os.path.join(work, "state"))
    os.makedirs(env["HOME"])
    shutil.copytree(os.path.join(SOURCE, "testdata", "failures"), os.path.join(work, "failures"))
    job = os.path.join(work, "failures", "fail-exception.yaml")
    subprocess.run([binary, "local", "up"], env=env, check=True, capture_output=True)
    try:
        seconds = [s for s in (one_run([binary, "run", "--local", job], env) for _ in range(runs)) if s is not None]
    finally:
        subprocess.run([binary, "local", "down"], env=env, capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    if not seconds:
        sys.exit("no run failed as the job does (another job holding port 23456?)")
    print(f"verdict after the failure ({len(seconds)} runs): min {min(seconds):.2f} s, "
          f"median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s")


if __name__ == "__main__":
    main()
