#!/bin/sh
# tests/e2e/slurm.sh: workers through a real Slurm (issue 20). Starts a
# one-node cluster here: munged, a MariaDB and slurmdbd for the accounting
# sacct reads, slurmctld and slurmd, with a slurm.conf generated in the
# test's folder (free loopback ports, two GPUs as GRES on device files,
# which no GPU code touches). The examples are built with the simulated
# worker (a TEST DOUBLE) through srun, inside one salloc allocation: every
# worker request runs in a job step of that allocation, each step has the
# GPU Slurm gave it, sacct lists every step, and the reports equal a local
# build's. A step cancelled with scancel while it runs fails its koptmake
# step with Slurm's reason and keeps every other result; an interrupted
# koptmake leaves no step running.
# Skips (with the reason) where the cluster cannot start, unless
# KOPT_REQUIRE_SERVICES=1 (.ci/run): there it fails.
set -eu
. "$top_srcdir/tests/e2e/sim-env.sh" slurm
d=$tmp/slurm

skip() {
	if [ "${KOPT_REQUIRE_SERVICES:-}" = 1 ]; then
		echo "not ok 1 - a one-node Slurm starts here: $1"
		for f in "$d"/log/*; do [ -f "$f" ] && tail -n 5 "$f" | sed "s|^|# $(basename "$f"): |"; done
		echo "1..1"
		exit 1
	fi
	echo "1..0 # SKIP $1"
	exit 0
}
PATH=$PATH:/usr/sbin:/sbin
for p in munged mariadb-install-db mariadbd slurmdbd slurmctld slurmd srun salloc sacct squeue scancel sinfo python3; do
	command -v "$p" >/dev/null 2>&1 || skip "no $p (tools/setup-debian.sh installs Slurm, munge and MariaDB)"
done
[ "$(id -u)" = 0 ] || skip "slurmd runs jobs as their users and must start as root"

# ---- the cluster ----
pids() { for f in slurmd.pid slurmctld.pid slurmdbd.pid munge/pid; do [ -s "$d/$f" ] && cat "$d/$f"; done; echo "${db_pid:-}"; }
alive() { [ -d "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
stop_cluster() {
	[ -f "$d/slurm.conf" ] && SLURM_CONF=$d/slurm.conf scancel --quiet --user=root 2>/dev/null || true
	for p in $(pids); do kill "$p" 2>/dev/null || true; done
	for _ in $(seq 100); do
		left=
		for p in $(pids); do alive "$p" && left="$left $p"; done
		[ -z "$left" ] && break
		sleep 0.1
	done
	for p in $(pids); do alive "$p" && kill -9 "$p" 2>/dev/null; done
	[ -n "${db_pid:-}" ] && wait "$db_pid" 2>/dev/null || true
}
trap 'stop_cluster; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

mkdir -p "$d/munge" "$d/db" "$d/ctld" "$d/spool" "$d/log"
chmod 700 "$d/munge"
set -- $(python3 -c '
import socket
ss = [socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
ctld_port=$1 slurmd_port=$2 dbd_port=$3 db_port=$4

dd if=/dev/urandom of="$d/munge/key" bs=1024 count=1 2>/dev/null
chmod 600 "$d/munge/key"
munged -f --socket="$d/munge/sock" --key-file="$d/munge/key" --pid-file="$d/munge/pid" \
	--log-file="$d/log/munged" --seed-file="$d/munge/seed" </dev/null >/dev/null 2>&1 || skip "munged does not start"

mariadb-install-db --no-defaults --datadir="$d/db" --auth-root-authentication-method=normal --skip-test-db \
	>"$d/log/mariadb-install" 2>&1 || skip "mariadb-install-db fails"
mariadbd --no-defaults --datadir="$d/db" --socket="$d/db.sock" --port="$db_port" --bind-address=127.0.0.1 \
	--pid-file="$d/db.pid" --user=root --skip-log-bin --innodb-buffer-pool-size=16M \
	--log-error="$d/log/mariadb" </dev/null >/dev/null 2>&1 &
db_pid=$!
for _ in $(seq 100); do [ -S "$d/db.sock" ] && break; sleep 0.1; done
[ -S "$d/db.sock" ] || skip "mariadbd does not start"

host=$(hostname)
cat >"$d/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$d/munge/sock
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=root
LogFile=$d/log/slurmdbd
PidFile=$d/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=root
StorageLoc=slurm_acct
EOF
chmod 600 "$d/slurmdbd.conf"
cat >"$d/slurm.conf" <<EOF
ClusterName=kopt
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/sock
CredType=cred/munge
StateSaveLocation=$d/ctld
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld
SlurmdLogFile=$d/log/slurmd
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
AccountingStoragePass=$d/munge/sock
MpiDefault=none
GresTypes=gpu
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
KillWait=5
MinJobAge=5
NodeName=kopt1 NodeAddr=127.0.0.1 NodeHostname=$host CPUs=2 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=kopt1 Default=YES MaxTime=INFINITE State=UP
EOF
# two "GPUs": Slurm binds a GRES to a device file; nothing opens them
printf 'NodeName=kopt1 Name=gpu File=/dev/zero\nNodeName=kopt1 Name=gpu File=/dev/full\n' >"$d/gres.conf"
SLURM_CONF=$d/slurm.conf
export SLURM_CONF
slurmdbd </dev/null >/dev/null 2>&1 || skip "slurmdbd does not start"
for _ in $(seq 100); do [ -s "$d/slurmdbd.pid" ] && grep -q 'started' "$d/log/slurmdbd" 2>/dev/null && break; sleep 0.1; done
slurmctld -i </dev/null >/dev/null 2>&1 || skip "slurmctld does not start"
slurmd -N kopt1 </dev/null >/dev/null 2>&1 || skip "slurmd does not start"
for _ in $(seq 150); do sinfo -h -o %T 2>/dev/null | grep -q '^idle' && break; sleep 0.2; done
sinfo -h -o %T 2>/dev/null | grep -q '^idle' || skip "the node does not come up idle"
check "a one-node Slurm runs here (gres $(sinfo -h -o %G))" "srun -J probe true"

# ---- the examples, locally and through srun ----
copy() {
	mkdir -p "$tmp/$1"
	(cd "$top_srcdir/examples" && tar cf - --exclude=.kopt --exclude=kopt-out .) | (cd "$tmp/$1" && tar xf -)
	sed -i 's/^device h200 { gpu = "${GPU}"  gpus = 1 /device h200 { gpu = "${GPU}"  gpus = 2 /' "$tmp/$1/examples.kopt"
}
# the same examples on a cluster: the spec's launcher
cluster() { sed -i 's/^\(device h200 {.*\) }$/\1  launcher = "srun" }/' "$tmp/$1/examples.kopt"; }
copy local
"$KOPTMAKE" -C "$tmp/local" -k all >"$tmp/local.out" 2>&1 || true
copy B
cluster B
grep -q 'launcher = "srun"' "$tmp/B/examples.kopt" || echo "# the spec has no launcher line"
rc=0
KOPT_SIM_WHERE=$tmp/B.where salloc -J kopt-B -n 2 --gres=gpu:2 "$KOPTMAKE" -C "$tmp/B" -k all \
	>"$tmp/B.out" 2>"$tmp/B.err" || rc=$?
job=$(sed -n 's/^salloc: Granted job allocation \([0-9]*\)$/\1/p' "$tmp/B.err")
check "the examples build through srun inside one allocation (job $job)" "[ $rc -eq 0 ] && [ -n '$job' ] && [ -f '$tmp/B/kopt-out/all/report.json' ]"
# the results, not the GPU time they took (srun forwards each message in
# tens of milliseconds): the reports' GPU-time section and figures set aside
results() {
	rm -rf "$2" && cp -r "$1" "$2"
	sed -i -e '/^## GPU time/,/^## /{/^## [^G]/!d}' -e 's/| [0-9]*\.[0-9] |$/| - |/' "$2/all/report.md"
	python3 - "$2/all/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("gpu_minutes_by_step", None)
for m in d["models"]:
    m.pop("gpu_minutes", None)
    m.pop("gpu_minutes_by_step", None)
    m.pop("gpu_seconds_by_step", None)
json.dump(d, open(sys.argv[1], "w"), indent=2, sort_keys=True)
PY
}
results "$tmp/local/kopt-out" "$tmp/local.res"
results "$tmp/B/kopt-out" "$tmp/B.res"
check "the reports equal a local build's (GPU time set aside)" "diff -r '$tmp/local.res' '$tmp/B.res' >/dev/null"
nreq=$(wc -l <"$tmp/B.where" | tr -d ' ')
check "every worker request ($nreq) ran in a job step of job $job" \
	"[ $nreq -gt 100 ] && ! awk '{print \$3}' '$tmp/B.where' | grep -v '^$job\\.[0-9][0-9]*\$' | grep -q ."
check "each request ran on the GPU Slurm gave its step (SLURM_STEP_GPUS = CUDA_VISIBLE_DEVICES)" \
	"! awk '\$4 != \$5 || \$5 == \"-\"' '$tmp/B.where' | grep -q ."
check "two workers, two steps, two GPUs" \
	"[ \$(awk '{print \$3, \$5}' '$tmp/B.where' | sort -u | wc -l) -eq 2 ] && [ \$(awk '{print \$5}' '$tmp/B.where' | sort -u | wc -l) -eq 2 ]"
# sacct: every step of the job, named after its worker, ended well
for _ in $(seq 50); do
	sacct -n -P -j "$job" -o JobID,JobName,State >"$tmp/B.sacct" 2>/dev/null || true
	grep -q "^$job|.*|COMPLETED" "$tmp/B.sacct" && ! grep -q RUNNING "$tmp/B.sacct" && break
	sleep 0.2
done
sed 's/^/# sacct: /' "$tmp/B.sacct"
steps_seen=$(awk '{print $3}' "$tmp/B.where" | sort -u | tr '\n' ' ')
steps_listed=$(awk -F'|' '$1 ~ /\.[0-9]+$/ && $2 ~ /^koptmake\.w[0-9]+\.[0-9]+$/ && $3 == "COMPLETED" {print $1}' "$tmp/B.sacct" | sort -u | tr '\n' ' ')
check "sacct lists the steps that ran requests, as COMPLETED koptmake workers ($steps_listed)" \
	"[ -n '$steps_seen' ] && [ '$steps_seen' = '$steps_listed' ]"

# ---- a step cancelled while it runs ----
# (the workers name a witness file of their environment, so that a build
# may trust the environment it recorded: see the end of this part)
printf 'w\n' >"$tmp/C.witness"
KOPT_SIM_WITNESS=$tmp/C.witness
export KOPT_SIM_WITNESS
copy C
cluster C
echo "# sim: slow stitch 4000" >>"$tmp/C/models/softmax.py"
rc=0
KOPT_SIM_WHERE=$tmp/C.where "$KOPTMAKE" -C "$tmp/C" -k all >"$tmp/C.out" 2>"$tmp/C.err" &
kpid=$!
for _ in $(seq 600); do grep -q '^stitch softmax ' "$tmp/C.where" 2>/dev/null && break; sleep 0.1; done
step=$(awk '$1 == "stitch" && $2 == "softmax" { print $3; exit }' "$tmp/C.where")
scancel "$step"
wait "$kpid" || rc=$?
sed -n 's/^/# /; /error:/p' "$tmp/C.err"
# slurmstepd's line names the step; on a loaded machine srun may see its
# task killed before that line reaches it, and says only that
why="Slurm cancelled job step $step on kopt1\\|Slurm killed the worker"
check "scancel of step $step mid-stitch fails that stitch with Slurm's reason" \
	"[ $rc -eq 1 ] && grep -q 'error: stitch softmax failed: \\($why\\)' '$tmp/C.err'"
check "the build log records it" "grep -a 'failed: \\($why\\)' '$tmp/C/.kopt/log' | grep -q 'stitch'"
for _ in $(seq 50); do
	sacct -n -P -j "${step%.*}" -o JobID,State >"$tmp/C.sacct" 2>/dev/null || true
	grep -q "^$step|CANCELLED" "$tmp/C.sacct" && break
	sleep 0.2
done
check "sacct has step $step CANCELLED" "grep -q '^$step|CANCELLED' '$tmp/C.sacct'"
"$KOPTMAKE" -C "$tmp/C" -n all >"$tmp/C.n" 2>&1 || true
check "every other result is kept: only the stitch and the report are left ($(head -n 2 "$tmp/C.n" | tr '\n' ','))" \
	"[ \"\$(sed '\$d' '$tmp/C.n' | sort | tr '\\n' ,)\" = 'report all,stitch softmax,' ]"
rc=0
"$KOPTMAKE" -C "$tmp/C" all >"$tmp/C2.out" 2>&1 || rc=$?
check "the next build runs those two and ends well" \
	"[ $rc -eq 0 ] && [ \"\$(grep -c '^\\[' '$tmp/C2.out')\" -eq 2 ]"
# with nothing to do, a worker on the cluster is still asked for its
# environment (the node Slurm gives may differ from the last build's);
# without the launcher, a build after one that recorded the environment
# trusts it
rc=0
KOPT_SIM_ENV_LOG=$tmp/C3.env "$KOPTMAKE" -C "$tmp/C" all >"$tmp/C3.out" 2>&1 || rc=$?
check "a build with nothing to do still asks a worker on the cluster for its environment" \
	"[ $rc -eq 0 ] && grep -q 'nothing to do' '$tmp/C3.out' && grep -q '^pid ' '$tmp/C3.env'"
sed -i 's/  launcher = "srun" }$/ }/' "$tmp/C/examples.kopt"
"$KOPTMAKE" -C "$tmp/C" all >/dev/null 2>&1 || true
rc=0
KOPT_SIM_ENV_LOG=$tmp/C4.env "$KOPTMAKE" -C "$tmp/C" all >"$tmp/C4.out" 2>&1 || rc=$?
check "... and without the launcher, none is started" \
	"[ $rc -eq 0 ] && grep -q 'nothing to do' '$tmp/C4.out' && [ ! -s '$tmp/C4.env' ]"
unset KOPT_SIM_WITNESS

# ---- koptmake interrupted ----
copy D
cluster D
KOPT_SIM_DELAY_MS=300 KOPT_SIM_WHERE=$tmp/D.where "$KOPTMAKE" -C "$tmp/D" -k all >"$tmp/D.out" 2>"$tmp/D.err" &
kpid=$!
for _ in $(seq 300); do [ -f "$tmp/D.where" ] && [ "$(wc -l <"$tmp/D.where")" -ge 6 ] && break; sleep 0.1; done
running=$(squeue -h --steps -o '%i %j' | awk '$2 ~ /^koptmake\.w/ {print $1}' | sort | tr '\n' ' ')
t0=$(date +%s)
kill -INT "$kpid"
rc=0
wait "$kpid" || rc=$?
t1=$(date +%s)
check "an interrupted koptmake ends within $((t1 - t0)) s, saying so" \
	"[ $rc -eq 130 ] && grep -q 'interrupted' '$tmp/D.err' && [ $((t1 - t0)) -le 10 ]"
left=$(squeue -h --steps -o '%i %j' | awk '$2 ~ /^koptmake\.w/' | tr '\n' ' ')
check "... and no step of it is left running (were: $running)" "[ -n '$running' ] && [ -z '$left' ]"
for _ in $(seq 50); do
	sacct -n -P -o JobID,JobName,State >"$tmp/D.sacct" 2>/dev/null || true
	ended=yes
	for s in $running; do grep -q "^$s|.*|CANCELLED" "$tmp/D.sacct" || ended=no; done
	[ $ended = yes ] && break
	sleep 0.2
done
check "sacct has its steps CANCELLED" "[ $ended = yes ]"
echo "1..$n"
