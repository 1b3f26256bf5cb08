#!/bin/bash
# tests/gpu/run.sh: the GPU tests (make check-gpu), on a machine with an
# NVIDIA GPU and a Python holding torch. Run from the build folder.
#   run.sh [OUTDIR [PART...]]   results and logs go to OUTDIR (default:
#                               gpu-results); PARTs (or $GPU_TESTS, as in
#                               `make check-gpu GPU_TESTS="smoke sandbox"`)
#                               pick parts by name, all of them by default,
#                               so that the suite can run in slices of a few
#                               minutes each; `run.sh OUT list` names them
# Each part prints its TAP lines and its seconds, keeps its whole output
# in OUTDIR/PART.out and adds a line to OUTDIR/summary.txt (PART, ok or
# FAILED, its seconds, when it ended); the status is 1 when a part
# failed, 2 for a part name that does not exist or a GPU_JOBS that is
# not a whole number from 1.
# KOPT_DEPLOY_SPEC=DIR (a spec folder koptmake has built, with models/ and
# kopt-out/) adds the deployment's first-call check on its model
# KOPT_DEPLOY_MODEL (default softmax).
# GPU_JOBS=N (N > 1; `make check-gpu GPU_JOBS=2`) runs the parts listed in
# BESIDE, which time nothing and read no GPU counters, in N-1 streams
# beside the others, which still run one at a time: a neighbour's kernels
# move timings, and CUPTI's range profiler serves one process per GPU
# (CUPTI_ERROR_HARDWARE_BUSY). Each part's output is then printed whole
# when it ends (bench/results/2026-12-07e-h100-gpu-parts-side-by-side).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:-gpu-results}
shift $(( $# > 0 ? 1 : 0 ))
want=${*:-${GPU_TESTS:-}}
W=${KOPT_WORKER:-$PWD/kopt-worker}
K=${KOPTMAKE:-$PWD/koptmake}
# the workers these tests start by hand read the source tree's models, as
# koptmake lets a worker read its spec's folders (runtime/sandbox.h): the
# home folder, where the tree may be, is hidden from them
export KOPT_SANDBOX_READ=$top${KOPT_SANDBOX_READ:+:$KOPT_SANDBOX_READ}
# the specs that name their GPU by KOPT_GPU (examples/*.kopt, whose default
# is the H200) name this machine's card, unless the caller named one
[ -n "${KOPT_GPU:-}" ] || KOPT_GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | grep -o 'H[0-9][0-9]*' | head -1)
if [ -n "$KOPT_GPU" ]; then export KOPT_GPU; else unset KOPT_GPU; fi

# the parts, in the order they run: name, then what it shows
# the parts that only compile and check numbers (no timed choice, no
# profile): they may share the GPU with a part that times
BESIDE="gate_reading rewrite_cache static_shapes graph_cache deploy_keys tplthreads"
PARTS="smoke sandbox screen_lost gate_reading cheats baseline aten_auto space rewrites rewrite_cache static_shapes graph_cache deploy_keys attention products examples counters tplthreads tplcut tunelock knobs transforms deploy_check helion"
smoke() { # capture, profile, a model that fails to import
	bash "$here/smoke.sh" "$W" "$out/smoke" 2>"$out/smoke-worker.log" >"$out/smoke.log"
	python3 "$here/check_smoke.py" "$out/smoke"; }
sandbox() { # the worker's sandbox: a model opening a socket, one writing outside its scratch folder, one reading ~/.netrc
	bash "$here/sandbox.sh" "$W" "$out/sandbox"; }
screen_lost() { # a screened config that makes an illegal memory access: the screen goes on in a new worker without it
	bash "$here/screen_lost.sh" "$K" "$out/screen_lost"; }
gate_reading() { # gate 1 reads each kernel of tests/static as Triton does (what Triton compiles, loaded as Inductor loads it)
	python3 "$here/gate_reading.py" >"$out/gate_reading.tap" 2>&1; local r=$?
	tail -n 1 "$out/gate_reading.tap"; return $r; }
cheats() { # reward-hacking suite
	bash "$here/cheats.sh" "$W" "$out/cheats"; }
baseline() { # the compiled baseline against eager: examples/checks
	bash "$here/baseline.sh" "$K" "$out/baseline"; }
aten_auto() { # an ATen-fallback variant that changes the results (a test double changes the fallback)
	bash "$here/aten_auto.sh" "$K" "$out/aten_auto"; }
space() { # the implementation-space search (space_variants = 6) and CUDA graphs at deployment
	bash "$here/space.sh" "$K" "$out/space"; }
rewrites() { # koptmake's own rewrites (transposed and depthwise convolutions): their numbers, and models built with them
	bash "$here/rewrites.sh" "$K" "$out/rewrites"; }
rewrite_cache() { # a rewrite's variant through Inductor's graph cache: a fresh worker compiles it again from there
	python3 "$here/rewrite_cache.py" "$W" "$out/rewrite_cache"; }
static_shapes() { # a model's shapes compile static in every worker: the kernels a deployment compiles per shape
	python3 "$here/static_shapes.py" "$W" "$out/static_shapes"; }
graph_cache() { # a deployment's compile served by the graph a worker compiled into the same cache (the parts of the key that differ, where not)
	python3 "$here/graph_cache.py" "$W" "$out/graph_cache"; }
deploy_keys() { # a deployment's compiles at several shapes, one after another in one process, served by a worker's graphs (alone too)
	python3 "$here/deploy_keys.py" "$W" "$out/deploy_keys"; }
attention() { # kopt::attention's kernel against float64, and a model compiled with it
	python3 "$here/attention.py" >"$out/attention.tap" 2>&1; local r=$?
	cat "$out/attention.tap"; return $r; }
products() { # kopt::products' tf32x3 kernel against float64 and cuBLAS's float32 product, with its times
	python3 "$here/products.py" >"$out/products.tap" 2>&1; local r=$?
	cat "$out/products.tap"; return $r; }
examples() { # examples: capture and profile
	bash "$here/examples.sh" "$W" "$out/examples"; }
counters() { # the bytes each kernel moves, from the GPU's counters (CUPTI's range profiler)
	python3 "$here/counters.py" "$W" "$out/counters" >"$out/counters.tap" 2>"$out/counters-worker.log"; local r=$?
	cat "$out/counters.tap"; return $r; }
tplthreads() { # max-autotune's template choices precompiled in threads of the compiling process, not in the pool
	python3 "$here/tplthreads.py" "$out/tplthreads"; }
tplcut() { # max-autotune's hopeless template choices (a grouped convolution's) timed by one call: the same picks, sooner
	python3 "$here/tplcut.py" "$out/tplcut"; }
tunelock() { # two workers compiling one model at once: each operator's template choices timed by one of them, every timing kept
	python3 "$here/tunelock.py" "$out/tunelock"; }
knobs() { # source knobs: screened on two examples, each compiles and matches Inductor's kernel
	python3 "$here/knobs.py" "$W" "$out/knobs"; }
transforms() { # kernel transforms (onepass, rloop) on real kernels, timed against Inductor's; the rewrites' own kernels
	python3 "$here/transforms.py" "$W" "$out/transforms"; }
deploy_check() { # the deployment's first-call check: a broken kernel in $KOPT_DEPLOY_SPEC's model (only with KOPT_DEPLOY_SPEC)
	[ -n "${KOPT_DEPLOY_SPEC:-}" ] || { echo "ok 1 # SKIP no KOPT_DEPLOY_SPEC"; return 0; }
	python3 "$here/deploy_check.py" "$KOPT_DEPLOY_SPEC" "${KOPT_DEPLOY_MODEL:-softmax}"; }
helion() { # Helion kernels (examples/helion) built by koptmake; needs helion (KOPT_HELION_PATH)
	bash "$here/helion.sh" "$K" "$out/helion"; }

if [ "$want" = list ]; then
	for p in $PARTS; do
		printf '%-14s %s\n' "$p" "$(sed -n "s/^$p() { # //p" "$0")"
	done
	exit 0
fi
for p in $want; do
	case " $PARTS " in
	*" $p "*) ;;
	*) echo "run.sh: no part '$p' (parts: $PARTS)" >&2; exit 2 ;;
	esac
done
jobs=${GPU_JOBS:-1}
case $jobs in ''|*[!0-9]*|0*) echo "run.sh: GPU_JOBS must be a whole number from 1 ('$jobs')" >&2; exit 2 ;; esac
mkdir -p "$out"

# one part: its output to OUTDIR/PART.out, and to the console as it comes
# (alone) or whole when it ends (side by side); its line in summary.txt;
# status 1 when it failed
part() {
	p=$1
	t0=$(date +%s)
	# each part's whole output kept in OUTDIR/PART.out as well, and its
	# verdict and seconds in OUTDIR/summary.txt, so that the slices of
	# several calls (or a cut-off screen) leave a record of each
	# (the part's status through a file: the script also runs under sh)
	if [ "$jobs" -eq 1 ]; then
		echo "# $p: $(sed -n "s/^$p() { # //p" "$0")"
		{ "$1"; echo $? >"$out/.$1.rc"; } 2>&1 | tee "$out/$p.out"
	else
		# (in a subshell, as the pipe gives one above: a part's variables
		# and exits stay its own; and "$1", which no part can set, names
		# its status file)
		( "$1"; echo $? >"$out/.$1.rc" ) >"$out/$p.out" 2>&1
	fi
	if [ "$(cat "$out/.$p.rc" 2>/dev/null)" = 0 ]; then r=ok; else r=FAILED; fi
	rm -f "$out/.$p.rc"
	secs=$(( $(date +%s) - t0 ))
	if [ "$jobs" -eq 1 ]; then
		[ $r = ok ] || echo "# $p FAILED"
		echo "# $p: $secs s"
	else
		# printed at once, where the console is shared
		{ echo "# $p: $(sed -n "s/^$p() { # //p" "$0")"; cat "$out/$p.out"
		  [ $r = ok ] || echo "# $p FAILED"; echo "# $p: $secs s"; } >"$out/.$p.block"
		cat "$out/.$p.block"; rm -f "$out/.$p.block"
	fi
	echo "$p $r $secs s $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$out/summary.txt"
	[ $r = ok ]
}

# the parts of one stream, one after another; status 1 when one failed
stream() {
	st=0
	for p in "$@"; do part "$p" || st=1; done
	return $st
}

status=0
if [ "$jobs" -eq 1 ]; then
	stream ${want:-$PARTS} || status=1
	exit $status
fi
# side by side: the timing parts in one stream, the others dealt out in
# turn to jobs-1 streams beside it
timing= i=0
for p in ${want:-$PARTS}; do
	case " $BESIDE " in
	*" $p "*) eval "s$i=\"\${s$i:-} $p\""; i=$(( (i + 1) % (jobs - 1) )) ;;
	*) timing="$timing $p" ;;
	esac
done
pids=
j=0
while [ $j -lt $((jobs - 1)) ]; do
	eval "list=\${s$j:-}"
	if [ -n "$list" ]; then
		# shellcheck disable=SC2086
		stream $list &
		pids="$pids $!"
	fi
	j=$((j + 1))
done
# shellcheck disable=SC2086
stream $timing || status=1
for pid in $pids; do wait "$pid" || status=1; done
exit $status
