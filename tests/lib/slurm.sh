# Shell helpers that run a private MUNGE daemon and a real one-node Slurm
# cluster (slurmctld + slurmd from Debian's slurm-wlm) as plain processes, for
# tests. Source this file (after tests/lib/testlib.sh if you use both; it
# needs nothing from it). Everything lives under a directory you give, nothing
# touches /etc/munge, /run/munge or /etc/slurm, so several tests may run their
# own munged and Slurm at the same time.
#
#   start_munge DIR   a munged of its own: new key DIR/munge/munge.key (made
#                     with mungekey), socket DIR/munge/munge.sock; waits until
#                     `munge -n | unmunge` works. Exports MUNGE_SOCKET (the
#                     socket's path: pass it as `munge -S "$MUNGE_SOCKET"`,
#                     or to Slurm as AuthInfo=socket=...), and sets MUNGE_PID,
#                     MUNGE_KEY and MUNGE_LOG. Returns non-zero, with the log
#                     on stdout, when munged does not come up.
#   stop_munge        SIGTERM to that munged, waits for it. Safe to call twice
#                     or when start_munge failed.
#   start_slurm DIR   slurmctld + slurmd for one node named after this host,
#                     CPUs=4, partition "debug" (default), free TCP ports
#                     picked now, authenticated through $MUNGE_SOCKET (call
#                     start_munge first). Writes DIR/slurm/slurm.conf and
#                     exports SLURM_CONF; waits until the node is idle and
#                     `srun true` works (about 2 s). Sets SLURMCTLD_PID,
#                     SLURMD_PIDS, SLURM_DIR.
#   stop_slurm        cancels every job and waits (10 s at most) until the
#                     queue is empty, then SIGTERM to slurmd and slurmctld
#                     and waits for them (SIGKILL after 10 s). Safe to call
#                     twice.
#
#   start_slurm_cluster DIR
#                     the same across the emulated cluster tests/lib/cluster.sh
#                     started (CLUSTER_NODES, CLUSTER_AGENT, CLUSTER_SUBNET):
#                     slurmctld here on the bridge's address, one slurmd in
#                     each node with a /tmp of its own (PMIx makes one
#                     directory per step and node there), CPUs=2 each, all
#                     in partition "debug". DIR must not be under /tmp (the
#                     nodes have their own): use /var/tmp. Waits until a job
#                     on every node runs.
#
# DIR must be a short path (unix sockets < 108 bytes: use mktemp -d
# /tmp/xx.XXXX). munged insists that every directory above its socket be
# searchable by all, so start_munge makes DIR mode 0755. Root or not: the
# daemons run as the calling user (SlurmUser is that user).
#
# Typical use:
#   source tests/lib/slurm.sh
#   trap 'stop_slurm; stop_munge' EXIT
#   start_munge "$dir" && start_slurm "$dir" || exit 1
#   srun -n 2 hostname

MUNGE_PID=""
SLURMCTLD_PID=""
SLURMD_PIDS=()

start_munge() {
  local dir=$1/munge i
  mkdir -p "$dir" || return 1
  chmod 755 "$1" "$dir"
  MUNGE_KEY=$dir/munge.key
  MUNGE_LOG=$dir/munged.log
  rm -f "$MUNGE_KEY"
  if ! mungekey --create --keyfile="$MUNGE_KEY" >"$MUNGE_LOG" 2>&1; then
    # mungekey is munge >= 0.5.14; older ones take 1 KiB of random bytes.
    dd if=/dev/urandom of="$MUNGE_KEY" bs=1024 count=1 status=none || return 1
  fi
  chmod 600 "$MUNGE_KEY"
  export MUNGE_SOCKET=$dir/munge.sock
  /usr/sbin/munged --foreground --socket="$MUNGE_SOCKET" --key-file="$MUNGE_KEY" \
    --pid-file="$dir/munged.pid" --seed-file="$dir/munged.seed" \
    --log-file="$MUNGE_LOG" >>"$MUNGE_LOG" 2>&1 &
  MUNGE_PID=$!
  for i in $(seq 1 100); do
    if munge -S "$MUNGE_SOCKET" -n 2>/dev/null | unmunge -S "$MUNGE_SOCKET" >/dev/null 2>&1; then
      return 0
    fi
    if ! kill -0 "$MUNGE_PID" 2>/dev/null; then
      echo "munged exited:"; cat "$MUNGE_LOG"; MUNGE_PID=""; return 1
    fi
    sleep 0.05
  done
  echo "munged did not answer within 5 s:"; cat "$MUNGE_LOG"
  return 1
}

stop_munge() {
  if [ -n "$MUNGE_PID" ]; then
    kill "$MUNGE_PID" 2>/dev/null
    wait "$MUNGE_PID" 2>/dev/null
    MUNGE_PID=""
  fi
  return 0
}

# free_ports N: N distinct TCP ports nobody listens on now, one a line,
# below the kernel's ephemeral range (32768 and up): the slurmds listen in
# the emulated nodes' own network namespaces, where a port free here may be
# one an earlier MPI job's listener took there (a slurmd once failed to
# bind so in CI).
free_ports() {
  python3 - "$1" <<'EOF'
import random, socket, sys
socks = []
while len(socks) < int(sys.argv[1]):
    s = socket.socket()
    try:
        s.bind(("0.0.0.0", random.randrange(20000, 32000)))
    except OSError:
        s.close()
        continue
    socks.append(s)
for s in socks:
    print(s.getsockname()[1])
EOF
}

# _slurm_conf DIR CTLD_HOST CTLD_ADDR NODE_LINES NODES [TMPFS]: writes
# DIR/slurm.conf (ports picked now) and exports SLURM_CONF.
_slurm_conf() {
  local dir=$1 ports
  mapfile -t ports < <(free_ports 2)
  cat >"$dir/slurm.conf" <<EOF
ClusterName=colltunetest
SlurmctldHost=$2($3)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
# Steps' PMIx directories (spmix_appdir_UID_JOB.STEP) go under TmpFS: with
# the default /tmp, two clusters' job 2.0 share one and the second launch
# fails (and srun still exits 0). Across emulated nodes each slurmd has a
# /tmp of its own, which TmpFS then names.
TmpFS=${6:-$dir/tmp}
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=600
KillWait=2
InactiveLimit=0
SchedulerType=sched/backfill
$4
PartitionName=debug Nodes=$5 Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
  export SLURM_CONF=$dir/slurm.conf
}

# _slurm_wait DIR NODES: until every node is idle and a job on NODES nodes
# runs (15 s at most); stops the daemons and says why otherwise.
_slurm_wait() {
  local dir=$1 nodes=$2 i state pid alive
  for i in $(seq 1 150); do
    state=$(sinfo -h -N -o %t 2>/dev/null | sort -u)
    if [ "$state" = idle ] && timeout 20 srun -N "$nodes" -n "$nodes" true >/dev/null 2>&1; then
      return 0
    fi
    alive=1
    for pid in "$SLURMCTLD_PID" "${SLURMD_PIDS[@]}"; do
      kill -0 "$pid" 2>/dev/null || alive=0
    done
    if [ $alive -eq 0 ]; then
      echo "a Slurm daemon exited:"
      tail -n 20 "$dir"/slurm*.log "$dir"/*.out 2>/dev/null
      stop_slurm; return 1
    fi
    sleep 0.1
  done
  echo "Slurm did not run a job within 15 s (node states '$state'):"
  tail -n 20 "$dir"/slurm*.log "$dir"/*.out 2>/dev/null
  stop_slurm
  return 1
}

start_slurm() {
  local dir=$1/slurm node
  if [ -z "${MUNGE_SOCKET:-}" ]; then
    echo "start_slurm: start_munge first (MUNGE_SOCKET is not set)"; return 1
  fi
  node=$(hostname -s)
  mkdir -p "$dir/state" "$dir/spool/$node" "$dir/tmp" || return 1
  SLURM_DIR=$dir
  _slurm_conf "$dir" "$node" 127.0.0.1 \
    "NodeName=$node NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN" "$node"
  /usr/sbin/slurmctld -D -i -f "$SLURM_CONF" >>"$dir/slurmctld.out" 2>&1 &
  SLURMCTLD_PID=$!
  /usr/sbin/slurmd -D -f "$SLURM_CONF" -N "$node" >>"$dir/slurmd.out" 2>&1 &
  SLURMD_PIDS=($!)
  _slurm_wait "$dir" 1
}

start_slurm_cluster() {
  local dir=$1/slurm node lines="" i=0 prefix=${CLUSTER_SUBNET%.0/24}
  if [ -z "${MUNGE_SOCKET:-}" ] || [ -z "${CLUSTER_AGENT:-}" ]; then
    echo "start_slurm_cluster: start_munge and start_cluster first"; return 1
  fi
  case "$dir" in
    /tmp/*) echo "start_slurm_cluster: $dir is under /tmp, which every node has of its own"
            return 1 ;;
  esac
  mkdir -p "$dir/state" || return 1
  SLURM_DIR=$dir
  for node in $CLUSTER_NODES; do
    i=$((i + 1))
    lines="$lines"$'\n'"NodeName=$node NodeAddr=$prefix.$i CPUs=2 State=UNKNOWN"
    mkdir -p "$dir/tmp-$node" "$dir/spool/$node" || return 1
  done
  _slurm_conf "$dir" "$(hostname -s)" "$prefix.254" "${lines#$'\n'}" \
    "$(tr ' ' ',' <<<"$CLUSTER_NODES")" /tmp
  /usr/sbin/slurmctld -D -i -f "$SLURM_CONF" >>"$dir/slurmctld.out" 2>&1 &
  SLURMCTLD_PID=$!
  SLURMD_PIDS=()
  for node in $CLUSTER_NODES; do
    # In the node's namespaces, in a mount namespace whose /tmp is the
    # node's own directory; every step execs, so the pid is slurmd's.
    "$CLUSTER_AGENT" "$node" "exec unshare -m --propagation private /bin/sh -c \
'mount --bind $dir/tmp-$node /tmp && exec /usr/sbin/slurmd -D -f $SLURM_CONF -N $node'" \
      >>"$dir/slurmd-$node.out" 2>&1 &
    SLURMD_PIDS+=($!)
  done
  _slurm_wait "$dir" "$i"
}

stop_slurm() {
  local pid i
  # Jobs first, while both daemons run: a step whose controller is gone
  # retries forever, and a slurmd waiting on it never exits.
  if [ -n "$SLURMCTLD_PID" ] && kill -0 "$SLURMCTLD_PID" 2>/dev/null; then
    scancel --quiet --user "$(id -un)" 2>/dev/null
    for i in $(seq 1 100); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  for pid in "${SLURMD_PIDS[@]}" "$SLURMCTLD_PID"; do
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
  done
  # SIGTERM, 10 s, then SIGKILL: a test must not hang on a stuck daemon.
  for pid in "${SLURMD_PIDS[@]}" "$SLURMCTLD_PID"; do
    [ -n "$pid" ] || continue
    for i in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  SLURMD_PIDS=()
  SLURMCTLD_PID=""
  return 0
}
