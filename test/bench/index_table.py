#!/usr/bin/python3
"""The tables of test/bench/RESULTS.md from the CSV index_bench.sh writes.

  test/bench/index_table.py test/bench/index_bench.csv

One column per set and size, one row per measure and approach (the medians;
the p95s are in the CSV and the printed summary), then the ratios the
targets are set on, each against a baseline of the same set in the same run.
"""
import collections
import csv
import sys

SET_NAMES = {"uniform": "uniform", "real_text_en": "English text", "real_text_zh": "Chinese text"}
# (measure, approach, label) in the order of the table
ROWS = [
    ("floor_p50_ms", "no search", "round trip alone, no search: p50 ms"),
    ("radius3_p50_ms", "seq scan", "radius 3, seq scan: p50 ms"),
    ("radius3_p50_ms", "four btrees", "radius 3, four btrees: p50 ms"),
    ("radius3_p50_ms", "simhash", "radius 3, simhash: p50 ms"),
    ("one_cpu_radius3_p50_ms", "four btrees", "radius 3 on one CPU, four btrees: p50 ms"),
    ("one_cpu_radius3_p50_ms", "simhash", "radius 3 on one CPU, simhash: p50 ms"),
    ("knn10_p50_ms", "seq scan", "KNN-10, seq scan: p50 ms"),
    ("knn10_p50_ms", "simhash, q uniform", "KNN-10, simhash, query far from every row: p50 ms"),
    ("knn10_p50_ms", "simhash, q in a cluster", "KNN-10, simhash, query among near-duplicates: p50 ms"),
    ("knn10_p50_ms", "simhash, all queries", "KNN-10, simhash, all queries: p50 ms"),
    ("knn10_within6_p50_ms", "simhash, q uniform", "KNN-10 within radius 6, simhash: p50 ms"),
    ("build_s", "four btrees", "build, four btrees: s"),
    ("build_s", "simhash", "build, simhash: s"),
    ("size_mib", "four btrees", "size, four btrees: MiB"),
    ("size_mib", "simhash", "size, simhash: MiB"),
    ("inserts_per_s", "four btrees", "single-row inserts/s, four btrees"),
    ("inserts_per_s", "simhash", "single-row inserts/s, simhash"),
    ("bulk_rows_per_s", "four btrees", "rows/s in one INSERT ... SELECT, four btrees"),
    ("bulk_rows_per_s", "simhash", "rows/s in one INSERT ... SELECT, simhash"),
    ("disagreements_of_20", "four btrees, simhash", "queries where btrees and simhash disagree (of 20)"),
]
# (label, numerator, denominator, target): each a (measure, approach)
RATIOS = [
    ("radius 3 p50: four btrees / simhash", ("radius3_p50_ms", "four btrees"), ("radius3_p50_ms", "simhash"), ">= 10x"),
    ("radius 3 p50: seq scan / simhash", ("radius3_p50_ms", "seq scan"), ("radius3_p50_ms", "simhash"), ""),
    ("radius 3 p50 on one CPU: four btrees / simhash", ("one_cpu_radius3_p50_ms", "four btrees"),
     ("one_cpu_radius3_p50_ms", "simhash"), ">= 10x"),
    ("KNN-10 p50: seq scan / simhash (query far from every row)", ("knn10_p50_ms", "seq scan"),
     ("knn10_p50_ms", "simhash, q uniform"), ""),
    ("build time: simhash / four btrees", ("build_s", "simhash"), ("build_s", "four btrees"), "<= 1.5x"),
    ("size: simhash / four btrees", ("size_mib", "simhash"), ("size_mib", "four btrees"), "<= 2x"),
    ("single-row inserts/s: simhash / four btrees", ("inserts_per_s", "simhash"), ("inserts_per_s", "four btrees"),
     ">= 1x"),
]


def size_name(rows):
    for unit, name in ((1000000, "M"), (1000, "k")):
        if rows >= unit and rows % unit == 0:
            return f"{rows // unit}{name}"
    return f"{rows:,}"


COUNTS = ("inserts_per_s", "bulk_rows_per_s", "disagreements_of_20")


def number(v, measure):
    if measure in COUNTS or v >= 100:
        return f"{v:,.0f}"
    return f"{v:.3f}" if v < 1 else f"{v:.1f}"


def ratio(r):
    return f"{r:,.0f}x" if r >= 100 else f"{r:.1f}x" if r >= 10 else f"{r:.2f}x"


def main(path):
    values = collections.defaultdict(dict)  # (set, rows) -> {(measure, approach): value}
    with open(path) as f:
        for rec in csv.DictReader(f):
            if rec["measure"] != "run":
                values[(rec["set"], int(rec["rows"]))][(rec["measure"], rec["approach"])] = float(rec["value"])
    columns = list(values)  # in the order measured
    names = [f"{SET_NAMES.get(s, s)}, {size_name(n)}" if s != "uniform" else size_name(n) for s, n in columns]
    out = ["| rows (uniform random + near-duplicates, or real text) | " + " | ".join(names) + " |",
           "|---|" + "---|" * len(columns)]
    for measure, approach, label in ROWS:
        cells = [values[c].get((measure, approach)) for c in columns]
        if any(v is not None for v in cells):
            out.append(f"| {label} | " + " | ".join("-" if v is None else number(v, measure) for v in cells) + " |")
    out.append("")
    out.append("| ratio (same set, same run) | target (10M rows) | " + " | ".join(names) + " |")
    out.append("|---|---|" + "---|" * len(columns))
    for label, num, den, target in RATIOS:
        cells = []
        for c in columns:
            a, b = values[c].get(num), values[c].get(den)
            cells.append(ratio(a / b) if a is not None and b else "-")
        out.append(f"| {label} | {target or '-'} | " + " | ".join(cells) + " |")
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
