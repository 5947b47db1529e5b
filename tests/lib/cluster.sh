# Shell helpers that run MPI jobs across an emulated cluster
# (scripts/cluster.sh: network and UTS namespaces on a bridge). Source after
# tests/lib/testlib.sh.
#
#   start_cluster SCRIPT N NAME SUBNET
#                     brings up N nodes NAME1..NAMEN on SUBNET (A.B.C) with
#                     SCRIPT (scripts/cluster.sh) and sets CLUSTER_NODES,
#                     CLUSTER_AGENT, CLUSTER_SUBNET, CLUSTER_BRIDGE; the
#                     cluster is taken down when the test exits.
#   stop_cluster      takes it down now (also safe when it is down).
#   on_openmpi HOSTS ARGS...   mpirun.openmpi --host HOSTS across the
#                     cluster (rsh agent, TCP on the bridge's subnet only,
#                     yield when idle: 2 cores run every node), time-limited
#   on_mpich HOSTS ARGS...     Hydra the same way (ssh launcher through the
#                     agent, yielding while it polls), time-limited. UCX
#                     reaches the other nodes through shared memory here:
#                     over TCP (UCX_TLS=tcp,self) MPICH 4.0.2's MPI_Finalize
#                     hangs now and then (docs/emulated-cluster.md)
#
# HOSTS is "n1:2,n2:2" (node:slots, as both launchers take it).

CLUSTER_SCRIPT=""
CLUSTER_NAME=""

stop_cluster() {
  [ -n "$CLUSTER_SCRIPT" ] && [ -n "$CLUSTER_NAME" ] &&
    "$CLUSTER_SCRIPT" down --name "$CLUSTER_NAME" >/dev/null 2>&1
  return 0
}

start_cluster() {
  CLUSTER_SCRIPT=$1
  CLUSTER_NAME=$3
  trap 'stop_cluster; _t_cleanup' EXIT
  local out
  out=$("$CLUSTER_SCRIPT" up "$2" --name "$3" --subnet "$4") || { echo "$out"; return 1; }
  eval "$out"
}

on_openmpi() {
  local hosts=$1
  shift
  timeout -k 5 "$MPI_TIMEOUT" mpirun.openmpi --host "$hosts" \
    --mca plm_rsh_agent "$CLUSTER_AGENT" \
    --mca btl_tcp_if_include "$CLUSTER_SUBNET" --mca oob_tcp_if_include "$CLUSTER_SUBNET" \
    --mca mpi_yield_when_idle 1 "$@" </dev/null
}

on_mpich() {
  local hosts=$1
  shift
  timeout -k 5 "$MPI_TIMEOUT" mpirun.mpich -hosts "$hosts" -launcher ssh \
    -launcher-exec "$CLUSTER_AGENT" -iface "$CLUSTER_BRIDGE" \
    -genv MPIR_CVAR_POLLS_BEFORE_YIELD 1 "$@" </dev/null
}
