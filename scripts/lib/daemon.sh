# Shared by the demo and benchmark scripts: starts colltuned on a temporary
# database in a new directory named after $1, waits until it answers, and
# stops it (and removes the directory) when the script exits. Needs COLLTUNE
# (the colltune binary) and COLLTUNED, and passes COLLTUNED_ARGS (an array,
# optional) to colltuned; sets WORK, SERVER and DAEMON.
#   source scripts/lib/daemon.sh NAME
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
WORK=$(mktemp -d "/tmp/colltune-$1.XXXXXX")
SERVER="unix:$WORK/colltuned.sock"
"$COLLTUNED" --db "$WORK/colltune.db" --listen "$SERVER" ${COLLTUNED_ARGS[@]+"${COLLTUNED_ARGS[@]}"} \
  2>"$WORK/colltuned.log" &
DAEMON=$!
trap 'kill $DAEMON 2>/dev/null; wait $DAEMON 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do
  "$COLLTUNE" --server "$SERVER" profiles >/dev/null 2>&1 && break
  sleep 0.1
done
