#!/bin/sh
# tests/e2e/cache-links.sh: no symbolic link is followed below the cache
# folder (common/nofollow.h), with the simulated worker (a TEST DOUBLE).
# A link planted at the lock, the action map, the build log, env,
# memory.jsonl, objects/, a folder of objects/, workers/, compile/ or
# compile/triton, pointing at a file or folder outside (or at nothing),
# leaves its target as it was: nothing is written, appended, made or
# removed there. Each one the build needs is an error naming the path and
# the link; env and memory.jsonl, which a build can do without, are each
# one warning. -t gc removes nothing through a link.
set -eu
. "$top_srcdir/tests/e2e/sim-env.sh" cache-links

mkdir -p src outside/dir
(cd "$top_srcdir/examples" && tar cf - --exclude=.kopt --exclude=kopt-out .) | (cd src && tar xf -)
echo precious >outside/file
echo precious >outside/dir/f
sum() { find outside -exec ls -ld --time-style=+%s {} + | awk '{print $1, $5, $6, $7}' | sort | cksum; }
before=$(sum)

# plant KIND PATH: a fresh copy of the examples whose .kopt/PATH is a link
# to the file or folder outside (KIND file, dir) or to a path that does not
# exist (none); then a build of one model, its status in rc
plant() {
	rm -rf ex
	cp -r src ex
	mkdir -p "ex/.kopt/$(dirname "$2")"
	case $1 in
	file) ln -s "$tmp/outside/file" "ex/.kopt/$2" ;;
	dir) ln -s "$tmp/outside/dir" "ex/.kopt/$2" ;;
	none) ln -s "$tmp/outside/missing" "ex/.kopt/$2" ;;
	esac
	rc=0
	"$KOPTMAKE" -C ex softmax >out 2>err || rc=$?
}
said() { grep -q "$1.*it is a symbolic link, or one is on its path (koptmake follows none in its cache folder: remove it)" err; }
untouched() { [ "$(sum)" = "$before" ] && [ ! -e outside/missing ]; }

for x in lock actions log; do
	plant file $x
	check "a link at .kopt/$x: an error naming it, the build fails, its target untouched" \
		"[ $rc -ne 0 ] && said \"'./.kopt/$x'\" && untouched"
	plant none $x
	check "... a link to nothing at .kopt/$x makes nothing there" "[ $rc -ne 0 ] && untouched"
done
for x in env memory.jsonl; do
	plant file $x
	check "a link at .kopt/$x: one warning naming it, the build goes on, its target untouched" \
		"[ $rc -eq 0 ] && [ \$(grep -c 'warning: .*$x.*symbolic link' err) -eq 1 ] && untouched"
done
for x in objects workers compile compile/triton; do
	plant dir $x
	check "a link at .kopt/$x/: an error naming it, the build fails, its target untouched" \
		"[ $rc -ne 0 ] && said \"'./.kopt/$x[/']\" && untouched"
done

# a folder of objects/ replaced by a link, after a first build
rm -rf ex
cp -r src ex
"$KOPTMAKE" -C ex softmax >out 2>err
sub=$(ls ex/.kopt/objects | grep -v tmp | head -n 1)
rm -rf "ex/.kopt/objects/$sub" ex/kopt-out
ln -s "$tmp/outside/dir" "ex/.kopt/objects/$sub"
rc=0
"$KOPTMAKE" -C ex softmax >out 2>err || rc=$?
check "a link at a folder of objects/: an error naming it, its target untouched" \
	"[ $rc -ne 0 ] && said \"'./.kopt/objects/$sub'\" && untouched"
# -t gc with a link among objects/'s folders: nothing removed through it
cp outside/dir/f "outside/dir/$(printf '%030d' 0)"
before=$(sum)
"$KOPTMAKE" -C ex -t gc >out 2>err || true
check "-t gc removes nothing through a link in objects/" "untouched && [ -L 'ex/.kopt/objects/$sub' ]"
echo "1..$n"
