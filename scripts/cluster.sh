#!/usr/bin/env bash
# An emulated cluster on this machine, for tests and benchmarks: N "nodes",
# each a network namespace and a UTS namespace (its own host name, its own
# address, its own eth0) joined by a Linux bridge. The mount namespace stays
# shared: every node sees the same files, unix sockets and /dev/shm.
#
#   scripts/cluster.sh up N [--name NAME] [--subnet A.B.C] [--rate RATE]
#   scripts/cluster.sh down [--name NAME]
#   scripts/cluster.sh status [--name NAME]
#
# up     makes nodes NAME1..NAMEN (default NAME: ct) with addresses A.B.C.1..N
#        (default subnet 10.77.0) on bridge NAMEbr (A.B.C.254), their names in
#        /etc/hosts, and an rsh-style agent that runs a command on a node
#        (`AGENT [options] HOST COMMAND...`) for mpirun (Open MPI:
#        --mca plm_rsh_agent AGENT; MPICH's Hydra: -launcher ssh
#        -launcher-exec AGENT). --rate limits each node's link (tc tbf, e.g.
#        1gbit). It first takes down a cluster of the same name, so it can be
#        run again. It prints shell assignments for the caller to eval:
#          CLUSTER_NODES="ct1 ct2"  CLUSTER_AGENT=...  CLUSTER_SUBNET=10.77.0.0/24
#          CLUSTER_BRIDGE=ctbr
# down   removes all of it: namespaces, links, bridge, /etc/hosts lines, the
#        state directory. Safe to run when nothing is up.
#
# Needs root (namespaces, links, /etc/hosts). Addresses live only on the
# bridge and inside the namespaces made here; nothing is routed elsewhere.
set -euo pipefail

usage() {
  echo "usage: scripts/cluster.sh up N [--name NAME] [--subnet A.B.C] [--rate RATE]" >&2
  echo "       scripts/cluster.sh down|status [--name NAME]" >&2
  exit 2
}

[ $# -ge 1 ] || usage
CMD=$1
shift
N=0
if [ "$CMD" = up ]; then
  [ $# -ge 1 ] || usage
  N=$1
  shift
  [[ "$N" =~ ^[0-9]+$ ]] && [ "$N" -ge 1 ] && [ "$N" -le 16 ] ||
    { echo "cluster.sh: N must be 1 to 16, not '$N'" >&2; exit 2; }
fi
NAME=ct
SUBNET=10.77.0
RATE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --name) NAME=${2:?}; shift 2 ;;
    --subnet) SUBNET=${2:?}; shift 2 ;;
    --rate) RATE=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done
# Interface names are at most 15 characters: NAME + "br" / "h16" must fit.
[[ "$NAME" =~ ^[a-z][a-z0-9]{0,7}$ ]] ||
  { echo "cluster.sh: --name must be 1-8 lower-case letters and digits, starting with a letter" >&2; exit 2; }
[[ "$SUBNET" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] ||
  { echo "cluster.sh: --subnet must be three numbers, like 10.77.0" >&2; exit 2; }
if [ "$(id -u)" != 0 ]; then
  echo "cluster.sh: needs root (network namespaces, links, /etc/hosts)" >&2
  exit 1
fi

STATE=/run/colltune-cluster/$NAME
BRIDGE=${NAME}br
HOSTS_TAG="# colltune-cluster $NAME"

down() {
  local ns
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
    [[ "$ns" =~ ^${NAME}[0-9]+$ ]] && ip netns delete "$ns" 2>/dev/null || true
  done
  local link
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//'); do
    [[ "$link" =~ ^${NAME}h[0-9]+$ || "$link" == "$BRIDGE" ]] &&
      ip link delete "$link" 2>/dev/null || true
  done
  if [ -d "$STATE" ]; then
    local uts
    for uts in "$STATE"/*.uts; do
      [ -e "$uts" ] || continue
      umount "$uts" 2>/dev/null || true
    done
    rm -rf "$STATE"
  fi
  if grep -qF "$HOSTS_TAG" /etc/hosts 2>/dev/null; then
    grep -vF "$HOSTS_TAG" /etc/hosts > /etc/hosts.colltune-cluster.$$ || true
    cat /etc/hosts.colltune-cluster.$$ > /etc/hosts
    rm -f /etc/hosts.colltune-cluster.$$
  fi
}

up() {
  down
  mkdir -p "$STATE"
  ip link add "$BRIDGE" type bridge
  ip addr add "$SUBNET.254/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  local i node nodes=""
  for i in $(seq 1 "$N"); do
    node=$NAME$i
    ip netns add "$node"
    # A persistent UTS namespace: unshare bind-mounts it on the file.
    touch "$STATE/$node.uts"
    unshare --uts="$STATE/$node.uts" hostname "$node"
    ip link add "${NAME}h$i" type veth peer name "${NAME}c$i"
    ip link set "${NAME}c$i" netns "$node"
    ip -n "$node" link set "${NAME}c$i" name eth0
    ip -n "$node" addr add "$SUBNET.$i/24" dev eth0
    ip -n "$node" link set eth0 up
    ip -n "$node" link set lo up
    ip link set "${NAME}h$i" master "$BRIDGE"
    ip link set "${NAME}h$i" up
    if [ -n "$RATE" ]; then
      tc qdisc add dev "${NAME}h$i" root tbf rate "$RATE" burst 256kbit latency 50ms
    fi
    echo "$SUBNET.$i $node $HOSTS_TAG" >> /etc/hosts
    nodes="$nodes $node"
  done
  # The agent: skips ssh-style options, then runs the command on the node.
  cat > "$STATE/agent" <<EOF
#!/bin/sh
# rsh-style agent of the emulated cluster '$NAME' (scripts/cluster.sh).
while [ \$# -gt 0 ]; do
  case "\$1" in
    -l|-p|-o|-i|-F) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
host=\$1
shift
case "\$host" in
  ${NAME}[0-9]*) ;;
  *) echo "cluster agent: \$host is not a node of cluster '$NAME'" >&2; exit 255 ;;
esac
[ -e "/run/netns/\$host" ] || { echo "cluster agent: no node \$host" >&2; exit 255; }
exec nsenter --net="/run/netns/\$host" --uts="$STATE/\$host.uts" /bin/sh -c "\$*"
EOF
  chmod 755 "$STATE/agent"
  echo "CLUSTER_NODES=\"${nodes# }\""
  echo "CLUSTER_AGENT=$STATE/agent"
  echo "CLUSTER_SUBNET=$SUBNET.0/24"
  echo "CLUSTER_BRIDGE=$BRIDGE"
}

status() {
  if [ ! -d "$STATE" ]; then
    echo "cluster $NAME: down"
    return 0
  fi
  echo "cluster $NAME: bridge $BRIDGE, agent $STATE/agent"
  ip netns list | awk '{print $1}' | grep -E "^${NAME}[0-9]+$" | sort -V | while read -r node; do
    echo "  $node $(ip -n "$node" -o -4 addr show dev eth0 | awk '{print $4}')"
  done
}

case "$CMD" in
  up) up ;;
  down) down ;;
  status) status ;;
  *) usage ;;
esac
