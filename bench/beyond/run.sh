#!/bin/bash
# bench/beyond/run.sh SAMPLE [SECONDS]: one slice of the benchmark on
# the GPU machine, from the project root, resumable: the cache of earlier
# slices comes from .device/beyond.tgz when there (without it, the work
# folder, /tmp/beyond-work or BEYOND_WORK, starts empty: a warm machine's
# folder of another part is not reused), and this slice's cache goes to $OUT/beyond.tgz (Inductor's cache of
# compiled graphs and autotuning to $OUT/compile-cache.txz.NN, or .tgz.NN
# without xz, read back from .device: bench/beyond/cache.sh). koptmake is stopped with
# SIGINT after SECONDS (default 480), so finished steps are kept. The
# levels are built one after the other (TARGETS, default "level1 level2
# level3 all"; set and empty: none, for DEPLOY alone), each summarized once
# its report is there. SAMPLE is what
# sample.sh made (on this machine: ../shared does not travel). SPEC: the
# spec (default bench/beyond/beyond.kopt; bench/network/network.kopt for
# the level-3 networks, TARGETS=level3). SPECDIR: a spec folder of the
# repository instead, copied whole (its .kopt and models; SAMPLE may be
# "-"): SPECDIR=examples TARGETS=networks builds the example networks over
# several calls.
set -u
sample=; [ "$1" = - ] || sample=$(cd "$1" && pwd)
secs=${2:-480}
top=$PWD
work=${BEYOND_WORK:-/tmp/beyond-work}
# a slice goes on from what .device carries and from nothing else: with no
# beyond.tgz there, a fresh start (a part's first slice), so that a warm
# machine's folder of another part (its steps, its report, its compile
# cache) does not flow into this one's figures
[ -f "$top/.device/beyond.tgz" ] || rm -rf "$work"
mkdir -p "$work"
[ -f "$top/.device/beyond.tgz" ] && tar xzf "$top/.device/beyond.tgz" -C "$work"
# Inductor's caches of earlier slices (.kopt/compile/inductor: compiled
# graphs and max-autotune's picks), so that a fresh machine's worker does
# not compile and autotune each model again before its first verify
# (bench/beyond/cache.sh: the parts as they came back)
(cd "$work" && bash "$top/bench/beyond/cache.sh" unpack "$top/.device")
[ -z "$sample" ] || { rm -rf "$work/sample" && cp -r "$sample" "$work/sample"; }
# the seal key travels with the step cache (config/koptmake/seal.key in
# beyond.tgz): each call may be a fresh machine, and the deployment
# (DEPLOY) loads only what the key koptmake sealed with verifies; a
# koptmake run seals its stitches again with the key it has (their done
# hook), so a cache from before the key travelled deploys after one
export XDG_CONFIG_HOME=$work/config
if [ -n "${SPECDIR:-}" ]; then
	(cd "$top/$SPECDIR" && tar cf - --exclude=.kopt --exclude=kopt-out .) | (cd "$work" && tar xf -)
	cd "$work"
else
	cd "$work" && cp "$top/${SPEC:-bench/beyond/beyond.kopt}" Koptfile
fi
# level by level, so that a slice that runs out of time leaves whole levels
# (a build does every capture and profile of its target before the rest)
t0=$(date +%s); t0ms=$(date +%s%3N); rc=0
: > build.log
for t in ${TARGETS-level1 level2 level3 all}; do
	left=$(( secs - ($(date +%s) - t0) ))
	[ "$left" -gt 5 ] || { rc=124; break; }
	echo "== $t ($left s left)" >>build.log
	BEYOND=sample timeout -s INT "$left" koptmake -k "$t" >>build.log 2>&1
	rc=$?
	[ $rc -eq 124 ] && break
done
echo "koptmake exit $rc, $(( $(date +%s) - t0 )) s"
tail -3 build.log
: > summary.md
for r in kopt-out/*; do
	[ -f "$r/report.json" ] && python3 "$top/bench/beyond/summarize.py" "$r/report.json" >> summary.md 2>&1
done
cat summary.md
# DEPLOY="level1 ...": the deployment's check on those levels' reports
# (tests/gpu/deploy.py: kopt.backend against torch.compile in a plain
# process, each optimized problem's speedup within 5% of the report's,
# outputs within KernelBench's 1e-2), with the slices' compile caches
for t in ${DEPLOY:-}; do
	[ -f "kopt-out/$t/report.json" ] || continue
	TORCHINDUCTOR_CACHE_DIR=$work/.kopt/compile/inductor TRITON_CACHE_DIR=$work/.kopt/compile/triton \
		timeout -s INT "${DEPLOY_SECS:-300}" python3 "$top/tests/gpu/deploy.py" "$work" --report "kopt-out/$t/report.json" \
		--sources l1=sample/level1,l2=sample/level2,l3=sample/level3 --within 0.05 --tol 1e-2 \
		${DEPLOY_ARGS:-} ${DEPLOY_MODELS:-} > "deploy-$t.md" 2>&1
	echo "deploy $t: exit $?"
	grep -E "^(not )?ok|^\|" "deploy-$t.md"
	cp "deploy-$t.md" "${OUT:-/tmp}/" 2>/dev/null || true
done
# where this slice's time went (costs.py: per kind of step, the screens' rates)
python3 "$top/bench/beyond/costs.py" .kopt "$t0ms" > costs.md 2>&1 || true
cat costs.md
cp costs.md "${OUT:-/tmp}/costs.md" 2>/dev/null || true
tar czf "${OUT:-/tmp}/beyond.tgz" --exclude=.kopt/compile .kopt kopt-out build.log summary.md costs.md \
	$(ls -d config 2>/dev/null)
# the compile cache in parts (bench/beyond/cache.sh: at most PARTS of
# them, default 3; xz where the machine has it): whole where it fits, else
# max-autotune's picks and the newest compiled graphs that fit (a stitch
# compiles every variant of its model in a fresh worker: the graphs spare
# it the compiles, the picks the autotuning)
bash "$top/bench/beyond/cache.sh" pack "${OUT:-/tmp}" "${PARTS:-3}"
