#!/usr/bin/env python3
"""What would another decision table have scored in an evaluation already run?

`colltune evaluate --launches N --log-dir DIR` keeps, per launch, every
candidate's median latency at every point (bench/evaluation.h). Since every
candidate was measured, any table over the same grid can be scored against
those medians without running MPI again: at each point the table's algorithm
is looked up as the shim would (the section for the communicator size, the
rule whose byte range holds the point) and timed by that candidate's series.
Scoring follows bench/evaluation.cc: a point's latency is the median of its
per-launch medians; the penalty is max(0, 1 - t_oracle / t_table); the
cross-validated oracle is picked on the even-numbered repetitions and timed
on the odd-numbered ones, as is the table's algorithm.

  scripts/whatif_table.py --points DIR --table FILE [--table FILE2 ...]
                          [--comm-size N] [--worst 10] [--regime sync|loop|imbalance]

Each regime the evaluation timed (synchronized, back to back, after uneven
work) is scored apart: --regime picks one (sync by default).

Tables are in the shim's text format (docs/table-format.md): `colltune table
--format shim`, or `colltune-replay --format shim` for the decisions other
engine options would make from the same campaign. A table named "measured"
scores the `tuned` series the evaluation actually ran (a check that this
script reproduces `colltune evaluate`'s own summary).

The penalty measured this way uses the candidate series, not the shim's
dispatch of the table: the two run the same code, but a point whose lookup
goes through the shim pays its (small) dispatch cost only in the evaluation.
Choosing engine options by scoring them on one evaluation fits them to that
evaluation: confirm a choice with a fresh campaign and evaluation.
"""
import argparse
import glob
import os
import statistics
import sys


def parse_points(directory, regime="sync"):
    launches = []
    for path in sorted(glob.glob(os.path.join(directory, "points-*"))):
        records = []
        with open(path) as f:
            for line in f:
                t = line.split()
                if not t or t[0] != "point":
                    continue
                coll, nbytes, tuned, n = t[1], int(t[2]), t[3], int(t[4])
                # Seed 003's datatype grid (bcast@tiled/8B): decided by layout
                # rules, which this scorer does not model; evaluate scores them.
                if "@" in coll:
                    continue
                # A record's regime follows its series; none: sync.
                if (t[5 + 4 * n] if len(t) > 5 + 4 * n else "sync") != regime:
                    continue
                series = {}
                for i in range(n):
                    name, med, even, odd = t[5 + 4 * i: 9 + 4 * i]
                    series[name] = (float(med), float(even), float(odd))
                records.append((coll, nbytes, tuned, series))
        launches.append(records)
    if not launches:
        sys.exit(f"whatif_table: no points-* files in {directory}")
    return launches


def parse_table(path, comm_size):
    """The rules of the section for comm_size: {collective: [(lo, hi, alg)]}."""
    sections, current = {}, None
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t or t[0].startswith("#") or t[0] in ("colltune-table", "library",
                                                         "force", "reproducible"):
                continue
            if t[0] == "section":
                current = sections.setdefault(t[1], {})
                continue
            if current is None or len(t) < 4:
                sys.exit(f"whatif_table: {path}: unexpected line: {line.strip()}")
            hi = float("inf") if t[2] == "inf" else int(t[2])
            current.setdefault(t[0], []).append((int(t[1]), hi, t[3]))
    if str(comm_size) in sections:
        return sections[str(comm_size)]
    if "*" in sections:
        return sections["*"]
    if len(sections) == 1:
        return next(iter(sections.values()))
    sys.exit(f"whatif_table: {path}: no section for {comm_size} processes")


def lookup(rules, coll, nbytes):
    for lo, hi, alg in rules.get(coll, []):
        if lo <= nbytes <= hi:
            return alg
    return "default"


def score(launches, choose):
    """choose(coll, bytes, measured_tuned) -> the series name to time."""
    by_point = {}
    for records in launches:
        for coll, nbytes, tuned, series in records:
            by_point.setdefault((coll, nbytes), (tuned, []))[1].append(series)
    rows = []
    for (coll, nbytes), (tuned, per_launch) in sorted(by_point.items()):
        names = [n for n in per_launch[0] if n != "tuned"]
        med = {n: statistics.median(s[n][0] for s in per_launch if n in s) for n in names}
        even = {n: statistics.median(s[n][1] for s in per_launch if n in s) for n in names}
        odd = {n: statistics.median(s[n][2] for s in per_launch if n in s) for n in names}
        oracle = min(names, key=lambda n: med[n])
        pick = min(names, key=lambda n: even[n])
        alg = choose(coll, nbytes, tuned)
        if alg == "tuned":
            alg = tuned
            t = statistics.median(s["tuned"][0] for s in per_launch)
            t_odd = statistics.median(s["tuned"][2] for s in per_launch)
        elif alg in med:
            t, t_odd = med[alg], odd[alg]
        else:  # not measured here (not eligible at this point): the shim runs default
            alg = "default"
            t, t_odd = med["default"], odd["default"]
        rows.append(dict(coll=coll, bytes=nbytes, alg=alg, t=t, t_def=med["default"],
                         oracle=oracle, t_oracle=med[oracle],
                         cv=odd[pick] / t_odd, o=med[oracle] / t))
    return rows


def summary(rows):
    n = len(rows)
    o = [r["o"] for r in rows]
    cv = [r["cv"] for r in rows]
    changed = [r for r in rows if r["alg"] not in ("default",)]
    slower = sum(1 for r in changed if r["t"] * 0.9 > r["t_def"])
    return (f"median {statistics.median(o):.3f}, worst {min(o):.3f}, mean penalty "
            f"{100 * sum(max(0, 1 - x) for x in o) / n:.2f} %; cross-validated median "
            f"{statistics.median(cv):.3f}, mean penalty "
            f"{100 * sum(max(0, 1 - x) for x in cv) / n:.2f} %; changed {len(changed)}, "
            f">10 % slower than default {slower}; {n} points")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--points", required=True, help="colltune evaluate --log-dir DIR")
    ap.add_argument("--table", action="append", required=True,
                    help="a table in the shim's format, or 'measured'")
    ap.add_argument("--comm-size", type=int, default=4)
    ap.add_argument("--worst", type=int, default=0, help="list the N costliest points")
    ap.add_argument("--regime", default="sync", choices=["sync", "loop", "imbalance"],
                    help="the regime to score (each is scored apart)")
    a = ap.parse_args()
    launches = parse_points(a.points, a.regime)
    for path in a.table:
        if path == "measured":
            rows = score(launches, lambda c, b, tuned: "tuned")
        else:
            rules = parse_table(path, a.comm_size)
            rows = score(launches, lambda c, b, tuned: lookup(rules, c, b))
        print(f"{path}: {summary(rows)}")
        for r in sorted(rows, key=lambda r: r["o"])[:a.worst]:
            print(f"  {r['coll']:<22} {r['bytes']:>9} {r['alg']:<42} {r['t'] * 1e6:9.2f} us"
                  f"  oracle {r['oracle']} {r['t_oracle'] * 1e6:.2f} us  ({r['o']:.3f})")


if __name__ == "__main__":
    main()
