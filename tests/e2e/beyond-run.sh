#!/bin/sh
# tests/e2e/beyond-run.sh: bench/beyond/run.sh's work folder between
# slices. A slice goes on from what .device carries and nothing else: with
# no .device/beyond.tgz the folder starts empty, so a warm machine's folder
# of another part (its steps, its report) does not flow into this part's
# figures; with one, the slice resumes from it and hands its own on in
# $OUT/beyond.tgz. koptmake here is a test double (a shell script on PATH)
# that records what its folder held and leaves a step's mark, as a build
# leaves its cache. Prints TAP.
set -eu
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-run-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }
root=$tmp/root work=$tmp/work
mkdir -p "$root/.device" "$root/bench/beyond" "$tmp/bin" "$tmp/sample/level3" "$tmp/out1" "$tmp/out2"
# the scripts a slice runs, from the source tree
for f in "$top_srcdir/bench/beyond/run.sh" "$top_srcdir/bench/beyond/cache.sh" \
	"$top_srcdir/bench/beyond/summarize.py" "$top_srcdir/bench/beyond/costs.py"; do
	ln -s "$f" "$root/bench/beyond/"
done
: > "$tmp/sample/level3/1_Problem.py"
echo '# a spec (the double does not read it)' > "$root/spec.kopt"
# the double: what the folder held when the build began, then a mark
cat > "$tmp/bin/koptmake" <<'EOF'
#!/bin/sh
# test double of koptmake (tests/e2e/beyond-run.sh): records the folder
{ find . -path ./.kopt/compile -prune -o -type f -print | sort; } > "$SEEN"
mkdir -p .kopt kopt-out/level3
echo "$MARK" > ".kopt/step-$MARK"
EOF
chmod +x "$tmp/bin/koptmake"
slice() { # OUT MARK: one slice of level 3 from $root
	(cd "$root" && PATH="$tmp/bin:$PATH" OUT=$1 SEEN=$1/seen MARK=$2 BEYOND_WORK=$work \
		SPEC=spec.kopt TARGETS=level3 bash bench/beyond/run.sh "$tmp/sample" 60 > "$1/log" 2>&1)
}

# a warm machine's folder of another part: its steps and its report
mkdir -p "$work/.kopt" "$work/kopt-out/level3"
echo other > "$work/.kopt/step-other"
echo '{"models": []}' > "$work/kopt-out/level3/report.json"
slice "$tmp/out1" first
check "the first slice ran the build" "[ -s '$tmp/out1/seen' ]"
check "a part's first slice does not see another part's steps" "! grep -q step-other '$tmp/out1/seen'"
check "nor its report" "! grep -q report.json '$tmp/out1/seen'"
check "the slice's sample and spec are there" \
	"grep -q './sample/level3/1_Problem.py' '$tmp/out1/seen' && grep -q './Koptfile' '$tmp/out1/seen'"
check "the slice hands its steps on in beyond.tgz" \
	"tar tzf '$tmp/out1/beyond.tgz' | grep -q '.kopt/step-first'"

# the next slice, with the first's beyond.tgz carried: it resumes from it
cp "$tmp/out1/beyond.tgz" "$root/.device/beyond.tgz"
rm -rf "$work"
slice "$tmp/out2" second
check "a later slice resumes from the carried steps" "grep -q step-first '$tmp/out2/seen'"
check "and hands on both" \
	"tar tzf '$tmp/out2/beyond.tgz' | grep -q '.kopt/step-first' && tar tzf '$tmp/out2/beyond.tgz' | grep -q '.kopt/step-second'"
echo "1..$n"
