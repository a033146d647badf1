#!/usr/bin/env python3
"""Print the medians of the last `cargo bench --bench trim` run, and the ratios the
issue asks for: ctxbudget (c) against the kept-text count (d), the full count (b)
and the seed (a), for every input and budget.

Usage: python3 benches/summarize.py [target/criterion]
"""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
medians = {}
for estimates in root.glob("trim_*/**/new/estimates.json"):
    parts = estimates.relative_to(root).parts[:-2]
    medians["/".join(parts)] = json.loads(estimates.read_text())["median"]["point_estimate"]


def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


inputs = sorted({key.split("/")[0] for key in medians})
print("| input | budget | ctxbudget (c) | kept count (d) | c/d | full count (b) | b/c | seed (a) | a/c |")
print("|---|---|---|---|---|---|---|---|---|")
for name in inputs:
    full = medians.get(f"{name}/full_count")
    for budget in ("512", "4096", "32768"):
        c = medians.get(f"{name}/ctxbudget/{budget}")
        d = medians.get(f"{name}/kept_count/{budget}")
        a = medians.get(f"{name}/seed/{budget}")
        if c is None:
            continue
        cells = [name.removeprefix("trim_"), budget, fmt(c)]
        cells += [fmt(d), f"{c / d:.2f}x"] if d else ["", ""]
        cells += [fmt(full), f"{full / c:.0f}x"] if full else ["", ""]
        cells += [fmt(a), f"{a / c:.0f}x"] if a else ["–", ""]
        print("| " + " | ".join(cells) + " |")
