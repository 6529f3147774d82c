#!/usr/bin/python3
"""Residual against wall time per FCLIB problem, one curve per solver (log-log, in the manner of
paper 002 Fig. 7), from the CSV of bench/solvers (-csv FILE).

    python3 scripts/plot_solvers.py curves.csv [-o folder]

Writes <folder>/<problem>.png (folder: beside the CSV by default). Each point is one fresh solve
from zero with a given iteration cap: its wall time and Siconos's nat + dyn. Failed runs are
left out of the curves and named in the legend. Dashed lines: the 1e-4 and 1e-8 levels at which
Acary, Bremond and Huber (2018) compare solvers."""
import argparse
import csv
import math
import os
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    curves = OrderedDict()  # problem -> solver -> list of (seconds, residual), status
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            per = curves.setdefault(row["problem"], OrderedDict())
            c = per.setdefault(row["solver"], {"points": [], "status": "ok"})
            if row["status"] == "ok":
                t, r = float(row["seconds"]), float(row["residual"])
                if math.isfinite(t) and math.isfinite(r):
                    c["points"].append((max(t, 1e-7), max(r, 1e-17)))
            else:
                c["status"] = row["status"]
    return curves


def plot(problem, per, out):
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for solver, c in per.items():
        pts = sorted(c["points"])
        label = solver if c["status"] == "ok" else "%s (%s)" % (solver, c["status"][:50])
        if pts:
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=label)
        else:
            ax.plot([], [], " ", label=label)  # a solver that never produced a point: legend only
    for level in (1e-4, 1e-8):
        ax.axhline(level, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("wall time from zero start (s)")
    ax.set_ylabel("nat + dyn (Siconos)")
    ax.set_title(problem, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("-o", "--out", default=None, help="folder for the PNGs (default: beside the CSV)")
    a = ap.parse_args()
    out = a.out or os.path.dirname(os.path.abspath(a.csv))
    os.makedirs(out, exist_ok=True)
    curves = read(a.csv)
    if not curves:
        sys.exit("%s: no rows" % a.csv)
    for problem, per in curves.items():
        name = os.path.join(out, os.path.splitext(problem)[0] + ".png")
        plot(problem, per, name)
        print(name)


if __name__ == "__main__":
    main()
