#!/usr/bin/python3
"""Draws the plots of docs/img from the data the measuring scripts write.

  test/plot.py eval  test/eval/results.json  docs/img   (recall.svg, distances.svg)
  test/plot.py index test/bench/index_bench.csv docs/img (latency.svg, build.svg)

test/eval/evaluate.sh and test/bench/index_bench.sh run it after they measure;
run by hand, it redraws the committed data.  PLOT_PNG=DIR also writes each
plot as PNG to DIR (to look at).  Needs Debian's python3-matplotlib.
"""
import csv
import collections
import json
import os
import sys

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import matplotlib.ticker  # noqa: E402

# The same input draws the same SVG bytes: no date, fixed element ids.
matplotlib.rcParams.update({"svg.hashsalt": "simhash", "svg.fonttype": "none", "font.size": 10,
                            "axes.grid": True, "grid.alpha": 0.3})
LANGUAGE_COLOURS = {"en": "tab:blue", "zh": "tab:red"}
EDIT_COLOURS = {0.02: "tab:green", 0.05: "tab:orange", 0.2: "tab:purple"}
PLOTTED_LANGUAGES = ("en", "zh")


def save(fig, out_dir, name, note):
    """Writes the figure as out_dir/name.svg, with note (where the data came from) at its foot."""
    fig.text(0.01, 0.01, note, fontsize=8, color="0.35", ha="left", va="bottom")
    os.makedirs(out_dir, exist_ok=True)
    fig.savefig(os.path.join(out_dir, name + ".svg"), metadata={"Date": None})
    if os.environ.get("PLOT_PNG"):
        fig.savefig(os.path.join(os.environ["PLOT_PNG"], name + ".png"), dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- evaluation harness

def within(histogram, radius):
    n = sum(histogram)
    return sum(histogram[:radius + 1]) / n if n else float("nan")


def eval_plots(path, out_dir):
    data = json.load(open(path))
    t, w = data["threshold"], data["wide_threshold"]
    rates = data["rates"]
    note = f"{data['method']}; data: test/eval/results.json, drawn by bash test/eval/evaluate.sh ({data.get('run', '')})"
    set_names = {"long": "man pages", "short": "short texts", "natural": "licenses"}

    # recall.svg: edited copies kept within t and w, and unrelated pairs within them
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6), gridspec_kw={"width_ratios": [1.1, 1]})
    for lang in PLOTTED_LANGUAGES:
        name = data["languages"][lang]
        for radius, style in ((t, "-"), (w, "--")):
            ys = [within(data["edited"][lang][f"{r:g}"], radius) for r in rates]
            left.plot([100 * r for r in rates], ys, style, marker="o", color=LANGUAGE_COLOURS[lang],
                      label=f"{name}, within {radius}")
    left.set_xscale("log")
    left.set_xticks([100 * r for r in rates], [f"{100 * r:g}" for r in rates])
    left.minorticks_off()
    left.set_ylim(0, 1.02)
    left.set_xlabel("edit rate (% of words substituted, deleted or inserted)")
    left.set_ylabel("recall: share of edited copies within the radius")
    left.set_title("Edited copies of man pages found")
    left.legend(loc="lower left")

    groups, shares3, shares6, counts = [], [], [], []
    for lang in PLOTTED_LANGUAGES:
        for cls, histogram in sorted(data["unrelated"][lang].items()):
            n = sum(histogram)
            groups.append(f"{data['languages'][lang]}\n{set_names.get(cls, cls)}\n{n:,} pairs")
            shares3.append(within(histogram, t))
            shares6.append(within(histogram, w))
            counts.append((sum(histogram[:t + 1]), sum(histogram[:w + 1]), n))
    floor = 0.3 / max(c[2] for c in counts)  # where a bar of no pair ends, below any real rate
    xs = range(len(groups))
    for offset, shares, radius, colour, k in ((-0.2, shares3, t, "0.25", 0), (0.2, shares6, w, "0.65", 1)):
        heights = [max(s, floor) for s in shares]
        right.bar([x + offset for x in xs], heights, width=0.4, color=colour, label=f"within {radius}")
        for x, h, c in zip(xs, heights, counts):
            right.text(x + offset, h * 1.3, str(c[k]), ha="center", va="bottom", fontsize=8)
    right.set_yscale("log")
    right.set_ylim(floor, 1e-1)
    right.set_xticks(list(xs), groups, fontsize=8)
    right.set_ylabel("false-positive rate: share of unrelated pairs")
    right.set_title(f"Unrelated pairs (shingle Jaccard < {data['unrelated_jaccard']}) within the radius\n"
                    "(numbers: pairs; no bar: none)", fontsize=10)
    right.legend(loc="upper right")
    fig.suptitle("simhash(text): recall of edited copies and false positives, by radius", fontsize=12)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    save(fig, out_dir, "recall", note)

    # distances.svg: where unrelated pairs and edited copies fall
    fig, axes = plt.subplots(1, len(PLOTTED_LANGUAGES), figsize=(11, 4.4), sharey=True)
    shown_rates = [r for r in rates if r in EDIT_COLOURS]
    for ax, lang in zip(axes, PLOTTED_LANGUAGES):
        for r in shown_rates:
            h = data["edited"][lang][f"{r:g}"]
            n = sum(h)
            ax.step(range(65), [c / n for c in h], where="mid", color=EDIT_COLOURS[r], label=f"edited copies, {100 * r:g}% edits")
        for cls, style in (("long", "-"), ("short", ":")):
            h = data["unrelated"][lang].get(cls)
            if h:
                n = sum(h)
                ax.step(range(65), [c / n for c in h], style, where="mid", color="black",
                        label=f"unrelated pairs, {set_names[cls]}")
        for radius in (t, w):
            ax.axvline(radius + 0.5, color="0.5", linewidth=1, linestyle="--")
            ax.text(radius + 0.7, 0.5, f"≤ {radius}", color="0.3", fontsize=8)
        ax.set_yscale("log")
        ax.set_ylim(5e-7, 1)  # one pair of the largest set (1.1 million) still shows
        ax.set_xlim(-0.5, 48)
        ax.set_xlabel("Hamming distance between the two fingerprints (bits of 64)")
        ax.set_title(data["languages"][lang])
    axes[0].set_ylabel("share of the pairs at each distance")
    # one legend for both panels, below them: inside, it would hide the unrelated pairs' peak
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=8,
               bbox_to_anchor=(0.5, 0.05))
    fig.suptitle("simhash(text): distances of edited copies and of unrelated pairs", fontsize=12)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    save(fig, out_dir, "distances", note)


# ---------------------------------------------------------------- index benchmark

def read_index_csv(path):
    """{(set, measure, approach): {rows: value}} and the run's description."""
    series = collections.defaultdict(dict)
    run = ""
    with open(path) as f:
        for rec in csv.DictReader(f):
            if rec["measure"] == "run":
                run = rec["approach"]
                continue
            series[(rec["set"], rec["measure"], rec["approach"])][int(rec["rows"])] = float(rec["value"])
    return series, run


def line(ax, series, key, label, **style):
    points = sorted(series.get(key, {}).items())
    if points:
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label, **style)


def size_axis(ax, ylabel, title):
    ax.set_xscale("log")
    ax.set_yscale("log")
    # label the 2s and 5s between the powers of ten too: a panel may span less than two decades
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: f"{v:g}" if f"{v:e}"[0] in "25" else ""))
    ax.set_xlabel("rows in the table")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)


APPROACH_STYLES = {"seq scan": dict(color="0.45"), "four btrees": dict(color="tab:orange"),
                   "simhash": dict(color="tab:blue")}


def index_plots(path, out_dir):
    series, run = read_index_csv(path)
    s = "uniform"
    note = f"uniform random fingerprints with planted near-duplicates; data: test/bench/index_bench.csv, " \
           f"drawn by bash test/bench/index_bench.sh ({run})"

    fig, (r3, knn) = plt.subplots(1, 2, figsize=(11, 4.6))
    for approach in ("seq scan", "four btrees", "simhash"):
        line(r3, series, (s, "radius3_p50_ms", approach), approach, **APPROACH_STYLES[approach])
    line(r3, series, (s, "floor_p50_ms", "no search"), "round trip alone (no search)", color="0.7", linestyle=":")
    size_axis(r3, "median latency per query (ms, client side)", "Radius 3: rows within 3 bits")
    line(knn, series, (s, "knn10_p50_ms", "seq scan"), "seq scan (the btrees' plan too)", **APPROACH_STYLES["seq scan"])
    line(knn, series, (s, "knn10_p50_ms", "simhash, q uniform"), "simhash, query far from every row",
         **APPROACH_STYLES["simhash"])
    line(knn, series, (s, "knn10_p50_ms", "simhash, q in a cluster"), "simhash, query among near-duplicates",
         color="tab:blue", linestyle="--")
    line(knn, series, (s, "floor_p50_ms", "no search"), "round trip alone (no search)", color="0.7", linestyle=":")
    size_axis(knn, "median latency per query (ms, client side)",
              "KNN: the 10 nearest rows")
    fig.suptitle("Query latency against table size: sequential scan, four btrees, simhash index", fontsize=12)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    save(fig, out_dir, "latency", note)

    fig, (build, size) = plt.subplots(1, 2, figsize=(11, 4.4))
    for approach in ("four btrees", "simhash"):
        line(build, series, (s, "build_s", approach), approach, **APPROACH_STYLES[approach])
        line(size, series, (s, "size_mib", approach), approach, **APPROACH_STYLES[approach])
    size_axis(build, "CREATE INDEX time (s)", "Index build time")
    size_axis(size, "index size (MiB)", "Index size on disk")
    fig.suptitle("Index build time and size against table size: simhash against four btrees", fontsize=12)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    save(fig, out_dir, "build", note)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("eval", "index"):
        sys.exit(__doc__)
    {"eval": eval_plots, "index": index_plots}[sys.argv[1]](sys.argv[2], sys.argv[3])
