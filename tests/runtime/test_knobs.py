"""tests/runtime/test_knobs.py: kopt.knobs, the source knobs screening
searches, on Inductor kernels recorded with torch 2.11 and triton 3.6
(tests/fixtures/kernels/: looped reductions from the example models; a
pointwise kernel and a persistent reduction copied from
../shared/reference/inductor-output-sample.py; a GEMM template written by
hand in Inductor's shape, tem_mm.py, which says so). Each edit's exact text, that
gate 1 (kopt.static_gate) passes it against Inductor's kernel, that an edit
that does not apply says so, and that the deployment (kopt.deploy) loads the
same text the screen made. Standard library only: no torch. Prints TAP."""

import os
import sys
import warnings

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt import kernels as K  # noqa: E402
from kopt import knobs as N  # noqa: E402
from kopt import static_gate as G  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

FIX = os.path.join(top, "tests", "fixtures", "kernels")




def fixture(name):
    with open(os.path.join(FIX, name)) as f:
        return f.read()


def changed(a, b):
    """The lines of a that b changes, and what it changes them to."""
    la, lb = a.splitlines(), b.splitlines()
    if len(la) != len(lb):
        return None
    return [(x, y) for x, y in zip(la, lb) if x != y]


ln = fixture("layernorm.py")
poi = fixture("poi_conv_relu.py")
per = fixture("per_gelu_layernorm.py")
rms = fixture("rmsnorm.py")

# names
ok(N.parse("") == {} and N.name({}) == "", "the empty edit: no knobs")
ok(N.name(N.parse("rstages=2+evict1=none+cache0=cg+evict0=first")) == "evict0=first+evict1=none+cache0=cg+rstages=2",
   "an edit's name is canonical: evictions, cache modifiers, then loop knobs, by load")
ok(N.kinds("evict2=none+rstages=3+evict0=first") == ["evict", "rstages"], "kinds: each kind once, in order")
for bad in ("evict0=sometimes", "cache1=wb", "rstages=9", "runroll=3", "unroll=2", "evict0=first+evict0=last"):
    try:
        N.parse(bad)
        ok(False, f"parse rejects {bad}")
    except N.KnobError:
        ok(True, f"parse rejects {bad}")

# the space
sp = N.space(ln)
ok([k for k in sp if k.startswith("evict")] == ["evict0", "evict1", "evict2", "evict3"],
   "layernorm: one eviction knob per tl.load (four loads)", sp)
ok(sp["evict0"][0] == "last" and sp["evict1"][0] == "first", "the space starts from Inductor's own policies",
   (sp["evict0"], sp["evict1"]))
ok(sp["rstages"] == [0, 1, 2, 3, 4] and sp["runroll"] == [0, 1, 2, 4], "a looped reduction has the loop knobs")
ok("rstages" not in N.space(poi) and "rstages" not in N.space(per), "pointwise and persistent kernels have no row loop")
ok(N.space(poi)["evict1"][0] == "last" and len([k for k in N.space(poi) if k.startswith("cache")]) == 2,
   "pointwise: its two loads' knobs")

# exact edits
d = changed(ln, N.apply(ln, "evict0=first"))
ok(d == [("        tmp0 = tl.load(in_ptr0 + (r0_1 + 4096*x0), r0_mask, eviction_policy='evict_last', other=0.0)",
          "        tmp0 = tl.load(in_ptr0 + (r0_1 + 4096*x0), r0_mask, eviction_policy='evict_first', other=0.0)")],
   "evict0=first: the first load's policy and nothing else", d)
d = changed(ln, N.apply(ln, "evict3=none"))
ok(d == [("        tmp18 = tl.load(in_ptr2 + (r0_1), r0_mask, eviction_policy='evict_last', other=0.0)",
          "        tmp18 = tl.load(in_ptr2 + (r0_1), r0_mask, other=0.0)")], "evict3=none: the hint dropped", d)
d = changed(rms, N.apply(rms, "cache0=cv"))
ok(d == [("        tmp0 = tl.load(in_ptr0 + (r0_1 + 4096*x0), r0_mask, eviction_policy='evict_last', other=0.0).to(tl.float32)",
          "        tmp0 = tl.load(in_ptr0 + (r0_1 + 4096*x0), r0_mask, eviction_policy='evict_last', other=0.0, "
          "cache_modifier='.cv').to(tl.float32)")],
   "cache0=cv: the modifier added inside the call, the cast after it kept", d)
d = changed(poi, N.apply(poi, "evict1=none+cache1=ca"))
ok(d == [("    tmp1 = tl.load(in_ptr1 + (y0), None, eviction_policy='evict_last')",
          "    tmp1 = tl.load(in_ptr1 + (y0), None, cache_modifier='.ca')")],
   "pointwise: a load without a mask keeps None", d)
# .ca/.cg with an eviction policy fails in ptxas (H200, Triton 3.6): never made, never proposed
for bad in ("cache0=cg", "evict1=first+cache1=ca"):
    try:
        N.apply(rms if bad == "cache0=cg" else poi, bad)
        ok(False, f"apply refuses {bad} (an L1 cache modifier beside an eviction policy)")
    except N.KnobError as e:
        ok("does not compile" in str(e), f"apply refuses {bad} (an L1 cache modifier beside an eviction policy)", e)
def proposed(src, edit):
    sp = N.space(src)
    own = {k: v[0] for k, v in sp.items()}
    return [(e, N.allowed({**own, **N.parse(e)})) for e in N.neighbours(edit, sp)]


combos = proposed(ln, "") + proposed(ln, "evict0=none") + proposed(poi, "cache1=cg") + proposed(poi, "")
ok(all(good for _, good in combos) and "cache0=cg" not in [e for e, _ in proposed(ln, "")] and
   "evict0=none+cache0=cg" in [e for e, _ in proposed(ln, "evict0=none")],
   "the screen's moves never pair .ca/.cg with an eviction policy, and offer them once the policy is dropped",
   combos[:12])
d = changed(ln, N.apply(ln, "rstages=3+runroll=2"))
ok(d == [("    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):",
          "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK, num_stages=3, loop_unroll_factor=2):")] * 2,
   "rstages=3+runroll=2: both row loops pipelined and unrolled", d)
old = ln.replace("tl.range(0, r0_numel, R0_BLOCK)", "range(0, r0_numel, R0_BLOCK)")
d = changed(old, N.apply(old, "rstages=2"))
ok(d and all(y.endswith("tl.range(0, r0_numel, R0_BLOCK, num_stages=2):") for _, y in d) and len(d) == 2,
   "a plain range() loop becomes tl.range with the keyword", d)
ok(N.apply(ln, "") == ln, "the empty edit is Inductor's source")
ok(N.apply(N.apply(ln, "evict0=first"), "evict0=last") == ln, "an edit undone gives the source back")
for src, edit, what in ((poi, "rstages=2", "a loop knob on a kernel without a row loop"),
                        (poi, "evict2=first", "a load the kernel does not have"),
                        (N.apply(ln, "rstages=2"), "runroll=2", "a row loop that sets its own keywords")):
    try:
        N.apply(src, edit)
        ok(False, f"apply refuses {what}")
    except N.KnobError:
        ok(True, f"apply refuses {what}")

# persist=on: the coder's persistent edit (persist.c), as a knob
ok(sp.get("persist") == ["off", "on"] and "persist" in N.space(fixture("softmax.py")),
   "persist is a knob of the looped reductions that read their row twice")
ok("persist" not in N.space(fixture("row_sum.py")) and "persist" not in N.space(per) and "persist" not in N.space(poi),
   "... not of a reduction reading its row once, a persistent one or a pointwise kernel")
pl = N.apply(ln, "persist=on").split("\n")
ok(pl[33:35] == ["    if R0_BLOCK >= 4096:", "        r0_offset = 0"] and "        tmp8 = tmp0" in pl and
   "    else:" in pl and pl[pl.index("    else:") + 1] == "        for r0_offset in tl.range(0, r0_numel, R0_BLOCK):",
   "persist=on: the row read once under R0_BLOCK >= 4096, the second load a copy, Inductor's loops under else",
   "\n".join(pl[30:40]))
both = N.apply(ln, "evict0=first+rstages=2+persist=on")
ok(both.count("tl.range(0, r0_numel, R0_BLOCK, num_stages=2):") == 2 and "        tmp8 = tmp0" in both and
   both.count("eviction_policy='evict_first', other=0.0)\n        tmp1 = ") == 1,
   "persist with other knobs: the loads' and loops' knobs in both branches, the copy kept")
ok(N.persist_config(ln, {"XBLOCK": 8, "R0_BLOCK": 512, "num_warps": 4, "num_stages": 2})
   == {"XBLOCK": 1, "R0_BLOCK": 4096, "num_warps": 8, "num_stages": 1}, "persist_config: one row per program, its block")
ok(N.turns_on_persist("evict0=first", "evict0=first+persist=on") and not N.turns_on_persist("persist=on", "persist=on+rstages=2"),
   "turns_on_persist: only the move that turns it on")

# a GEMM template's tile
tem = fixture("tem_mm.py")
ts = N.space(tem)
ok({k: ts[k][0] for k in N.TILE} == {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8},
   "template: the tile knobs start from its constexprs", ts)
ok(N.apply(tem, "BLOCK_M=64+GROUP_M=8") == tem, "template: its own tile is its own source")
d = changed(tem, N.apply(tem, "GROUP_M=4"))
ok(d == [("    GROUP_M : tl.constexpr = 8", "    GROUP_M : tl.constexpr = 4")], "GROUP_M=4: one constexpr, no loop", d)
d = changed(tem, N.apply(tem, "BLOCK_K=64"))
ok(d == [("    BLOCK_K : tl.constexpr = 32", "    BLOCK_K : tl.constexpr = 64")], "BLOCK_K=64: one constexpr (K = 256)", d)
tl_ = N.apply(tem, "BLOCK_M=128+BLOCK_N=32").split("\n")
src_ = tem.split("\n")
at = tl_.index("    grid_n = (N + BLOCK_N - 1) // BLOCK_N")
ok("    pid = tl.program_id(0)" not in tl_ and
   tl_[at + 1] == "    for pid in tl.range(tl.program_id(0), grid_m * grid_n, tl.num_programs(0)):" and
   "    BLOCK_M : tl.constexpr = 128" in tl_ and "    BLOCK_N : tl.constexpr = 32" in tl_ and
   "        tl.store(out_ptr0 + (tl.broadcast_to(xindex, acc.shape)), tmp1, mask)" in tl_ and
   len(tl_) == len(src_) + 1 - 1 and "            acc += tl.dot(a, b, allow_tf32=ALLOW_TF32, out_dtype=ACC_TYPE)" in tl_,
   "BLOCK_M/BLOCK_N moved: each program loops over the tiles from its id by the grid's size, the body inside",
   "\n".join(tl_[at - 2:at + 4]))
ok(N.kinds("BLOCK_M=128+GROUP_M=4+evict0=first") == ["evict", "tile"], "template knobs are of kind tile")
odd = tem.replace("    K = 256\n", "    K = 96\n")
ok("BLOCK_K" in N.space(odd) and 64 not in N.space(odd)["BLOCK_K"] and 16 in N.space(odd)["BLOCK_K"],
   "BLOCK_K: only divisors of a static K under EVEN_K", N.space(odd).get("BLOCK_K"))
try:
    N.apply(odd, "BLOCK_K=64")
    ok(False, "BLOCK_K=64 refused where K = 96")
except N.KnobError:
    ok(True, "BLOCK_K=64 refused where K = 96")
ok(not N.template_tile(ln) and not N.template_tile(tem.replace("    pid = tl.program_id(0)\n", "")),
   "no tile knobs on a reduction, nor on a template without the one-dimensional grid")

# grid=G: a persistent grid
ok("grid" not in N.space(ln), "grid: not offered without the device's SM count")
gs = N.space(ln, 132)
ok(gs.get("grid") == [0, 132, 264, 528, 1056], "grid: Inductor's grid, then 1, 2, 4 and 8 times the SMs", gs.get("grid"))
g = N.apply(ln, "grid=132").split("\n")
src_ = ln.split("\n")
at = src_.index("    xoffset = tl.program_id(0) * XBLOCK")
ok(g[:at] == src_[:at] and g[at:at + 4] == [
    "    kopt_pid = tl.program_id(0)",
    "    if kopt_pid < 132:",
    "        for kopt_tile in range(kopt_pid, tl.cdiv(xnumel, XBLOCK), 132):",
    "            xoffset = kopt_tile * XBLOCK"] and
   g[at + 4:] == ["" if not x.strip() else "        " + x for x in src_[at + 1:]],
   "grid=132: the first 132 programs loop over the tiles, the body from xoffset on inside, as it was",
   "\n".join(g[at - 1:at + 6]))
passed, why = G.check(N.apply(ln, "grid=132"), ln)
ok(passed, "grid=132: gate 1 passes it", why)
both = N.apply(ln, "evict0=first+persist=on+grid=264")
passed, why = G.check(both, ln)
ok(passed and "    if kopt_pid < 264:" in both and "            if R0_BLOCK >= 4096:" in both and
   both.count("eviction_policy='evict_first', other=0.0)") >= 2,
   "grid with persist and an eviction hint: each in place, the grid's loop around the rest, gate 1 passes", why)
wide = ln.replace("tl.program_id(0) * XBLOCK", "tl.program_id(0).to(tl.int64) * XBLOCK")
ok("            xoffset = kopt_tile.to(tl.int64) * XBLOCK" in N.apply(wide, "grid=132"),
   "grid: a 64-bit xoffset stays 64-bit")
pg = N.apply(per, "grid=132")
ok(G.check(pg, per)[0] and "    if kopt_pid < 132:" in pg, "grid: on a persistent reduction too",
   G.check(pg, per)[1])
small = ln.replace("    xnumel = 32768\n", "    xnumel = 300\n")
ok(N.space(small, 132).get("grid") == [0, 132, 264], "grid: only counts under a static xnumel", N.space(small, 132).get("grid"))
for what, src, edit in (("a two-dimensional grid", poi, "grid=132"), ("a GEMM template", tem, "grid=132")):
    try:
        N.apply(src, edit)
        ok(False, f"grid refused on {what}")
    except N.KnobError as e:
        ok("grid" not in N.space(src, 132), f"grid refused on {what}, and not in its space", e)
for bad in ("grid=0", "grid=x", "grid=70000"):
    try:
        N.parse(bad)
        ok(False, f"parse rejects {bad}")
    except N.KnobError:
        ok(True, f"parse rejects {bad}")
nbg = N.neighbours("grid=264", gs)
ok("grid=132" in nbg and "grid=528" in nbg and "grid=1056" not in nbg and "" not in nbg and
   "grid=132" in N.neighbours("", gs) and "grid=264" not in N.neighbours("", gs),
   "grid moves one step along its ladder", nbg)
ok(N.kinds("evict0=first+grid=132") == ["evict", "grid"] and
   N.name(N.parse("grid=132+persist=on+evict1=none")) == "evict1=none+persist=on+grid=132",
   "grid: its kind, and its place in an edit's name")

# moves
nb = N.neighbours("", sp)
ok("evict0=first" in nb and "evict0=none" in nb and "cache3=cv" in nb and "rstages=1" in nb and "runroll=1" in nb
   and "rstages=2" not in nb, "moves from Inductor's source: each load's other values, the loops one step", nb)
nb = N.neighbours("evict0=first+rstages=2", sp)
ok("rstages=2" in nb and "evict0=first+rstages=1" in nb and "evict0=first+rstages=3" in nb
   and "evict0=first+evict1=last+rstages=2" in nb, "moves from an edit: one knob at a time, back to Inductor's too", nb)

# gate 1 passes every edit one move away, and a few together
for fname in ("softmax.py", "layernorm.py", "rmsnorm.py", "row_sum.py", "cross_entropy.py", "poi_conv_relu.py",
              "per_gelu_layernorm.py", "tem_mm.py"):
    src = fixture(fname)
    s = N.space(src)
    edits = N.neighbours("", s)
    combo = {k: v[-1] for k, v in s.items()}
    edits.append(N.edit_of(combo, s))
    bad = []
    for e in edits:
        ok_, why = G.check(N.apply(src, e), src)
        if not ok_:
            bad.append(f"{e}: {why}")
    ok(not bad and len(edits) > 3, f"{fname}: gate 1 passes all {len(edits)} edits (each knob moved, and all at once)",
       "\n".join(bad))

# the deployment loads the screen's text
from kopt import deploy as D  # noqa: E402

decl = K.KernelDecl("v", "triton_red_fused_native_layer_norm_0", ln, "reduction")
text = N.apply(ln, "evict0=first+rstages=2")
ok(D.edited_source(decl, {"source": text, "edit": "evict0=first+rstages=2"}) == text,
   "deploy: the table's source when the edit gives the same text")
ok(D.edited_source(decl, {"edit": "evict0=first+rstages=2"}) == text, "deploy: the edit applied where the table has no source")
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    r = D.edited_source(decl, {"source": text, "edit": "evict0=none+rstages=2"})
ok(r is False and w and "another text" in str(w[0].message), "deploy: a source the edit does not give is not loaded",
   [str(x.message) for x in w])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    r = D.edited_source(decl, {"edit": "evict9=first"})
ok(r is False and w and "do not apply" in str(w[0].message), "deploy: an edit that does not apply here is not loaded")
ok(D.edited_source(decl, {"config": {"XBLOCK": 1}}) == ln, "deploy: a config alone loads Inductor's source")

# the screen's moves (kopt.screen needs torch: a stand-in module, a TEST
# DOUBLE with nothing in it, lets it import; no move measures anything)
import types  # noqa: E402

sys.modules.setdefault("torch", types.ModuleType("torch"))
from kopt import screen as SC  # noqa: E402


s = object.__new__(SC.Screen)
s.decl, s.own = decl, {}
s.l = types.SimpleNamespace(numel={"xnumel": 64, "r0_numel": 4096})
s.space, s.maxnreg = N.space(ln), True
own = {"XBLOCK": 1, "R0_BLOCK": 2048, "num_warps": 16, "num_stages": 1}
mv = s.moves(own, "")
ok((own, "evict0=first") in mv and (own, "rstages=1") in mv, "screen: knob moves on the same config")
ok(({"XBLOCK": 1, "R0_BLOCK": 4096, "num_warps": 8, "num_stages": 1}, "persist=on") in mv,
   "screen: persist=on moves the config to the one it acts under")
ok([c["maxnreg"] for c, e in mv if "maxnreg" in c and c["num_warps"] == 16] == [128],
   "screen: maxnreg's first step under 16 warps, the register file's share (128)", [c for c, e in mv if "maxnreg" in c])
mv8 = s.moves({**own, "num_warps": 8}, "")
ok([c["maxnreg"] for c, e in mv8 if "maxnreg" in c and c["num_warps"] == 8] == [255], "... under 8 warps, 255")
mvr = s.moves({**own, "maxnreg": 128}, "")
steps = [c.get("maxnreg") for c, e in mvr if not e and {k: v for k, v in c.items() if k != "maxnreg"} == own]
ok(steps == [96], "... from 128, one step down only (192 is over the register file)", steps)
ok(all(s.valid(c, e) for c, e in mv) and all(c["R0_BLOCK"] <= 4096 for c, e in mv),
   "screen: every move valid, no block beyond the row")
s.space = {}
ok(all(not e for c, e in s.moves(own, "")), "screen: without knobs, config moves only")
# a long row's reduction, whose own R0_BLOCK is over the screen's block
# bound (Inductor's 16384 on rows of 16384): its moves down are in bounds
s.l = types.SimpleNamespace(numel={"xnumel": 8192, "r0_numel": 16384})
big = {"XBLOCK": 1, "R0_BLOCK": 16384, "num_warps": 32, "num_stages": 1}
s.own = big
bmv = [c for c, e in s.moves(big, "")]
ok({**big, "R0_BLOCK": 8192} in bmv and {**big, "num_warps": 16} in bmv and
   {**big, "R0_BLOCK": 8192, "num_warps": 16} in bmv and all(c["R0_BLOCK"] <= 16384 for c in bmv),
   "screen: a kernel whose own R0_BLOCK is over the bound moves from it: blocks down, warps down, both", bmv)
s.own = {}
ok(not [c for c, e in s.moves(big, "")], "... (without its own config as the bound, no move at all: the bug "
   "that left such a screen two points)")
# no block past Inductor's largest for its axis (gate 1 refuses such a
# config: kopt.static_config), even where the axis's length is longer
s.l = types.SimpleNamespace(numel={"xnumel": 1 << 20, "ynumel": 1 << 20, "r0_numel": 64})
ok(s.valid({"XBLOCK": 64, "YBLOCK": 1024}) and not s.valid({"XBLOCK": 32, "YBLOCK": 2048}) and
   s.valid({"XBLOCK": 4096, "YBLOCK": 1}) and not s.valid({"XBLOCK": 8192, "YBLOCK": 1}),
   "screen: XBLOCK up to 4096 and YBLOCK up to 1024, Inductor's largest")
s.decl = K.KernelDecl("v", "triton_tem_fused_addmm_0", tem, "template")
s.space, s.l = N.space(tem), types.SimpleNamespace(numel={})
tmv = s.moves({"num_warps": 4, "num_stages": 3}, "")
ok(({"num_warps": 4, "num_stages": 4}, "") in tmv and ({"num_warps": 8, "num_stages": 3}, "") in tmv and
   ({"num_warps": 4, "num_stages": 3}, "BLOCK_M=128") in tmv,
   "screen: a template's stages and warps move, and its tile", tmv)

# a group's change on another member (rules/groups.c, verify.stitch): the
# searched kernel's knobs applied to the member's own text
member = ln.replace("triton_red_fused_native_layer_norm_0", "triton_red_fused_native_layer_norm_7")
edit = "evict0=first"
ok(N.candidate_text(member, {"source": None, "edit": edit, "config": {"XBLOCK": 1}}) == N.apply(member, edit),
   "a member's text: the group's knobs on its own source")
ok("native_layer_norm_7" in N.candidate_text(member, {"edit": edit}), "and it keeps its own name")
ok(N.candidate_text(member, {"source": None, "config": {"XBLOCK": 1}}) == member,
   "a launch config alone: the member's own text")
ok(N.candidate_text(member, {"source": "x = 1\n", "edit": edit}) == "x = 1\n", "a candidate's own source stands")
try:
    N.candidate_text(poi, {"edit": "rstages=2"})
    ok(False, "knobs that do not apply to a member raise")
except N.KnobError:
    ok(True, "knobs that do not apply to a member raise KnobError (the stitch leaves it off)")

done()
