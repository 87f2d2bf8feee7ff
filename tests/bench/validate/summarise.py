#!/usr/bin/env python3
"""Turns one run of bench_validate.sh into the Markdown report for BENCHMARKS.md.

Reads WORK/expected.json (gen_corpus.py), WORK/kpt.json (`kubectl-pytorch validate -o json`),
WORK/py.json (jsonschema_validate.py) and WORK/cold.json (hyperfine) or WORK/cold.txt (loop).
A mistake kind counts as caught by a validator when every broken file of that kind got at least
one error from it; clean files with an error are counted as false positives.
"""

import argparse
import json
import os
import platform
import statistics
import sys


def kpt_errors_by_file(kpt):
    out = {}
    for d in kpt.get("diagnostics", []):
        if d.get("severity") == "error":
            out.setdefault(os.path.basename(d.get("file", "")), []).append(d)
    return out


def caught(expected, errors_by_file):
    """{kind: (caught files, files)} and the number of clean files with errors."""
    per_kind = {}
    false_positives = 0
    for name, kind in expected["files"].items():
        has_error = bool(errors_by_file.get(name))
        if kind == "clean":
            false_positives += has_error
            continue
        got, total = per_kind.get(kind, (0, 0))
        per_kind[kind] = (got + has_error, total + 1)
    return per_kind, false_positives


def cold_stats(work):
    path = os.path.join(work, "cold.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            times = json.load(f)["results"][0]["times"]
    else:
        with open(os.path.join(work, "cold.txt"), encoding="utf-8") as f:
            times = [float(e) - float(s) for s, e in (line.split() for line in f if line.strip())]
    times = sorted(t * 1000 for t in times)
    return statistics.mean(times), statistics.median(times), times[0], times[-1]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", required=True)
    p.add_argument("--kpt-span", nargs=2, type=float, required=True)
    p.add_argument("--py-span", nargs=2, type=float, required=True)
    p.add_argument("--runs", nargs=2, type=int, default=[1, 1], help="timed runs of each; spans are medians")
    p.add_argument("--cold-tool", default="")
    p.add_argument("--kpt-rss-kb", default="")
    p.add_argument("--kpt-version", default="")
    a = p.parse_args(argv)

    def load(name):
        with open(os.path.join(a.work, name), encoding="utf-8") as f:
            return json.load(f)

    expected, kpt, py = load("expected.json"), load("kpt.json"), load("py.json")
    files, jobs = len(expected["files"]), expected["jobs"]
    kpt_s = a.kpt_span[1] - a.kpt_span[0]
    py_s = a.py_span[1] - a.py_span[0]
    kpt_kinds, kpt_fp = caught(expected, kpt_errors_by_file(kpt))
    py_kinds, py_fp = caught(expected, {n: e for n, e in py["files"].items() if e})
    mean, median, low, high = cold_stats(a.work)

    def fmt_kind(result):
        got, total = result
        if total == 0:
            return "n/a"
        return "yes" if got == total else ("no" if got == 0 else f"{got}/{total}")

    out = []
    out.append(f"Corpus: {files} files, {jobs} jobs ({expected['broken_jobs']} broken, one mistake each), "
               f"`gen_corpus.py --jobs {jobs}`; {os.cpu_count()} cores, {platform.python_version()}.")
    if a.kpt_version:
        out.append(f"Binary: `{a.kpt_version}`.")
    out.append("")
    out.append("| validator | wall s | files/s | jobs/s | kinds caught | clean files flagged |")
    out.append("|---|---:|---:|---:|---:|---:|")
    n_kinds = len(expected["mistakes"])
    kpt_n = sum(1 for k in expected["mistakes"] if kpt_kinds.get(k, (0, 1))[0] == kpt_kinds.get(k, (0, 1))[1])
    py_n = sum(1 for k in expected["mistakes"] if py_kinds.get(k, (0, 1))[0] == py_kinds.get(k, (0, 1))[1])
    kpt_runs, py_runs = a.runs
    out.append(f"| kubectl-pytorch validate -o json (all cores; median of {kpt_runs}) | {kpt_s:.3f} | {files / kpt_s:.0f} | "
               f"{jobs / kpt_s:.0f} | {kpt_n}/{n_kinds} | {kpt_fp} |")
    out.append(f"| python3-jsonschema Draft7 (1 process, median of {py_runs}; parse {py['seconds']['parse']:.2f} s + validate "
               f"{py['seconds']['validate']:.2f} s) | {py_s:.3f} | {files / py_s:.0f} | {jobs / py_s:.0f} | "
               f"{py_n}/{n_kinds} | {py_fp} |")
    out.append(f"| kubeconform, 2 workers (its quoted figure, NOT measured here: not installable offline) | | | "
               f"~3100 | 3/11 | |")
    out.append("")
    out.append(f"Throughput ratio kubectl-pytorch / python3-jsonschema: {py_s / kpt_s:.1f}x (target >= 20x).")
    if a.kpt_rss_kb:
        out.append(f"kubectl-pytorch peak RSS on the corpus: {int(a.kpt_rss_kb) / 1024:.1f} MiB.")
    out.append("")
    out.append("| mistake kind | kubectl-pytorch | python3-jsonschema |")
    out.append("|---|---|---|")
    for kind in expected["mistakes"]:
        out.append(f"| {kind} | {fmt_kind(kpt_kinds.get(kind, (0, 0)))} | {fmt_kind(py_kinds.get(kind, (0, 0)))} |")
    out.append("")
    out.append(f"One small file cold ({a.cold_tool}, process start included): mean {mean:.1f} ms, "
               f"median {median:.1f} ms, min {low:.1f} ms, max {high:.1f} ms (target <= 20 ms).")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
