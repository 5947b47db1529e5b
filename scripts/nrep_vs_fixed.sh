#!/usr/bin/env bash
# How much NREP estimation saves: one campaign with NREP-estimated
# repetitions and one with a fixed count, both 5 launches of the full grid,
# then decisions recomputed (colltune-replay) from the fixed campaign's raw
# samples truncated to fewer repetitions, and to the per-point counts NREP
# chose. Prints wall-clock times, repetitions, time spent inside collectives
# and how many grid points decide as the full fixed campaign does.
#
#   scripts/nrep_vs_fixed.sh [--np 4] [--fixed 1000] [--launches 5]
set -euo pipefail
cd "$(dirname "$0")/.."
NP=4
FIXED=1000
LAUNCHES=5
source scripts/lib/options.sh
options "scripts/nrep_vs_fixed.sh [--np N] [--fixed N] [--launches N]" \
  --np=NP --fixed=FIXED --launches=LAUNCHES -- "$@"
build_opt //daemon:colltuned //daemon:colltune-replay //cli:colltune //bench:colltune-bench
WORK=$(mktemp -d /tmp/colltune-nrep.XXXXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf "$WORK"' EXIT

campaign() {  # NAME BENCH-ARGS...: a daemon of its own, a campaign, its time
  local name=$1
  shift
  "$BIN/daemon/colltuned" --db "$WORK/$name.db" --listen "unix:$WORK/$name.sock" \
    2>"$WORK/$name.log" &
  PIDS+=($!)
  for _ in $(seq 100); do
    "$BIN/cli/colltune" --server "unix:$WORK/$name.sock" profiles >/dev/null 2>&1 && break
    sleep 0.1
  done
  local start end
  start=$(date +%s.%N)
  "$BIN/cli/colltune" --server "unix:$WORK/$name.sock" campaign --np "$NP" \
    --launches "$LAUNCHES" --validate 0 --name "$name" --bench "$BIN/bench/colltune-bench" \
    -- --quiet "$@" </dev/null 2>"$WORK/$name.err" >/dev/null
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.1f}')" > "$WORK/$name.seconds"
}
echo "== campaign with NREP estimation ($LAUNCHES launches, $NP processes)"
campaign nrep --nrep auto
echo "   $(cat "$WORK/nrep.seconds") s"
echo "== campaign with $FIXED repetitions per point"
campaign fixed --nrep "$FIXED"
echo "   $(cat "$WORK/fixed.seconds") s"

python3 - "$WORK" "$BIN/daemon/colltune-replay" "$FIXED" <<'PY'
import shutil, sqlite3, struct, subprocess, sys
work, replay, fixed = sys.argv[1], sys.argv[2], int(sys.argv[3])

def table(db, *args):
    out = subprocess.check_output([replay, "--db", db, "--profile", "1",
                                   "--format", "shim", *args], text=True)
    rules = {}
    for line in out.splitlines():
        w = line.split()
        if len(w) >= 4 and w[0] not in ("colltune-table", "section", "force"):
            rules.setdefault(w[0], []).append(
                (int(w[1]), float("inf") if w[2] == "inf" else int(w[2]), w[3]))
    return rules

def at(rules, coll, size):
    for lo, hi, alg in rules.get(coll, []):
        if lo <= size <= hi:
            return alg
    return "default"

def grid(db):
    con = sqlite3.connect(db)
    return sorted(set(con.execute("SELECT collective, msg_bytes FROM measurements")))

def seconds(db, cap=None):
    """Time spent inside the measured collectives: the sum of the samples."""
    total, reps = 0.0, 0
    con = sqlite3.connect(db)
    for launch, coll, alg, size, blob in con.execute(
            "SELECT launch, collective, algorithm, msg_bytes, samples FROM measurements"):
        v = struct.unpack("<%df" % (len(blob) // 4), blob)
        n = len(v) if cap is None else min(len(v), cap(launch, coll, alg, size))
        total += sum(v[:n]); reps += n
    return total, reps

fixed_db, nrep_db = f"{work}/fixed.db", f"{work}/nrep.db"
points = grid(fixed_db)
reference = table(fixed_db)
def agreement(rules):
    same = sum(at(rules, c, s) == at(reference, c, s) for c, s in points)
    return f"{same}/{len(points)}"

counts = {}
for launch, coll, alg, size, n in sqlite3.connect(nrep_db).execute(
        "SELECT launch, collective, algorithm, msg_bytes, nrep FROM measurements"):
    counts[(launch, coll, alg, size)] = n
# The fixed campaign's samples cut to the counts NREP chose per point.
sim_db = f"{work}/nrep-on-fixed.db"
shutil.copy(fixed_db, sim_db)
con = sqlite3.connect(sim_db)
for row_id, launch, coll, alg, size, blob in list(con.execute(
        "SELECT id, launch, collective, algorithm, msg_bytes, samples FROM measurements")):
    n = min(len(blob) // 4, counts.get((launch, coll, alg, size), len(blob) // 4))
    con.execute("UPDATE measurements SET samples = ?, nrep = ? WHERE id = ?",
                (blob[:4 * n], n, row_id))
con.commit(); con.close()

print(f"\n{'method':<34} {'repetitions':>12} {'in-collective s':>16} {'same decisions':>15}")
t, r = seconds(fixed_db)
print(f"{'fixed ' + str(fixed) + ' (reference)':<34} {r:>12} {t:>16.2f} {agreement(reference):>15}")
for n in (5, 10, 20, 50, 100, 200, 500):
    if n >= fixed: break
    t, r = seconds(fixed_db, lambda *k, n=n: n)
    print(f"{'fixed ' + str(n) + ' (first n of the reference)':<34} {r:>12} {t:>16.2f} "
          f"{agreement(table(fixed_db, '--max-reps', str(n))):>15}")
t, r = seconds(sim_db)
print(f"{'NREP counts (on the reference data)':<34} {r:>12} {t:>16.2f} {agreement(table(sim_db)):>15}")
t, r = seconds(nrep_db)
print(f"{'NREP campaign (its own launches)':<34} {r:>12} {t:>16.2f} {agreement(table(nrep_db)):>15}")
PY
echo
echo "wall clock: NREP campaign $(cat "$WORK/nrep.seconds") s, fixed-$FIXED campaign $(cat "$WORK/fixed.seconds") s"
