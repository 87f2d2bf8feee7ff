#!/usr/bin/env python3
"""Turns one run of bench_validate.sh into the Markdown report for BENCHMARKS.md.

Reads, for each corpus WORK/pytorchjob and WORK/trainjob: expected.json (the generator's),
kpt.json (`kubectl-pytorch validate -o json`), kc.json (`kubeconform -output json`, when it ran),
py.json (jsonschema_validate.py, PyTorchJobs only), and {kpt,kc,py}.times (one wall time a line);
then WORK/cold.json (hyperfine) or WORK/cold.txt (loop). Times are medians. A mistake kind counts
as caught by a validator when every broken file of that kind got at least one error from it; clean
files with an error are false positives.
"""

import argparse
import json
import os
import platform
import statistics
import sys

KC_FLAGGED = ("statusInvalid", "statusError")
NAMES = {"kpt": "kubectl-pytorch", "kc": "kubeconform", "py": "python3-jsonschema"}


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def kpt_errors(path):
    """{file: sorted rule ids of its errors}."""
    out = {}
    for d in load(path).get("diagnostics", []):
        if d.get("severity") == "error":
            out.setdefault(os.path.basename(d.get("file", "")), set()).add(d.get("rule", "?"))
    return {name: sorted(rules) for name, rules in out.items()}


def kc_errors(path):
    out = {}
    for r in load(path).get("resources", []):
        if r.get("status") in KC_FLAGGED:
            out.setdefault(os.path.basename(r["filename"]), []).append(r.get("msg", ""))
    return out


def py_errors(path):
    return {name: errors for name, errors in load(path)["files"].items() if errors}


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


def fmt_kind(result):
    got, total = result
    if total == 0:
        return "n/a"
    return "yes" if got == total else ("no" if got == 0 else f"{got}/{total}")


def median_of(path):
    with open(path, encoding="utf-8") as f:
        times = [float(line) for line in f if line.strip()]
    return statistics.median(times), len(times)


def cold_stats(work, name="cold"):
    path = os.path.join(work, name + ".json")
    if os.path.exists(path):
        times = load(path)["results"][0]["times"]
    else:
        with open(os.path.join(work, name + ".txt"), encoding="utf-8") as f:
            times = [float(e) - float(s) for s, e in (line.split() for line in f if line.strip())]
    times = sorted(t * 1000 for t in times)
    return statistics.mean(times), statistics.median(times), times[0], times[-1]


def corpus_report(work, corpus, generator, labels):
    """The throughput table and the mistake-kind table of one corpus, for the validators that ran."""
    d = os.path.join(work, corpus)
    expected = load(os.path.join(d, "expected.json"))
    files, jobs, kinds = len(expected["files"]), expected["jobs"], expected["mistakes"]
    readers = {"kpt": kpt_errors, "kc": kc_errors, "py": py_errors}
    ran = [v for v in ("kpt", "kc", "py") if os.path.exists(os.path.join(d, f"{v}.times"))]
    out = [f"{corpus} corpus: {files} files, {jobs} jobs ({expected['broken_jobs']} broken, one mistake each, "
           f"{len(kinds)} kinds), `{generator} --jobs {jobs}`.", "",
           "| validator | wall s | files/s | jobs/s | kinds caught | clean files flagged |",
           "|---|---:|---:|---:|---:|---:|"]
    results, seconds = {}, {}
    for v in ran:
        errors = readers[v](os.path.join(d, f"{v}.json"))
        results[v] = caught(expected, errors) + (errors,)
        seconds[v], runs = median_of(os.path.join(d, f"{v}.times"))
        per_kind, fp, _ = results[v]
        n = sum(1 for k in kinds if fmt_kind(per_kind.get(k, (0, 0))) == "yes")
        label = labels[v].format(runs=runs)
        if v == "py":
            py = load(os.path.join(d, "py.json"))["seconds"]
            label += f"; parse {py['parse']:.2f} s + validate {py['validate']:.2f} s"
        out.append(f"| {label} | {seconds[v]:.3f} | {files / seconds[v]:.0f} | {jobs / seconds[v]:.0f} | "
                   f"{n}/{len(kinds)} | {fp} |")
    out.append("")
    ratios = [f"{NAMES[v]} {seconds[v] / seconds['kpt']:.1f}x" for v in ran if v != "kpt"]
    if ratios:
        out += [f"kubectl-pytorch's throughput over {', '.join(ratios)}.", ""]
    out.append("| mistake kind | " + " | ".join(NAMES[v] for v in ran) + " | kubectl-pytorch's rules |")
    out.append("|---|" + "---|" * len(ran) + "---|")
    for kind in kinds:
        rules = sorted({r for name, k in expected["files"].items() if k == kind
                        for r in results["kpt"][2].get(name, [])})
        cells = " | ".join(fmt_kind(results[v][0].get(kind, (0, 0))) for v in ran)
        out.append(f"| {kind} | {cells} | {', '.join(f'`{r}`' for r in rules)} |")
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", required=True)
    p.add_argument("--cold-tool", default="")
    p.add_argument("--kpt-rss-kb", default="")
    p.add_argument("--kpt-version", default="")
    p.add_argument("--kubeconform", default="", help="what was measured, or why it was not")
    p.add_argument("--load", nargs=2, default=["", ""], help="/proc/loadavg before and after")
    a = p.parse_args(argv)

    labels = {
        "kpt": "kubectl-pytorch validate --offline -o json (all cores; median of {runs})",
        "kc": "kubeconform -strict -n 2 -output json (median of {runs})",
        "py": "python3-jsonschema Draft7 (1 process, median of {runs})",
    }
    out = [f"{os.cpu_count()} cores, Python {platform.python_version()}; binary `{a.kpt_version}`; "
           f"kubeconform: {a.kubeconform}.",
           f"Load average (1, 5, 15 min) before the timed runs: {a.load[0]}; after: {a.load[1]}.", ""]
    out += corpus_report(a.work, "pytorchjob", "gen_corpus.py", labels)
    out.append("")
    out += corpus_report(a.work, "trainjob", "gen_trainjob_corpus.py", labels)
    out.append("")
    if a.kpt_rss_kb:
        out.append(f"kubectl-pytorch peak RSS on the PyTorchJob corpus: {int(a.kpt_rss_kb) / 1024:.1f} MiB.")
    mean, median, low, high = cold_stats(a.work)
    out.append(f"One small file cold ({a.cold_tool}, process start included): mean {mean:.1f} ms, "
               f"median {median:.1f} ms, min {low:.1f} ms, max {high:.1f} ms (target <= 5 ms).")
    if os.path.exists(os.path.join(a.work, "cold-version.json")) or \
            os.path.exists(os.path.join(a.work, "cold-version.txt")):
        mean, median, low, high = cold_stats(a.work, "cold-version")
        out.append(f"`kubectl-pytorch version` cold (same tool): mean {mean:.1f} ms, median {median:.1f} ms, "
                   f"min {low:.1f} ms, max {high:.1f} ms (target <= 5 ms).")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
