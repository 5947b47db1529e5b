#!/usr/bin/env python3
"""Compares what a real application printed natively and under the shim, and
the collective calls it made (counted by count_calls.c) with the calls the
shim's job report says it saw.

  compare.py qe NATIVE.out SHIM.out          pw.x: energies, forces, stress
  compare.py lammps NATIVE.out SHIM.out      lmp: the thermo table
  compare.py calls COUNT_DIR REPORT          calls made vs calls in the report

Numbers are compared, not text: a different (legal) order of floating-point
additions may flip the sign of a printed zero or the last digits of a
15-digit value. Prints one line per quantity; exits 1 on any difference.
"""
import glob
import re
import sys

NUMBER = re.compile(r"[-+]?\d+\.\d*(?:[eEdD][-+]?\d+)?|[-+]?\d+")


def numbers(line):
    return [float(x.replace("D", "e").replace("d", "e")) for x in NUMBER.findall(line)]


def qe_quantities(path):
    """(label, [numbers]) for every line pw.x prints a result on."""
    keys = ("highest occupied level", "!    total energy", "one-electron contribution",
            "hartree contribution", "xc contribution", "ewald contribution",
            "convergence has been achieved", "Total force", "P=", "atom    1 type  1   force",
            "atom    2 type  1   force")
    out = []
    for line in open(path, errors="replace"):
        for k in keys:
            if k in line:
                out.append((k.strip("! "), numbers(line.split("=", 1)[-1] if "=" in line else line)))
    return out


def lammps_rows(path):
    rows, inside = [], False
    for line in open(path, errors="replace"):
        if line.startswith("Step"):
            inside = True
            continue
        if line.startswith("Loop time"):
            inside = False
        elif inside and line.strip():
            rows.append(("step " + line.split()[0], numbers(line)))
    return rows


def compare(native, shim, close):
    if not native:
        print("no results found in the native output")
        return 1
    if len(native) != len(shim):
        print("native printed %d results, under the shim %d" % (len(native), len(shim)))
        return 1
    bad = 0
    for (label, a), (label2, b) in zip(native, shim):
        ok = label == label2 and len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
        bad += not ok
        if not ok:
            print("DIFFERS %s: native %s, shim %s" % (label, a, b))
    print("%d results compared, %d differ" % (len(native), bad))
    return 1 if bad else 0


def calls(count_dir, report):
    made = {}
    for path in glob.glob(count_dir + "/*.count"):
        for line in open(path):
            name, n = line.split()
            made[name] = made.get(name, 0) + int(n)
    seen = {}
    for line in open(report):
        f = line.split()
        if f and f[0] == "timing":  # timing comm_size profile coll alg bucket calls ...
            seen[f[3]] = seen.get(f[3], 0) + int(f[6])
    bad = 0
    for name in sorted(set(made) | set(seen)):
        m, s = made.get(name, 0), seen.get(name, 0)
        if m == 0 and s == 0:
            continue
        bad += m != s
        print("%-22s made %7d  seen by the shim %7d%s" % (name, m, s, "" if m == s else "  DIFFERS"))
    if not made:
        print("no counts in " + count_dir)
        return 1
    return 1 if bad else 0


def main():
    what = sys.argv[1]
    if what == "qe":
        return compare(qe_quantities(sys.argv[2]), qe_quantities(sys.argv[3]),
                       lambda x, y: abs(x - y) <= 1e-6)
    if what == "lammps":
        return compare(lammps_rows(sys.argv[2]), lammps_rows(sys.argv[3]),
                       lambda x, y: abs(x - y) <= 1e-10 * max(abs(x), abs(y)) + 1e-12)
    if what == "calls":
        return calls(sys.argv[2], sys.argv[3])
    sys.exit("usage: compare.py qe|lammps|calls A B")


if __name__ == "__main__":
    sys.exit(main())
