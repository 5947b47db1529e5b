#!/usr/bin/env bash
# The emulated cluster (scripts/cluster.sh) and colltune across it:
#   a. the script refuses bad arguments and a caller who is not root, with
#      one clear line, and then leaves nothing behind;
#   b. two nodes with their own host names, addresses and links; bringing
#      them up again (with a bandwidth limit) works;
#   c. Open MPI (2 nodes x 2 processes) and MPICH (2 x 1) jobs run across
#      them natively and under the shim, which sees 2 nodes;
#   d. every mock-up, forced, leaves memory as the library's own collective
#      does (tests/mpi/differential.cc) across the nodes, under both;
#   d2. the hierarchical mock-ups the same way in the layouts they must
#      survive: placed round robin, uneven (3 + 1 processes), under both
#      libraries; where a layout rules one out (lanes need the same number
#      of processes on every node) the library's own collective runs;
#   e. a Slurm cluster on the nodes (slurmctld here, a slurmd in each node):
#      srun jobs of both libraries across them under the shim, a batch job
#      on 2 nodes, and a `colltune campaign --launcher slurm --nodes 2` whose
#      profile is 4 processes on 2 nodes, 2 per node, served to a job on 2
#      nodes and withheld, with the reason, from a job on one; a campaign
#      per layout (--layouts 2x2:round_robin,3+1) keeps a profile for each;
#   f. taking the cluster down removes every namespace, link, /etc/hosts line
#      and file it made.
#
# Args: cluster.sh colltune colltuned colltune-bench collective_mix
#       collective_mix_mpich libcolltune.so libcolltune-mpich.so
#       differential_openmpi differential_mpich
source tests/lib/testlib.sh
source tests/lib/cluster.sh
source tests/lib/slurm.sh
args_as CLUSTER COLLTUNE_CLI COLLTUNED BENCH APP APP_MPICH SHIM SHIM_MPICH DIFF_OMPI \
  DIFF_MPICH -- "$@"
# Names and addresses of this run's own: runs on one machine must not meet.
NAME=ct$(( $$ % 1000000 ))
SUBNET=10.$(( 100 + $$ % 100 )).$(( ($$ / 100) % 250 ))
CASES=${CASES:-10}

leftovers() {  # what a cluster named $NAME left behind, if anything
  ip netns list | awk '{print $1}' | grep -E "^${NAME}[0-9]+$"
  ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^${NAME}(h[0-9]+|br)$"
  grep -F "colltune-cluster $NAME" /etc/hosts
  [ -e "/run/colltune-cluster/$NAME" ] && echo "/run/colltune-cluster/$NAME"
  return 0
}

# a. Refusals.
expect_fail "up needs a number of nodes from 1 to 16" "N must be 1 to 16" \
  "$CLUSTER" up 0 --name "$NAME"
expect_fail "a name that cannot make interface names is refused" "--name must be" \
  "$CLUSTER" up 2 --name "Bad_Name"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$CLUSTER" up 2 --name "$NAME" \
      --subnet "$SUBNET" 2>&1 </dev/null)
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -q "needs root" <<<"$out" &&
   [ -z "$(leftovers)" ]; then
  pass "without root: one clear line, nothing made"
else
  fail "without root: one clear line, nothing made" "rc=$rc"$'\n'"$out"$'\n'"$(leftovers)"
fi

# b. Two nodes.
if start_cluster "$CLUSTER" 2 "$NAME" "$SUBNET"; then
  pass "two nodes come up"
else
  fail "two nodes come up" "see above"
  finish; exit 1
fi
check "the nodes are $NAME""1 and $NAME""2" test "$CLUSTER_NODES" = "${NAME}1 ${NAME}2"
check "each node has its own host name" \
  test "$("$CLUSTER_AGENT" "${NAME}1" hostname),$("$CLUSTER_AGENT" -x "${NAME}2" hostname)" = \
  "${NAME}1,${NAME}2"
check "each node has its own address on the bridge's subnet" \
  bash -c "'$CLUSTER_AGENT' ${NAME}2 ip -4 -o addr show dev eth0 | grep -q ' $SUBNET.2/24 '"
expect_fail "the agent runs nothing on a host outside the cluster" "not a node" \
  "$CLUSTER_AGENT" otherhost hostname
out=$("$CLUSTER" up 2 --name "$NAME" --subnet "$SUBNET" --rate 500mbit 2>&1)
if [ $? -eq 0 ] && eval "$out" && tc qdisc show dev "${NAME}h1" | grep -q tbf &&
   [ "$(ip netns list | grep -cE "^${NAME}[0-9]+")" -eq 2 ]; then
  pass "up again replaces the cluster (here with a bandwidth limit)"
else
  fail "up again replaces the cluster (here with a bandwidth limit)" "$out"
fi

# c. Jobs across the nodes.
out=$(on_openmpi "${NAME}1:2,${NAME}2:2" -np 4 "$APP" 2>&1)
expect_output "Open MPI 2 x 2 runs across the nodes" $? "$out" "results verified"
out=$(on_openmpi "${NAME}1:2,${NAME}2:2" -np 4 -x LD_PRELOAD="$SHIM" -x COLLTUNE_VERBOSE=1 \
      -x COLLTUNE_FORCE=allreduce=allreduce_as_reduce_bcast "$APP" 2>&1)
expect_output "Open MPI 2 x 2 under the shim: 2 nodes seen, a mock-up runs across them" \
  $? "$out" "results verified" "on 4 processes, 2 nodes" \
  "ran mock-ups: .*allreduce_as_reduce_bcast=[1-9]"
out=$(on_mpich "${NAME}1:1,${NAME}2:1" -np 2 -genv LD_PRELOAD "$SHIM_MPICH" \
      -genv COLLTUNE_VERBOSE 1 "$APP_MPICH" 2>&1)
expect_output "MPICH 2 x 1 under the shim: 2 nodes seen" $? "$out" \
  "results verified" "on 2 processes, 2 nodes"
# On two nodes with two processes each, exploring tries the hierarchical
# mock-ups too (a job on one node leaves them out: consistency_test.sh).
mkdir -p "$T_TMP/explore_spool"
out=$(on_openmpi "${NAME}1:2,${NAME}2:2" -np 4 -x LD_PRELOAD="$SHIM" \
      -x COLLTUNE_SPOOL_DIR="$T_TMP/explore_spool" -x COLLTUNE_SAMPLE=1 -x COLLTUNE_EXPLORE=1 \
      -x COLLTUNE_EXPLORE_MIN_CALLS=0 "$APP" --collectives allreduce,bcast --iters 200 2>&1)
explored=$(cat "$T_TMP"/explore_spool/*.report 2>/dev/null |
           awk '$1 == "timing" && $9 > 0 { print $5 }' | sort -u | tr '\n' ' ')
if grep -q "results verified" <<<"$out" && grep -Eq "_as_(nodes|lanes) " <<<"$explored"; then
  pass "Open MPI 2 x 2 exploring: hierarchical mock-ups explored across the nodes"
else
  fail "Open MPI 2 x 2 exploring: hierarchical mock-ups explored across the nodes" \
    "explored: $explored"$'\n'"$out"
fi

# d. Every mock-up across the nodes, byte for byte against the library.
mapfile -t PAIRS < <("$COLLTUNE_CLI" algorithms |
  awk 'NR > 1 && $2 != "default" && $3 != "native" && $3 != "job" { print $1 " " $2 }')
[ "${#PAIRS[@]}" -gt 0 ] || fail "colltune algorithms lists mock-ups" "none listed"
for pair in "${PAIRS[@]}"; do
  read -r coll alg <<<"$pair"
  out=$(on_openmpi "${NAME}1:2,${NAME}2:2" -np 4 -x LD_PRELOAD="$SHIM" \
        -x COLLTUNE_FORCE="$coll=$alg" -x COLLTUNE_VERBOSE=1 \
        "$DIFF_OMPI" --collective "$coll" --cases "$CASES" --seed 4 2>&1)
  expect_output "Open MPI 2 x 2 across nodes: $alg" $? "$out" "ran mock-ups: .*\b$alg=[1-9]"
  out=$(on_mpich "${NAME}1:1,${NAME}2:1" -np 2 -genv LD_PRELOAD "$SHIM_MPICH" \
        -genv COLLTUNE_FORCE "$coll=$alg" -genv COLLTUNE_VERBOSE 1 \
        "$DIFF_MPICH" --collective "$coll" --cases "$CASES" --seed 2 2>&1)
  expect_output "MPICH 2 x 1 across nodes: $alg" $? "$out" "ran mock-ups: .*\b$alg=[1-9]"
done

# d2. The hierarchical mock-ups in irregular layouts. The differential's
# communicators add more: halves of the world that span one node or both,
# and the world in reverse rank order.
mapfile -t HIER < <(printf '%s\n' "${PAIRS[@]}" | grep -E '_as_(nodes|lanes)$')
[ "${#HIER[@]}" -ge 8 ] || fail "colltune algorithms lists the hierarchical mock-ups" \
  "$(printf '%s\n' "${HIER[@]}")"
for pair in "${HIER[@]}"; do
  read -r coll alg <<<"$pair"
  ran="ran mock-ups: .*\b$alg=[1-9]"
  out=$(on_openmpi "${NAME}1:2,${NAME}2:2" -np 4 --map-by node -x LD_PRELOAD="$SHIM" \
        -x COLLTUNE_FORCE="$coll=$alg" -x COLLTUNE_VERBOSE=1 \
        "$DIFF_OMPI" --collective "$coll" --cases "$CASES" --seed 5 2>&1)
  expect_output "Open MPI 2 x 2 round robin: $alg" $? "$out" "$ran" \
    "on 4 processes, 2 nodes \(2 x 2, round robin\)"
  out=$(on_openmpi "${NAME}1:3,${NAME}2:1" -np 4 -x LD_PRELOAD="$SHIM" \
        -x COLLTUNE_FORCE="$coll=$alg" -x COLLTUNE_VERBOSE=1 \
        "$DIFF_OMPI" --collective "$coll" --cases "$CASES" --seed 6 2>&1)
  rc=$?
  if [[ $alg == allreduce_as_lanes ]]; then
    expect_output "Open MPI 3 + 1: $alg where it can, ${coll}_as_nodes elsewhere" $rc "$out" \
      "$ran" "cannot run a $coll call on 4 processes" \
      "not eligible: .*\b$alg=[1-9]" "ran mock-ups: .*\b${coll}_as_nodes=[1-9]"
  elif [[ $alg == *_as_lanes ]]; then
    expect_output "Open MPI 3 + 1: $alg where it can, the library's own elsewhere" $rc "$out" \
      "$ran" "cannot run a $coll call on 4 processes" "not eligible: .*\b$alg=[1-9]"
    check "... and not ${coll}_as_nodes" bash -c '! grep -Eq "ran mock-ups: .*\b$1=" <<<"$2"' \
      _ "${coll}_as_nodes" "$out"
  else
    expect_output "Open MPI 3 + 1: $alg" $rc "$out" "$ran" \
      "on 4 processes, 2 nodes \(3\+1 on 2 nodes\)"
  fi
  out=$(on_mpich "${NAME}1:2,${NAME}2:2" -np 4 -genv LD_PRELOAD "$SHIM_MPICH" \
        -genv COLLTUNE_FORCE "$coll=$alg" -genv COLLTUNE_VERBOSE 1 \
        "$DIFF_MPICH" --collective "$coll" --cases "$CASES" --seed 4 2>&1)
  expect_output "MPICH 2 x 2: $alg" $? "$out" "$ran" "on 4 processes, 2 nodes \(2 x 2\)"
  out=$(on_mpich "${NAME}1:3,${NAME}2:1" -np 4 -genv LD_PRELOAD "$SHIM_MPICH" \
        -genv COLLTUNE_FORCE "$coll=$alg" -genv COLLTUNE_VERBOSE 1 \
        "$DIFF_MPICH" --collective "$coll" --cases "$CASES" --seed 7 2>&1)
  expect_output "MPICH 3 + 1: $alg" $? "$out" "$ran" \
    "on 4 processes, 2 nodes \(3\+1 on 2 nodes\)"
done

# d3. A defect the shim repairs: with coll/han enabled and ranks placed round
# robin, Open MPI 4.1.4's own MPI_Gather leaves the root's buffer untouched
# (open-mpi/ompi issue 11664); under the shim every gather runs
# gather_as_gatherv and the program's results verify.
HAN=(--map-by node --mca coll_han_priority 100)
out=$(on_openmpi "${NAME}1:2,${NAME}2:2" -np 4 "${HAN[@]}" "$APP" --iters 3 2>&1)
rc=$?
if [ $rc -ne 0 ] && ! grep -q "results verified" <<<"$out"; then
  pass "the defect: Open MPI's gather under coll/han, round robin, gives wrong results natively"
else
  fail "the defect: Open MPI's gather under coll/han, round robin, gives wrong results natively" \
    "rc=$rc"$'\n'"$out"
fi
out=$(on_openmpi "${NAME}1:2,${NAME}2:2" -np 4 "${HAN[@]}" -x LD_PRELOAD="$SHIM" \
      -x COLLTUNE_VERBOSE=1 "$APP" --iters 3 2>&1)
expect_output "... repaired under the shim: gather runs gather_as_gatherv, results verified" $? \
  "$out" "results verified" "repair: Open MPI 4.1.4 with coll/han enabled .*issue 11664" \
  "on 4 processes, 2 nodes \(2 x 2, round robin\)" "ran mock-ups: .*gather_as_gatherv=[1-9]"
out=$(on_openmpi "${NAME}1:2,${NAME}2:2" -np 4 -x LD_PRELOAD="$SHIM" -x COLLTUNE_VERBOSE=1 \
      "$APP" --iters 3 2>&1)
expect_output "... and nothing is repaired where coll/han is off" $? "$out" "results verified"
check "... (no repair line)" bash -c '! grep -q "repair:" <<<"$1"' _ "$out"

# e. Slurm across the nodes. Its files, the daemon's socket and the job
# scripts live outside /tmp, which every node has of its own.
VDIR=$(mktemp -d /var/tmp/colltune-ct.XXXXXX)
trap 'stop_slurm; stop_munge; stop_cluster; rm -rf "$VDIR"; _t_cleanup' EXIT
if start_munge "$VDIR" >"$VDIR/start.out" 2>&1 && start_slurm_cluster "$VDIR" >>"$VDIR/start.out" 2>&1; then
  pass "a Slurm cluster with a slurmd in each node"
  check "Slurm lists both nodes idle" \
    test "$(sinfo -h -N -o '%N %t' | sort | tr '\n' ' ')" = "${NAME}1 idle ${NAME}2 idle "
  out=$(timeout 60 srun -N 2 -n 4 --mpi=pmix \
        --export=ALL,LD_PRELOAD="$SHIM",COLLTUNE_VERBOSE=1,COLLTUNE_FORCE=bcast=bcast_as_scatter_allgather,OMPI_MCA_mpi_yield_when_idle=1,OMPI_MCA_btl_tcp_if_include="$CLUSTER_SUBNET",OMPI_MCA_oob_tcp_if_include="$CLUSTER_SUBNET" \
        "$APP" 2>&1 </dev/null)
  expect_output "srun -N 2 -n 4: Open MPI across the nodes under the shim" $? "$out" \
    "results verified" "on 4 processes, 2 nodes" "ran mock-ups: .*bcast_as_scatter_allgather=[1-9]"
  out=$(MPIR_CVAR_POLLS_BEFORE_YIELD=1 timeout 60 srun -N 2 -n 2 --mpi=pmi2 \
        --export=ALL,LD_PRELOAD="$SHIM_MPICH",COLLTUNE_VERBOSE=1 "$APP_MPICH" 2>&1 </dev/null)
  expect_output "srun -N 2 -n 2: MPICH across the nodes under the shim" $? "$out" \
    "results verified" "on 2 processes, 2 nodes"
  printf '#!/bin/sh\nsrun --mpi=pmix %s\n' "$APP" >"$VDIR/batch.sh"
  out=$(OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl_tcp_if_include="$CLUSTER_SUBNET" \
        OMPI_MCA_oob_tcp_if_include="$CLUSTER_SUBNET" timeout 90 \
        sbatch --wait -N 2 -n 4 --output="$VDIR/batch.out" "$VDIR/batch.sh" 2>&1 </dev/null)
  expect_output "sbatch -N 2: a batch job across the nodes" $? "$out$(cat "$VDIR/batch.out" 2>/dev/null)" \
    "results verified"
  if start_daemon "$COLLTUNED" "$VDIR/colltune.db" "$VDIR/d.sock"; then
    mkdir -p "$VDIR/jobs"
    out=$(OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl_tcp_if_include="$CLUSTER_SUBNET" \
          OMPI_MCA_oob_tcp_if_include="$CLUSTER_SUBNET" timeout 300 \
          "$COLLTUNE_CLI" --server "unix:$VDIR/d.sock" campaign --validate 0 --launcher slurm \
          --job-dir "$VDIR/jobs" --nodes 2 --np 4 --bench "$BENCH" --launches 1 \
          --name twonodes -- --collectives allreduce,bcast --sizes 8,64K --nrep 5 --quiet \
          2>&1 </dev/null)
    expect_output "colltune campaign --launcher slurm --nodes 2 runs across the nodes" $? \
      "$out" "campaign 'twonodes': 1 launches on 4 processes"
    out=$("$COLLTUNE_CLI" --server "unix:$VDIR/d.sock" profiles --json 2>&1)
    check "its profile is 4 processes on 2 nodes, 2 per node, placed by node blocks" python3 -c '
import json, sys
c = json.loads(sys.argv[1])[0]["context"]
sys.exit(0 if (c["comm_size"], c["nodes"], c["ppn"], c["placement"]) == (4, 2, 2, "block")
         else 1)' "$out"
    # One campaign per layout, placed by mpirun on the nodes named.
    out=$("$COLLTUNE_CLI" --server "unix:$VDIR/d.sock" campaign --validate 0 --layouts \
          2x2:round_robin,3+1 --hosts "${NAME}1,${NAME}2" --bench "$BENCH" --launches 1 \
          --whole-job han --name layouts --mpirun "mpirun.openmpi --mca plm_rsh_agent $CLUSTER_AGENT
            --mca btl_tcp_if_include $CLUSTER_SUBNET --mca oob_tcp_if_include $CLUSTER_SUBNET
            --mca mpi_yield_when_idle 1" \
          -- --collectives allreduce --sizes 8 --nrep 5 --quiet 2>&1 </dev/null)
    expect_output "colltune campaign --layouts: one campaign per layout, each with a coll/han launch" \
      $? "$out" "layout 2x2:round_robin: 4 processes on 2 nodes" \
      "layout 3\+1: 4 processes on 2 nodes" \
      "launch with han enabled: OMPI_MCA_coll_han_priority=100 .* --launched-with han"
    check "... one coll/han launch per layout" \
      test "$(grep -c "launch with han enabled: OMPI_MCA_coll_han_priority=100" <<<"$out")" = 2
    han=0
    for id in $("$COLLTUNE_CLI" --server "unix:$VDIR/d.sock" profiles --json |
                python3 -c 'import json, sys; print(*[p["id"] for p in json.load(sys.stdin) if p["context"]["placement"] == "round_robin" or p["context"]["node_sizes"]])'); do
      han=$(( han + $("$COLLTUNE_CLI" --server "unix:$VDIR/d.sock" profile "$id" |
                      grep -Ec "^allreduce +native:han +8 ") ))
    done
    check "coll/han across the nodes is measured in both layouts, in every regime" test "$han" = 6
    # What the measurements give a site that launches jobs with coll/han:
    # coll/han's own rules file, read by Open MPI itself (no shim).
    rr=$("$COLLTUNE_CLI" --server "unix:$VDIR/d.sock" profiles --json |
         python3 -c 'import json, sys; print(*[p["id"] for p in json.load(sys.stdin) if p["context"]["placement"] == "round_robin"])')
    out=$("$COLLTUNE_CLI" --server "unix:$VDIR/d.sock" export --format han-rules \
          --profile "$rr" -o "$VDIR/han.rules" 2>&1)
    expect_output "colltune export --format han-rules writes coll/han's rules from the profile" $? \
      "$out" "wrote .*han.rules \(han-rules\)"
    check "... sending gather to coll/tuned at every size (this version's han gather defect)" \
      grep -Eq "^9 +# gather" "$VDIR/han.rules"
    out=$(on_openmpi "${NAME}1:2,${NAME}2:2" -np 4 "${HAN[@]}" \
          --mca coll_han_use_dynamic_file_rules 1 \
          --mca coll_han_dynamic_rules_filename "$VDIR/han.rules" "$APP" --iters 3 2>&1)
    expect_output "... and Open MPI applies it: with coll/han on, round robin, no shim, the program verifies" \
      $? "$out" "results verified"
    out=$("$COLLTUNE_CLI" --server "unix:$VDIR/d.sock" profiles --json 2>&1)
    check "each layout has a profile of its own: 2 x 2 by blocks, round robin, 3+1" \
      python3 -c '
import json, sys
got = sorted((c["nodes"], c["ppn"], c["placement"], c["node_sizes"])
             for c in (p["context"] for p in json.loads(sys.argv[1])))
sys.exit(0 if got == [(2, 2, "block", ""), (2, 2, "round_robin", ""),
                      (2, 3, "block", "3+1")] else 1)' "$out"
    out=$("$COLLTUNE_CLI" --server "unix:$VDIR/d.sock" profiles 2>&1)
    expect_output "colltune profiles shows each layout" $? "$out" "2 x 2, round robin" \
      "3\+1 on 2 nodes"
    out=$("$COLLTUNE_CLI" --server "unix:$VDIR/d.sock" campaign --validate 0 --layouts 3+1 \
          --launcher slurm --bench "$BENCH" 2>&1 </dev/null)
    rc=$?
    if [ $rc -ne 0 ] && grep -q "nodes of different sizes need --launcher mpirun" <<<"$out"; then
      pass "Slurm refuses an uneven layout and says why"
    else
      fail "Slurm refuses an uneven layout and says why" "rc=$rc"$'\n'"$out"
    fi
    out=$("$COLLTUNE_CLI" --server "unix:$VDIR/d.sock" table --comm-size 4 --nodes 1 \
          --ppn 4 2>&1)
    expect_output "a job on one node gets none of the two nodes' rules, and is told why" $? \
      "$out" "no rules for this layout: 4 processes were measured on 2 nodes, not on this job's 1 node"
    out=$("$COLLTUNE_CLI" --server "unix:$VDIR/d.sock" table --comm-size 4 --nodes 2 \
          --ppn 2 2>&1)
    rc=$?
    if [ $rc -eq 0 ] && ! grep -q "no rules for this layout" <<<"$out"; then
      pass "a job on 2 nodes x 2 is served the profile measured there"
    else
      fail "a job on 2 nodes x 2 is served the profile measured there" "rc=$rc"$'\n'"$out"
    fi
  else
    fail "colltuned starts for the campaign" "$(cat "$T_TMP/daemon.log")"
  fi
  stop_daemon
  stop_slurm
  stop_munge
else
  fail "a Slurm cluster with a slurmd in each node" "$(cat "$VDIR/start.out")"
fi

# f. Down.
"$CLUSTER" down --name "$NAME"
left=$(leftovers)
if [ -z "$left" ]; then
  pass "down leaves nothing behind"
else
  fail "down leaves nothing behind" "$left"
fi
check "down again is harmless" "$CLUSTER" down --name "$NAME"
finish
