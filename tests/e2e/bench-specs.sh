#!/bin/sh
# tests/e2e/bench-specs.sh: every benchmark spec under bench/ loads and
# plans (koptmake -n) where its README runs it, with no error and no step
# run: from its own folder, bench/memory/second.kopt copied beside a
# models2/ folder as its header says, and the level-3 spec on a sample of
# its own (BEYOND) inside its folder, its glob matching it. A spec that
# only fails on the GPU machine costs a device call to find out. Prints TAP.
set -u
top=${top_srcdir:-.}
K=${KOPTMAKE:-${top_builddir:-.}/koptmake}
case $K in /*) ;; *) K=$PWD/$K ;; esac
top=$(cd "$top" && pwd)
n=0 bad=0
ok() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=1; sed 's/^/# /' "$tmp/err"; fi; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-bench-specs-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
plan() { # plan DIR SPEC [VAR=VALUE...]: koptmake -n in a copy of DIR
	rm -rf "$tmp/w" && cp -r "$1" "$tmp/w" && rm -rf "$tmp/w/.kopt" "$tmp/w/kopt-out"
	d=$1; s=$2; shift 2
	(cd "$tmp/w" && env "$@" "$K" -f "$s" -n >"$tmp/out" 2>"$tmp/err"); rc=$?
	[ $rc -eq 0 ] && ! grep -q "error:" "$tmp/err" && grep -q "would run" "$tmp/out" && [ ! -d "$tmp/w/.kopt" ]
}
# the release tarball carries bench/'s scripts but not its specs
ls "$top"/bench/*/*.kopt >/dev/null 2>&1 || { echo "1..0 # SKIP no benchmark specs in this tree"; exit 0; }
for f in "$top"/bench/*/*.kopt; do
	rel=${f#"$top"/}
	case $rel in
	bench/memory/second.kopt)
		rm -rf "$tmp/ex" && mkdir -p "$tmp/ex/models2" && cp "$f" "$tmp/ex/" && cp "$top/bench/memory/softmax_wide.py" "$tmp/ex/models2/"
		ok "$rel plans beside models2/softmax_wide.py" 'plan "$tmp/ex" second.kopt' ;;
	bench/network/network.kopt)
		rm -rf "$tmp/net" && cp -r "$(dirname "$f")" "$tmp/net" && mkdir -p "$tmp/net/s/level3"
		printf 'import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x\ndef get_inputs():\n    return [torch.randn(4)]\ndef get_init_inputs():\n    return []\n' >"$tmp/net/s/level3/1_Net.py"
		ok "$rel plans its level-3 sample (BEYOND)" 'plan "$tmp/net" network.kopt BEYOND=s && grep -q "capture l3.*1_Net" "$tmp/out"' ;;
	bench/network/resnet101.kopt)
		# run.sh's layout: examples/models/resnet50.py two folders up
		rm -rf "$tmp/r" && mkdir -p "$tmp/r/bench" "$tmp/r/examples/models" && cp -r "$(dirname "$f")" "$tmp/r/bench/network" && cp "$top/examples/models/resnet50.py" "$tmp/r/examples/models/"
		ok "$rel plans both captures of resnet101" '(cd "$tmp/r/bench/network" && "$K" -f resnet101.kopt -n >"$tmp/out" 2>"$tmp/err") && grep -q "capture resnet101/default" "$tmp/out" && grep -q "capture resnet101/autotune" "$tmp/out"' ;;
	*)
		ok "$rel plans from its folder" 'plan "$(dirname "$f")" "$(basename "$f")"' ;;
	esac
done
echo "1..$n"
exit $bad
