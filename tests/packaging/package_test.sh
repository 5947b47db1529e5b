#!/usr/bin/env bash
# The Debian package, for real, on this machine (root; CI's is fresh): lintian
# finds no error; apt-get installs it; the installed colltuned serves the
# installed CLI, the web view and other users; a 2-process MPI job with the
# installed shim reaches it under Open MPI and MPICH, preloaded by hand and
# through the installed module files (Lmod, and their Tcl twin through Lmod's
# Tcl support and through Debian's Environment Modules, unpacked from the
# archive) whose load/unload leaves LD_PRELOAD as it was; systemd accepts
# the installed unit; SIGTERM stops the daemon; apt-get purge removes every
# file. A colltune package installed before the test is left alone (the test
# fails instead). The package is purged and the daemon stopped on any exit.
#
# Args: colltune_VERSION_ARCH.deb collective_mix collective_mix_mpich
source tests/lib/testlib.sh
args_as DEB APP APP_MPICH -- "$@"
export COLLTUNE_CLI=/usr/bin/colltune DEBIAN_FRONTEND=noninteractive
unset COLLTUNE_AGENT COLLTUNE_SERVER COLLTUNE_TABLE COLLTUNE_FORCE COLLTUNE_DISABLE
# The shim's cache is the job's own (a cached table would hide the daemon).
export COLLTUNE_CACHE_DIR="$T_TMP/cache"

installed_by_us=0
# The socket's directory is world-traversable like /run/colltune (T_TMP is
# 0700), so that another user can reach the socket.
SOCKDIR=$(mktemp -d /tmp/ct.XXXX)
chmod 0755 "$SOCKDIR"
cleanup() {
  if [ "$installed_by_us" = 1 ]; then apt-get purge -y -qq colltune >/dev/null 2>&1; fi
  rm -rf "$SOCKDIR"
  _t_cleanup
}
trap cleanup EXIT

if dpkg-query -W -f='${Status}' colltune 2>/dev/null | grep -q installed; then
  fail "no colltune package is installed before the test" \
    "$(dpkg-query -W colltune): remove it (apt-get purge colltune) to run this test"
  finish; exit 1
fi
pass "no colltune package is installed before the test"

# The package's name and fields.
name=$(dpkg-deb -f "$DEB" Package)_$(dpkg-deb -f "$DEB" Version)_$(dpkg-deb -f "$DEB" Architecture).deb
[ "$name" = "$(basename "$DEB")" ] && pass "the file is named package_version_arch.deb ($name)" ||
  fail "the file is named package_version_arch.deb" "$(basename "$DEB") vs $name"
depends=$(dpkg-deb -f "$DEB" Depends)
missing=""
for p in 'libgrpc++1.51' libprotobuf32 libsqlite3-0 libspdlog1.10 libc6 libstdc++6; do
  grep -q "\(^\|, \)$p[ ,(-]" <<<"$depends, " || missing+=" $p"
done
[ -z "$missing" ] && pass "Depends lists the libraries the daemon and CLI link" ||
  fail "Depends lists the libraries the daemon and CLI link" "missing:$missing in: $depends"
grep -Eq 'libmpi|libopenmpi|libmpich' <<<"$depends" &&
  fail "no MPI library in Depends (a daemon host needs none)" "$depends" ||
  pass "no MPI library in Depends (a daemon host needs none)"
recommends=$(dpkg-deb -f "$DEB" Recommends)
grep -q libopenmpi3 <<<"$recommends" && grep -q libmpich12 <<<"$recommends" &&
  pass "Recommends lists the benchmarks' MPI libraries" ||
  fail "Recommends lists the benchmarks' MPI libraries" "$recommends"

# lintian: no error. Its warnings are printed (the test log keeps them).
# lintian missing or crashing is a failure, not a pass: it exits 0 when it
# found no error, 1 with error tags; any other exit, or 1 without an error
# tag, means it did not check the package.
if ! command -v lintian >/dev/null 2>&1; then
  fail "lintian reports no error" "lintian is not installed (scripts/install-deps.sh installs it)"
else
  lint=$(lintian "$DEB" 2>&1)
  lint_rc=$?
  echo "lintian: exit $lint_rc, $(grep -c '^W:' <<<"$lint") warnings, $(grep -c '^E:' <<<"$lint") errors"
  grep '^[EW]:' <<<"$lint" | sed 's/^/  /'
  if [ "$lint_rc" -gt 1 ] || { [ "$lint_rc" -eq 1 ] && ! grep -q '^E:' <<<"$lint"; }; then
    fail "lintian reports no error" "lintian did not check the package (exit $lint_rc):"$'\n'"$lint"
  elif grep -q '^E:' <<<"$lint"; then
    fail "lintian reports no error" "$(grep '^E:' <<<"$lint")"
  else
    pass "lintian reports no error"
  fi
fi

# apt-get install ./colltune_*.deb, the way an administrator does.
cp "$DEB" "$T_TMP/"
out=$(cd "$T_TMP" && apt-get install -y -q "./$(basename "$DEB")" 2>&1)
if [ $? -eq 0 ] && dpkg-query -W -f='${Status}' colltune 2>/dev/null | grep -q "install ok installed"; then
  installed_by_us=1
  pass "apt-get install ./$(basename "$DEB") installs colltune"
else
  installed_by_us=1
  fail "apt-get install ./$(basename "$DEB") installs colltune" "$out"
  finish; exit 1
fi

FILES=(/usr/bin/colltuned /usr/bin/colltune /usr/bin/colltune-bench
  /usr/bin/colltune-bench-mpich /usr/lib/colltune/libcolltune.so
  /usr/lib/colltune/libcolltune-mpich.so /usr/share/colltune/web/index.html
  /usr/share/colltune/web/view.js /usr/share/colltune/web/charts.js /usr/share/colltune/web/sections.js /usr/share/colltune/web/app.js /usr/share/colltune/web/style.css
  /usr/share/colltune/web/vendor/chart.umd.js /lib/systemd/system/colltuned.service
  /usr/share/colltune/modules/colltune.lua /usr/share/colltune/modules/colltune
  /etc/default/colltuned /etc/colltune/server /usr/share/doc/colltune/copyright
  /usr/share/doc/colltune/changelog.Debian.gz)
# The Grafana dashboard, when the source tree has one (a data dependency).
for f in packaging/grafana/*.json; do
  [ -f "$f" ] && FILES+=("/usr/share/colltune/grafana/$(basename "$f")")
done
missing=""
for f in "${FILES[@]}"; do [ -f "$f" ] || missing+=" $f"; done
[ -z "$missing" ] && pass "the package installed its ${#FILES[@]} files" ||
  fail "the package installed its ${#FILES[@]} files" "missing:$missing"
bad=""
for f in /usr/bin/colltuned /usr/bin/colltune /usr/bin/colltune-bench /usr/bin/colltune-bench-mpich; do
  [ -x "$f" ] || bad+=" $f not executable;"
  ldd "$f" 2>&1 | grep -q "not found" && bad+=" $f: $(ldd "$f" | grep "not found" | tr '\n' ' ')"
done
[ -z "$bad" ] && pass "the installed programs are executable and find every library" ||
  fail "the installed programs are executable and find every library" "$bad"
conffiles=$(dpkg-query -W -f='${Conffiles}' colltune)
grep -q "/etc/default/colltuned" <<<"$conffiles" && grep -q "/etc/colltune/server" <<<"$conffiles" &&
  pass "/etc/default/colltuned and /etc/colltune/server are conffiles" ||
  fail "/etc/default/colltuned and /etc/colltune/server are conffiles" "$conffiles"
owned=$(dpkg -L colltune)
check "colltune --help runs" /usr/bin/colltune --help

# systemd accepts the installed unit (systemd need not be running: verify
# loads the unit from disk, /usr/bin/colltuned is there now).
out=$(systemd-analyze verify /lib/systemd/system/colltuned.service 2>&1)
[ $? -eq 0 ] && [ -z "$out" ] && pass "systemd-analyze verify accepts colltuned.service" ||
  fail "systemd-analyze verify accepts colltuned.service" "$out"
out=$(systemd-analyze security --offline=yes /lib/systemd/system/colltuned.service 2>&1)
level=$(sed -n 's/.*Overall exposure level for colltuned.service: \([0-9.]*\).*/\1/p' <<<"$out")
if [ -n "$level" ] && awk -v l="$level" 'BEGIN { exit !(l <= 2.0) }'; then
  pass "the unit's sandbox: exposure level $level (at most 2.0)"
else
  fail "the unit's sandbox: exposure level at most 2.0" "$out"
fi

# The installed daemon on a temporary state directory, with the unit's umask
# (the socket srwxrw-rw-) and the web view from its default place
# (/usr/bin/colltuned -> /usr/share/colltune/web).
SOCK="$SOCKDIR/colltuned.sock"
SERVER="unix:$SOCK"
old_umask=$(umask)
umask 0011
if start_daemon /usr/bin/colltuned "$T_TMP/colltune.db" "$SOCK" --http 0; then
  pass "the installed colltuned serves the installed colltune"
else
  fail "the installed colltuned serves the installed colltune" "$(cat "$T_TMP/daemon.log")"
  umask "$old_umask"; finish; exit 1
fi
umask "$old_umask"
out=$(runuser -u nobody -- /usr/bin/colltune --server "$SERVER" profiles 2>&1)
[ $? -eq 0 ] && pass "another user (nobody) reaches the daemon's socket" ||
  fail "another user (nobody) reaches the daemon's socket" "$(ls -la "$SOCK") $out"
port=$(sed -n 's|.*web view on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T_TMP/daemon.log" | head -n 1)
page=$(curl -s --max-time 10 "http://127.0.0.1:$port/")
chart=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/vendor/chart.umd.js")
if grep -qi '<html' <<<"$page" && [ "$chart" = 200 ]; then
  pass "colltuned --http serves the installed web view"
else
  fail "colltuned --http serves the installed web view" "port '$port' chart $chart: $(head -c 300 <<<"$page")"
fi

reports() {  # reports LIBRARY: the job reports the daemon holds for it
  /usr/bin/colltune --server "$SERVER" profiles 2>/dev/null |
    awk -v lib="$1" 'index($0, lib) { n += $(NF - 2) } END { print n + 0 }'
}
# job_reached NAME BEFORE OUTPUT: the shim fetched its table from the daemon
# (through /usr/bin/colltune, found from /usr/lib/colltune/), the job's
# results are right, and its report arrived.
job_reached() {
  local name=$1 library=$2 before=$3 out=$4
  if grep -q "table from daemon $SERVER" <<<"$out" && grep -q "results verified" <<<"$out" &&
     grep -q "init [0-9.]* ms" <<<"$out" && [ "$(reports "$library")" -gt "$before" ]; then
    pass "$name"
  else
    fail "$name" "reports of $library: $before -> $(reports "$library"); $out"
  fi
}
JOB_ARGS=(--collectives allreduce,bcast --bytes 4096 --iters 20)
# The agent gets time: the test checks that the job reaches the daemon, not
# how fast a loaded machine starts a process.
export COLLTUNE_TIMEOUT_MS=10000

before=$(reports "Open MPI")
out=$(run_openmpi -np 2 -x LD_PRELOAD=/usr/lib/colltune/libcolltune.so \
  -x COLLTUNE_SERVER="$SERVER" -x COLLTUNE_VERBOSE=2 -x COLLTUNE_CACHE_DIR \
  -x COLLTUNE_TIMEOUT_MS "$APP" "${JOB_ARGS[@]}" 2>&1)
job_reached "an Open MPI job with /usr/lib/colltune/libcolltune.so preloaded reaches the daemon" "Open MPI" "$before" "$out"

# The module files, installed, under Lmod. The site's address comes from
# /etc/colltune/server (the test's daemon); MPI modules are stand-ins that
# declare Lmod's MPI family like a site's do.
printf '# written by package_test\n%s\n' "$SERVER" > /etc/colltune/server
MF="$T_TMP/modulefiles"
mkdir -p "$MF/openmpi" "$MF/mpich" "$MF/colltune-tcl"
printf 'family("MPI")\n' > "$MF/openmpi/4.1.lua"
printf 'family("MPI")\n' > "$MF/mpich/4.0.lua"
# The Tcl file under a name of its own (Lmod prefers colltune.lua).
cp /usr/share/colltune/modules/colltune "$MF/colltune-tcl/1.0"
lmod() {  # lmod SCRIPT: bash with Lmod and both module directories
  env -u LD_PRELOAD -u LOADEDMODULES -u _LMFILES_ -u LMOD_FAMILY_MPI -u MODULEPATH \
    bash -c "source /usr/share/lmod/lmod/init/bash >/dev/null 2>&1
             module use /usr/share/colltune/modules '$MF' 2>&1
             $1"
}
PRE=/lib/x86_64-linux-gnu/libc.so.6
for module in colltune colltune-tcl; do
  for mpi in openmpi mpich; do
    [ $mpi = openmpi ] && shim=/usr/lib/colltune/libcolltune.so || shim=/usr/lib/colltune/libcolltune-mpich.so
    out=$(lmod "export LD_PRELOAD=$PRE
                module load $mpi $module
                echo \"loaded=\$LD_PRELOAD|\$COLLTUNE_SERVER\"
                module unload $module
                echo \"unloaded=\$LD_PRELOAD|\${COLLTUNE_SERVER-unset}|\${COLLTUNE_SHIM-unset}\"" 2>&1)
    if grep -qx "loaded=$shim:$PRE|$SERVER" <<<"$out" &&
       grep -qx "unloaded=$PRE|unset|unset" <<<"$out"; then
      pass "$module under $mpi: LD_PRELOAD gets $(basename "$shim") in front, COLLTUNE_SERVER from /etc/colltune/server; unload restores both"
    else
      fail "$module under $mpi: LD_PRELOAD gets $(basename "$shim") in front, COLLTUNE_SERVER from /etc/colltune/server; unload restores both" "$out"
    fi
  done
  # No MPI module: the launcher on PATH decides (MPICH's, by its resolved
  # name, and under a name that says nothing, by its --version).
  mkdir -p "$T_TMP/bin-mpich" "$T_TMP/bin-hydra"
  ln -sf /usr/bin/mpirun.mpich "$T_TMP/bin-mpich/mpirun"
  ln -sf /usr/bin/mpiexec.hydra "$T_TMP/bin-hydra/mpirun"
  for dir in bin-mpich bin-hydra; do
    out=$(lmod "PATH=$T_TMP/$dir:/usr/bin:/bin; module load $module; echo \"loaded=\$LD_PRELOAD\"" 2>&1)
    grep -qx "loaded=/usr/lib/colltune/libcolltune-mpich.so" <<<"$out" &&
      pass "$module without an MPI module: mpirun on PATH ($dir) is MPICH's" ||
      fail "$module without an MPI module: mpirun on PATH ($dir) is MPICH's" "$out"
  done
  out=$(lmod "COLLTUNE_MPI=mpich; export COLLTUNE_MPI; module load openmpi $module; echo \"loaded=\$LD_PRELOAD\"" 2>&1)
  grep -qx "loaded=/usr/lib/colltune/libcolltune-mpich.so" <<<"$out" &&
    pass "$module: COLLTUNE_MPI=mpich overrides the loaded module" ||
    fail "$module: COLLTUNE_MPI=mpich overrides the loaded module" "$out"
  out=$(lmod "COLLTUNE_MPI=lam; export COLLTUNE_MPI; module load $module; echo \"rc=\$? loaded=\${LD_PRELOAD-}\"" 2>&1)
  grep -q "COLLTUNE_MPI=lam is neither" <<<"$out" && grep -q "loaded=$" <<<"$out" &&
    pass "$module: an unknown COLLTUNE_MPI is an error, nothing preloaded" ||
    fail "$module: an unknown COLLTUNE_MPI is an error, nothing preloaded" "$out"
done
out=$(tclsh <<<'puts [info complete [read [open /usr/share/colltune/modules/colltune]]]' 2>&1)
[ "$out" = 1 ] && pass "the Tcl module file is complete Tcl (tclsh)" ||
  fail "the Tcl module file is complete Tcl (tclsh)" "$out"

# Real jobs with the module loaded: the shim is active and reaches the daemon.
before=$(reports "Open MPI")
out=$(lmod "module load openmpi colltune
            COLLTUNE_VERBOSE=2 timeout -k 5 $MPI_TIMEOUT mpirun.openmpi -np 2 -x COLLTUNE_VERBOSE \
              -x COLLTUNE_CACHE_DIR -x COLLTUNE_TIMEOUT_MS $APP ${JOB_ARGS[*]} </dev/null" 2>&1)
job_reached "an Open MPI job under 'module load openmpi colltune' reaches the daemon" "Open MPI" "$before" "$out"
before=$(reports "MPICH")
out=$(lmod "module load mpich colltune-tcl
            COLLTUNE_VERBOSE=2 timeout -k 5 $MPI_TIMEOUT mpirun.mpich -np 2 $APP_MPICH ${JOB_ARGS[*]} </dev/null" 2>&1)
job_reached "an MPICH job under 'module load mpich colltune-tcl' reaches the daemon" "MPICH" "$before" "$out"

# The Tcl module file under Environment Modules, Debian's own: the package
# (environment-modules) conflicts with lmod, installed above, so it is not
# installed but fetched from the archive (apt-get download) and unpacked
# (dpkg -x) into T_TMP, its install paths (/usr/lib/MULTIARCH,
# /usr/share/modules, /etc/environment-modules) pointed into the unpacked
# tree: its bash init file defines `module`, which runs its modulecmd.tcl
# with tclsh8.6 (tcl), which loads its libtclenvmodules.so and its site
# configuration. The installed Tcl file is found under its installed name,
# /usr/share/colltune/modules/colltune (colltune.lua, without the #%Module
# cookie, is no module to Environment Modules). MPI modules are stand-ins
# named like a site's (Environment Modules has no families).
EM="$T_TMP/environment-modules"
em_download() {
  (cd "$T_TMP" && apt-get download -q -o APT::Sandbox::User=root environment-modules 2>&1)
}
# apt's package lists may be missing (a fresh container's): update and retry.
out=$(em_download) || out+=$'\n'"$(apt-get update -qq 2>&1; em_download)"
emdeb=$(ls "$T_TMP"/environment-modules_*.deb 2>/dev/null | head -n 1)
EMCMD=""
if [ -n "$emdeb" ] && out+=$(dpkg -x "$emdeb" "$EM" 2>&1); then
  EMCMD=$(find "$EM/usr/lib" -type f -name modulecmd.tcl | head -n 1)
fi
if [ -n "$EMCMD" ]; then
  sed -i -e "s#\(^\|[{\"' ]\)\(/usr/lib/[a-z0-9_]*-linux-gnu[a-z0-9_]*\|/usr/share/modules\|/etc/environment-modules\)\([/}\"']\)#\1$EM\2\3#g" \
    "$EMCMD" "$EM/usr/share/modules/init/bash" "$EM/etc/environment-modules/initrc" \
    "$EM/etc/environment-modules/modulespath"
fi
EMF="$T_TMP/em-modulefiles"
mkdir -p "$EMF/openmpi" "$EMF/mpich"
printf '#%%Module1.0\n' > "$EMF/openmpi/4.1"
printf '#%%Module1.0\n' > "$EMF/mpich/4.0"
envmod() {  # envmod SCRIPT: bash with Environment Modules and both module directories
  env -u LD_PRELOAD -u LOADEDMODULES -u _LMFILES_ -u LMOD_FAMILY_MPI -u MODULEPATH \
      -u MODULESHOME -u BASH_ENV -u ENV \
    bash -c "source '$EM/usr/share/modules/init/bash' >/dev/null 2>&1
             module use /usr/share/colltune/modules '$EMF' 2>&1
             $1"
}
name="Debian's environment-modules ${emdeb##*/}, unpacked: its init file defines module, its modulecmd.tcl loads its libtclenvmodules.so"
state=$(envmod "type module >/dev/null && module --version && module config --dump-state" 2>&1)
if [ -n "$EMCMD" ] && grep -q "^Modules Release 5" <<<"$state" &&
   grep -Eq "^tcl_ext_lib +$EM/usr/lib/[^/]*/libtclenvmodules.so$" <<<"$state" &&
   grep -Eq "^tcl_ext_lib_loaded +1$" <<<"$state" && grep -Eq "^siteconfig_loaded +1$" <<<"$state"; then
  pass "$name"
else
  fail "$name" "$out"$'\n'"$state"
fi
out=$(envmod "module avail -t colltune; module avail -t colltune.lua" 2>&1)
grep -qx "colltune" <<<"$out" && ! grep -q "colltune\.lua" <<<"$out" &&
  pass "Environment Modules: module avail finds the installed Tcl file as colltune (colltune.lua is no module to it)" ||
  fail "Environment Modules: module avail finds the installed Tcl file as colltune (colltune.lua is no module to it)" "$out"
for mpi in openmpi mpich; do
  [ $mpi = openmpi ] && shim=/usr/lib/colltune/libcolltune.so || shim=/usr/lib/colltune/libcolltune-mpich.so
  out=$(envmod "export LD_PRELOAD=$PRE
                module load $mpi colltune
                echo \"loaded=\$LD_PRELOAD|\$COLLTUNE_SERVER|\$LOADEDMODULES\"
                module unload colltune
                echo \"unloaded=\$LD_PRELOAD|\${COLLTUNE_SERVER-unset}|\${COLLTUNE_SHIM-unset}|\$LOADEDMODULES\"" 2>&1)
  if grep -qx "loaded=$shim:$PRE|$SERVER|$mpi/[0-9.]*:colltune" <<<"$out" &&
     grep -qx "unloaded=$PRE|unset|unset|$mpi/[0-9.]*" <<<"$out"; then
    pass "Environment Modules, colltune under $mpi: LD_PRELOAD gets $(basename "$shim") in front, COLLTUNE_SERVER from /etc/colltune/server; unload restores both"
  else
    fail "Environment Modules, colltune under $mpi: LD_PRELOAD gets $(basename "$shim") in front, COLLTUNE_SERVER from /etc/colltune/server; unload restores both" "$out"
  fi
  # Every variable, Environment Modules' own included, as before the load.
  out=$(envmod "export LD_PRELOAD=$PRE
                module load $mpi
                env | sort > '$T_TMP/env-before'
                module load colltune
                module unload colltune
                env | sort | diff '$T_TMP/env-before' - && echo same-environment" 2>&1)
  grep -qx "same-environment" <<<"$out" &&
    pass "Environment Modules, colltune under $mpi: unload leaves every environment variable as before the load" ||
    fail "Environment Modules, colltune under $mpi: unload leaves every environment variable as before the load" "$out"
  out=$(envmod "export LD_PRELOAD=$PRE
                module load $mpi
                module show colltune
                echo \"after=\$LD_PRELOAD|\${COLLTUNE_SERVER-unset}|\$LOADEDMODULES\"" 2>&1)
  if grep -qx "/usr/share/colltune/modules/colltune:" <<<"$out" &&
     grep -Eqx "prepend-path\s+LD_PRELOAD $shim" <<<"$out" &&
     grep -Eqx "setenv\s+COLLTUNE_SERVER $SERVER" <<<"$out" &&
     grep -qx "after=$PRE|unset|$mpi/[0-9.]*" <<<"$out"; then
    pass "Environment Modules, colltune under $mpi: module show prints the $(basename "$shim") preload and COLLTUNE_SERVER, changes nothing"
  else
    fail "Environment Modules, colltune under $mpi: module show prints the $(basename "$shim") preload and COLLTUNE_SERVER, changes nothing" "$out"
  fi
done
for dir in bin-mpich bin-hydra; do
  out=$(envmod "PATH=$T_TMP/$dir:/usr/bin:/bin; module load colltune; echo \"loaded=\$LD_PRELOAD\"" 2>&1)
  grep -qx "loaded=/usr/lib/colltune/libcolltune-mpich.so" <<<"$out" &&
    pass "Environment Modules, colltune without an MPI module: mpirun on PATH ($dir) is MPICH's" ||
    fail "Environment Modules, colltune without an MPI module: mpirun on PATH ($dir) is MPICH's" "$out"
done
out=$(envmod "COLLTUNE_MPI=mpich; export COLLTUNE_MPI; module load openmpi colltune; echo \"loaded=\$LD_PRELOAD\"" 2>&1)
grep -qx "loaded=/usr/lib/colltune/libcolltune-mpich.so" <<<"$out" &&
  pass "Environment Modules, colltune: COLLTUNE_MPI=mpich overrides the loaded module" ||
  fail "Environment Modules, colltune: COLLTUNE_MPI=mpich overrides the loaded module" "$out"
out=$(envmod "COLLTUNE_MPI=lam; export COLLTUNE_MPI; module load colltune; echo \"rc=\$? loaded=\${LD_PRELOAD-}|\$LOADEDMODULES\"" 2>&1)
grep -q "COLLTUNE_MPI=lam is neither" <<<"$out" && grep -qx "rc=1 loaded=|" <<<"$out" &&
  pass "Environment Modules, colltune: an unknown COLLTUNE_MPI is an error, nothing preloaded or loaded" ||
  fail "Environment Modules, colltune: an unknown COLLTUNE_MPI is an error, nothing preloaded or loaded" "$out"
before=$(reports "Open MPI")
out=$(envmod "module load openmpi colltune
              COLLTUNE_VERBOSE=2 timeout -k 5 $MPI_TIMEOUT mpirun.openmpi -np 2 -x COLLTUNE_VERBOSE \
                -x COLLTUNE_CACHE_DIR -x COLLTUNE_TIMEOUT_MS $APP ${JOB_ARGS[*]} </dev/null" 2>&1)
job_reached "an Open MPI job under Environment Modules' 'module load openmpi colltune' reaches the daemon" "Open MPI" "$before" "$out"
before=$(reports "MPICH")
out=$(envmod "module load mpich colltune
              COLLTUNE_VERBOSE=2 timeout -k 5 $MPI_TIMEOUT mpirun.mpich -np 2 $APP_MPICH ${JOB_ARGS[*]} </dev/null" 2>&1)
job_reached "an MPICH job under Environment Modules' 'module load mpich colltune' reaches the daemon" "MPICH" "$before" "$out"

# SIGTERM, as systemctl stop sends it.
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID"
rc=$?
[ $rc -eq 0 ] && grep -q "signal 15: shutting down" "$T_TMP/daemon.log" &&
  pass "colltuned exits 0 on SIGTERM" || fail "colltuned exits 0 on SIGTERM" "rc $rc; $(tail -n 5 "$T_TMP/daemon.log")"

# apt-get purge: every file of the package and its conffiles are gone.
out=$(apt-get purge -y -q colltune 2>&1)
if [ $? -eq 0 ] && ! dpkg-query -W -f='${Status}' colltune 2>/dev/null | grep -q installed; then
  installed_by_us=0
  pass "apt-get purge colltune removes the package"
else
  fail "apt-get purge colltune removes the package" "$out"
fi
left=""
while read -r f; do
  [ -n "$f" ] && [ ! -d "$f" ] && [ -e "$f" ] && left+=" $f"
done <<<"$owned"
for f in /etc/colltune /usr/lib/colltune /usr/share/colltune /etc/default/colltuned \
         /lib/systemd/system/colltuned.service /usr/share/doc/colltune; do
  [ -e "$f" ] && left+=" $f"
done
[ -z "$left" ] && pass "no file of the package is left after purge" ||
  fail "no file of the package is left after purge" "left:$left"
finish
