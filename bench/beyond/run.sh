#!/bin/bash
# bench/beyond/run.sh SAMPLE [SECONDS]: one slice of the benchmark on
# the GPU machine, from the project root, resumable: the cache of earlier
# slices comes from $OUT/../beyond.tgz or .device/beyond.tgz when there,
# and this slice's cache goes to $OUT/beyond.tgz. koptmake is stopped with
# SIGINT after SECONDS (default 480), so finished steps are kept. SAMPLE is
# what sample.sh made (on this machine: ../shared does not travel).
set -u
sample=$(cd "$1" && pwd); secs=${2:-480}
top=$PWD
work=/tmp/beyond-work
mkdir -p "$work"
[ -f "$top/.device/beyond.tgz" ] && tar xzf "$top/.device/beyond.tgz" -C "$work"
rm -rf "$work/sample" && cp -r "$sample" "$work/sample"
cd "$work" && cp "$top/bench/beyond/beyond.kopt" Koptfile
t0=$(date +%s)
BEYOND=sample timeout -s INT "$secs" koptmake -k -j1 all >build.log 2>&1
echo "koptmake exit $?, $(( $(date +%s) - t0 )) s"
tail -3 build.log
python3 "$top/bench/beyond/summarize.py" kopt-out/all/report.json > summary.md 2>&1 && cat summary.md
tar czf "${OUT:-/tmp}/beyond.tgz" --exclude=.kopt/compile .kopt kopt-out build.log summary.md
