#!/bin/bash
# bench/beyond/run.sh SAMPLE [SECONDS]: one slice of the benchmark on
# the GPU machine, from the project root, resumable: the cache of earlier
# slices comes from .device/beyond.tgz when there,
# and this slice's cache goes to $OUT/beyond.tgz (Inductor's cache of
# compiled graphs and autotuning to $OUT/compile-cache.tgz, read back from
# .device/compile-cache.tgz). koptmake is stopped with
# SIGINT after SECONDS (default 480), so finished steps are kept. The
# levels are built one after the other (TARGETS, default "level1 level2
# level3 all"), each summarized once its report is there. SAMPLE is what
# sample.sh made (on this machine: ../shared does not travel).
set -u
sample=$(cd "$1" && pwd); secs=${2:-480}
top=$PWD
work=/tmp/beyond-work
mkdir -p "$work"
[ -f "$top/.device/beyond.tgz" ] && tar xzf "$top/.device/beyond.tgz" -C "$work"
# Inductor's caches of earlier slices (.kopt/compile/inductor: compiled
# graphs and max-autotune's picks), so that a fresh machine's worker does
# not compile and autotune each model again before its first verify
[ -f "$top/.device/compile-cache.tgz" ] && tar xzf "$top/.device/compile-cache.tgz" -C "$work"
rm -rf "$work/sample" && cp -r "$sample" "$work/sample"
cd "$work" && cp "$top/bench/beyond/beyond.kopt" Koptfile
# level by level, so that a slice that runs out of time leaves whole levels
# (a build does every capture and profile of its target before the rest)
t0=$(date +%s); t0ms=$(date +%s%3N); rc=0
: > build.log
for t in ${TARGETS:-level1 level2 level3 all}; do
	left=$(( secs - ($(date +%s) - t0) ))
	[ "$left" -gt 5 ] || { rc=124; break; }
	echo "== $t ($left s left)" >>build.log
	BEYOND=sample timeout -s INT "$left" koptmake -k -j1 "$t" >>build.log 2>&1
	rc=$?
	[ $rc -eq 124 ] && break
done
echo "koptmake exit $rc, $(( $(date +%s) - t0 )) s"
tail -3 build.log
: > summary.md
for r in kopt-out/level1 kopt-out/level2 kopt-out/level3 kopt-out/all; do
	[ -f "$r/report.json" ] && python3 "$top/bench/beyond/summarize.py" "$r/report.json" >> summary.md 2>&1
done
cat summary.md
# where this slice's time went (costs.py: per kind of step, the screens' rates)
python3 "$top/bench/beyond/costs.py" .kopt "$t0ms" > costs.md 2>&1 || true
cat costs.md
cp costs.md "${OUT:-/tmp}/costs.md" 2>/dev/null || true
tar czf "${OUT:-/tmp}/beyond.tgz" --exclude=.kopt/compile .kopt kopt-out build.log summary.md costs.md
# the compile cache, whole where it fits what a call brings back (16 MiB a
# file), else max-autotune's picks alone (the autotuning is most of a
# compile's time)
c="${OUT:-/tmp}/compile-cache.tgz"
if [ -d .kopt/compile/inductor ]; then
	tar czf "$c" .kopt/compile/inductor
	if [ "$(stat -c %s "$c")" -gt 15000000 ]; then
		find .kopt/compile/inductor \( -name '*.best_config' -o -path '*/cache/*' \) -type f >picks.txt
		tar czf "$c" -T picks.txt
	fi
	echo "compile cache: $(stat -c %s "$c") bytes"
fi
