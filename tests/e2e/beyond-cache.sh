#!/bin/sh
# tests/e2e/beyond-cache.sh: bench/beyond/cache.sh, the compile cache the
# benchmark carries between device calls, on a made-up Inductor cache
# (text graphs, max-autotune's picks, three large graphs of random bytes
# of known ages). Packed whole where it fits and unpacked byte for byte,
# with xz and with gzip; cut to its picks and newest graphs where it does
# not, in at most PARTS parts of at most KOPT_CACHE_PART bytes; an older
# single compile-cache.tgz still unpacked. Prints TAP.
set -eu
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-bcache-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cache="$top_srcdir/bench/beyond/cache.sh"
n=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi
}
w=$tmp/work
i=$w/.kopt/compile/inductor
mkdir -p "$i/fx/a" "$i/fx/b" "$i/cache" "$i/tk"
for k in 1 2 3 4 5 6; do
	awk -v k=$k 'BEGIN { for (j = 0; j < 400; j++) printf "def kernel_%d_%d(x): return x * %d + %d\n", k, j, j, k }' > "$i/fx/a/graph$k.py"
done
printf '{"XBLOCK": 1024}\n' > "$i/tk/k1.best_config"
printf '{"pick": "mm_template_3"}\n' > "$i/cache/mm.json"
# three graphs that do not compress, oldest first
for k in 1 2 3; do
	head -c 30000 /dev/urandom > "$i/fx/b/big$k.bin"
	touch -d "2026-12-0$k 00:00:00" "$i/fx/b/big$k.bin"
done
(cd "$w" && find .kopt -type f | sort | xargs md5sum) > "$tmp/want"

roundtrip() { # LABEL XZ
	rm -rf "$tmp/out" "$tmp/back" && mkdir -p "$tmp/out" "$tmp/back"
	(cd "$w" && KOPT_CACHE_XZ=$2 bash "$cache" pack "$tmp/out" 3) > "$tmp/pack.log" 2>&1
	(cd "$tmp/back" && bash "$cache" unpack "$tmp/out")
	(cd "$tmp/back" && find .kopt -type f | sort | xargs md5sum) > "$tmp/got"
}
if command -v xz >/dev/null 2>&1; then
	roundtrip xz 1
	check "with xz: whole, in .txz parts, unpacked byte for byte" \
		"ls '$tmp/out'/compile-cache.txz.00 >/dev/null && ! ls '$tmp/out'/compile-cache.tgz* >/dev/null 2>&1 && cmp -s '$tmp/want' '$tmp/got'"
else
	n=$((n + 1)); echo "ok $n # SKIP no xz here"
fi
roundtrip gzip 0
check "with gzip (KOPT_CACHE_XZ=0): whole, in .tgz parts, unpacked byte for byte" \
	"ls '$tmp/out'/compile-cache.tgz.00 >/dev/null && ! ls '$tmp/out'/compile-cache.txz* >/dev/null 2>&1 && cmp -s '$tmp/want' '$tmp/got'"

# parts of 25000 bytes, at most 2 of them: the three random graphs (90000
# bytes) cannot all go; the picks and the newest that fit do
rm -rf "$tmp/out" "$tmp/back" && mkdir -p "$tmp/out" "$tmp/back"
(cd "$w" && KOPT_CACHE_PART=25000 KOPT_CACHE_XZ=0 bash "$cache" pack "$tmp/out" 2) > "$tmp/pack.log" 2>&1
(cd "$tmp/back" && bash "$cache" unpack "$tmp/out")
sizes=$(stat -c %s "$tmp/out"/compile-cache.tgz.* | tr '\n' ' ')
check "cut: at most 2 parts, none over 25000 bytes ($sizes)" \
	"[ \$(ls '$tmp/out'/compile-cache.tgz.* | wc -l) -le 2 ] && [ -z \"\$(stat -c %s '$tmp/out'/compile-cache.tgz.* | awk '\$1 > 25000')\" ]"
check "cut: max-autotune's picks kept" \
	"cmp -s '$i/tk/k1.best_config' '$tmp/back/.kopt/compile/inductor/tk/k1.best_config' && cmp -s '$i/cache/mm.json' '$tmp/back/.kopt/compile/inductor/cache/mm.json'"
check "cut: the newest random graph kept, the oldest left out" \
	"cmp -s '$i/fx/b/big3.bin' '$tmp/back/.kopt/compile/inductor/fx/b/big3.bin' && [ ! -e '$tmp/back/.kopt/compile/inductor/fx/b/big1.bin' ]"
check "cut: said on stderr" "grep -q 'graphs to [0-9]* bytes' '$tmp/pack.log'"

# a pack removes the parts of an earlier pack in OUT, of either kind
: > "$tmp/out/compile-cache.txz.07"
(cd "$w" && KOPT_CACHE_XZ=0 bash "$cache" pack "$tmp/out" 3) > /dev/null 2>&1
check "a pack leaves no part of an earlier one" "[ ! -e '$tmp/out/compile-cache.txz.07' ]"

# an older single compile-cache.tgz
rm -rf "$tmp/old" "$tmp/back" && mkdir -p "$tmp/old" "$tmp/back"
(cd "$w" && tar czf "$tmp/old/compile-cache.tgz" .kopt/compile/inductor)
(cd "$tmp/back" && bash "$cache" unpack "$tmp/old")
(cd "$tmp/back" && find .kopt -type f | sort | xargs md5sum) > "$tmp/got"
check "an older single compile-cache.tgz unpacked" "cmp -s '$tmp/want' '$tmp/got'"
(cd "$tmp/back" && bash "$cache" unpack "$tmp/nowhere")
check "nothing to unpack: no error" "[ \$? -eq 0 ]"
echo "1..$n"
