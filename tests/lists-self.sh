#!/bin/sh
# tests/lists-self.sh: tests/lists.py fails when one copy of a fact
# changes alone. In a copy of the sources, each case below changes one
# copy (the sed must apply, or the case fails), runs that fact's check and
# wants it to fail; the copy is put back after. Prints TAP.
set -eu
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-lists-self-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for d in agents rules gates lang runtime man tests/fixtures/kernels; do
	mkdir -p "$tmp/$(dirname "$d")"
	cp -R "$top_srcdir/$d" "$tmp/$d"
done
chmod -R u+w "$tmp" # a source tree may be read-only (make distcheck)
n=0
# mutate FACT FILE SED DESCRIPTION: FACT's check fails once SED changed FILE
mutate() {
	n=$((n + 1))
	cp "$tmp/$2" "$tmp/$2.orig"
	sed "$3" "$tmp/$2.orig" > "$tmp/$2"
	if cmp -s "$tmp/$2" "$tmp/$2.orig"; then
		echo "not ok $n - $1: $4: the change did not apply to $2"
	elif out=$(python3 "$top_srcdir/tests/lists.py" --src "$tmp" --dump "$top_builddir/tests/unit/lists_dump" "$1"); then
		echo "not ok $n - $1: $4: still passes"
	else
		echo "ok $n - $1: $4: fails"
		echo "$out" | grep '^#' || true
	fi
	mv "$tmp/$2.orig" "$tmp/$2"
}
out=$(python3 "$top_srcdir/tests/lists.py" --src "$tmp" --dump "$top_builddir/tests/unit/lists_dump") && rc=0 || rc=$?
n=$((n + 1))
if [ $rc -eq 0 ]; then echo "ok $n - the copy of the sources passes"; else echo "not ok $n - the copy of the sources passes"; echo "$out" | sed 's/^/# /'; fi

mutate transforms runtime/python/kopt/transforms.py 's/^VERSION = 1$/VERSION = 2/' \
	"the transforms' version moved in Python alone"
mutate transforms agents/builtin/transform.c 's/add(out, "onepass=sumsq"/add(out, "onepass=sumsq2"/' \
	"the analyst asking for a transform Python does not name"
mutate transforms runtime/python/kopt/transforms.py 's/VALUES = {"onepass": ("welford", "sumsq"), "rloop": ("reverse",)}/VALUES = {"onepass": ("welford",), "rloop": ("reverse",)}/' \
	"a transform's value dropped in Python alone"
mutate products-side runtime/python/kopt/products.py 's/^MIN_SIDE = 128$/MIN_SIDE = 64/' \
	"the tf32x3 pass's least side moved in Python alone"
mutate products-side rules/space_pick.c 's/^#define GEMM32_SIDE 128$/#define GEMM32_SIDE 256/' \
	"the profile's count of large products moved in C alone"
mutate launch-keys runtime/python/kopt/screen.py 's/^BLOCK_KEYS = ("XBLOCK", "YBLOCK",/BLOCK_KEYS = ("YBLOCK", "XBLOCK",/' \
	"screen.py's blocks in another order"
mutate launch-keys agents/features.h 's/X("R1_BLOCK", 32768, 0, 1)/X("R1_BLOCK", 32768, 0, 0)/' \
	"a block the screen moves left out of the C list's"
mutate launch-keys agents/features.h 's/X("YBLOCK", 1024, 1, 1)/X("YBLOCK", 2048, 1, 1)/' \
	"a block's largest raised in C alone (the agents would propose what gate 1 refuses)"
mutate launch-keys runtime/python/kopt/static_config.py 's/"XBLOCK": 4096, "YBLOCK": 1024/"XBLOCK": 8192, "YBLOCK": 1024/' \
	"a block's largest raised in gate 1 alone"
mutate graph-facts runtime/python/kopt/facts.py 's/"sliced_products")/"sliced_products", "gathers")/' \
	"a fact counted in Python alone"
mutate graph-facts rules/summary.h 's/X(attns, "attentions", "attn", 0)/X(attns, "attention", "attn", 0)/' \
	"a fact renamed in C alone"
mutate graph-facts rules/summary.h 's/X(slices, "sliced_products", "slice", 0)/X(slices, "sliced_products", "attn", 0)/' \
	"a summary key written twice"
mutate rewrite-names runtime/python/kopt/rewrites.py 's/"flash_attention", "tf32x3_products")/"flash_attention", "tf32x3_products", "gather_as_index")/' \
	"a rewrite in Python alone"
mutate rewrite-names rules/space.c 's/{ "kopt.sliced_product", NEED_SLICE },//' \
	"a rewrite left out of space.c's map"
mutate rewrite-names rules/space.c 's/{ "kopt.depthwise_as_pointwise" }, { "true" } }/{ "kopt.depthwise_as_pointwise_2d" }, { "true" } }/' \
	"a variant of space.c setting a rewrite no one knows"
mutate rewrite-names man/kopt.5 '/^\.B kopt\.sliced_product$/d' \
	"a rewrite left out of kopt(5)'s options"
mutate rewrite-names man/kopt.5 's/^\.B kopt.pool_as_pointwise = true$/.B kopt.pool_as_stencil = true/' \
	"kopt(5) naming a rewrite no one knows"
mutate max-autotune rules/space_pick.c 's/rule_max_autotune(m->variants\[j\].mode)/m->variants[j].mode \&\& strstr(m->variants[j].mode, "max-autotune")/' \
	"a rule telling the baseline by its mode itself"
mutate perf-quartile runtime/python/kopt/gate_rules.py 's/    if _quantile(r, 0.25) >= gamma and/    if _quantile(r, 0.5) >= gamma and/' \
	"the early stop passing on the median"
mutate perf-quartile runtime/python/kopt/gate_rules.py 's/    lo = int(math.floor(pos))/    lo = int(math.ceil(pos))/' \
	"the quartiles taken another way"
mutate tolerance runtime/python/kopt/gate_rules.py 's/"bfloat16", "bf16")/"bfloat16")/' \
	"a half type's name left out in Python"
mutate persist runtime/python/kopt/knobs.py 's/^PERSIST_MAX = 16384/PERSIST_MAX = 8192/' \
	"the row bound changed in Python alone"
mutate persist agents/builtin/persist.h 's/^#define PERSIST_MAX_RBLOCK 16384/#define PERSIST_MAX_RBLOCK 32768/' \
	"the row bound changed in C alone"
mutate persist runtime/python/kopt/knobs.py 's/    out = lines\[:first\] + \[f"    if R0_BLOCK >= {numel}:"\]/    out = lines[:first] + [f"    if R0_BLOCK > {numel}:"]/' \
	"the screen's transform writing another branch"
mutate graph-code runtime/python/kopt/rewrite_slice.py 's/^from \. import rewrite_graph as G$/from . import rewrite_graph as G\nfrom . import kernels/' \
	"a rewrite importing a module the graph code leaves out"
mutate graph-code runtime/python/kopt/rewrites.py 's/"rewrite_slice.py",//' \
	"a rewrite's file left out of FILES"
mutate graphs-modes runtime/python/kopt/graphcopy.py 's/^GRAPH_MODES = ("reduce-overhead", "max-autotune")/GRAPH_MODES = ("reduce-overhead",)/' \
	"a mode with CUDA graphs left out in Python alone"
mutate max-autotune rules/space.c 's/bool on = rule_mode_graphs(v->mode);/bool on = v->mode \&\& strcmp(v->mode, "max-autotune") == 0;/' \
	"a rule telling CUDA graphs by the mode itself"
echo "1..$n"
