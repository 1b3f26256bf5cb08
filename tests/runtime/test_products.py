"""tests/runtime/test_products.py: the split-precision products rewrite
(kopt.tf32x3_products: rewrite_products.py's pass, products.py's operator)
on the CPU, with torch (any version with make_fx). A float32 product of
products.MIN_SIDE rows and columns or more (mm, addmm with a bias that
broadcasts, bmm, a linear layer as torch traces it) becomes kopt::products;
the graph computes what it computed (the operator's CPU form is torch's
product); a smaller product, another dtype, an addmm with beta or alpha
other than 1 stay. The operator's shapes (its Meta form) and its
registration beside kopt::attention's in one namespace. Prints TAP."""
import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

import torch  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

from kopt import attention, products, rewrite_products, rewrites  # noqa: E402

aten = torch.ops.aten
S = products.MIN_SIDE
torch.manual_seed(0)


def split(fn, *args):
    g = make_fx(fn, tracing_mode="fake")(*args)
    n = rewrite_products.split_products(g.graph)
    g.recompile()
    calls = [x for x in g.graph.nodes if x.op == "call_function"]
    left = sorted({str(x.target) for x in calls})
    metas = all("val" in x.meta for x in calls)
    return n, left, metas, g(*args), fn(*args)


x, w, b = torch.randn(S, 48), torch.randn(S + 8, 48), torch.randn(S + 8)
cases = [
    ("a product of MIN_SIDE rows by MIN_SIDE + 8 columns", 1, lambda x, w, b: x @ w.t(), (x, w, b)),
    ("a linear layer (addmm with its bias over the features)", 1,
     lambda x, w, b: torch.nn.functional.linear(x, w, b), (x, w, b)),
    ("addmm with a bias of its own per row and column", 1,
     lambda x, w, b: torch.addmm(b.expand(S, S + 8) * 2, x, w.t()), (x, w, b)),
    ("addmm with a bias per row ([M, 1])", 1,
     lambda x, w, b: torch.addmm(x[:, :1], x, w.t()), (x, w, b)),
    ("a batched product (bmm), its right operand transposed in place", 1,
     lambda x, w, b: torch.bmm(x.view(2, S // 2, 48).repeat(1, 2, 1), w.view(2, (S + 8) // 2, 48).transpose(1, 2)
                               .repeat(1, 1, 2)), (x, w, b)),
    ("two products in one graph, one of them small", 1,
     lambda x, w, b: (x @ w.t()).sum() + (x[:10] @ w.t()).sum(), (x, w, b)),
    ("MIN_SIDE + 8 rows by MIN_SIDE columns", 1, lambda x, w, b: w @ x.t(), (x, w, b)),
    ("rows one fewer than MIN_SIDE: stays", 0, lambda x, w, b: x[1:] @ w.t(), (x, w, b)),
    ("columns one fewer than MIN_SIDE: stays", 0, lambda x, w, b: x @ w[:S - 1].t(), (x, w, b)),
    ("a small batch's linear layer (10 rows): stays", 0,
     lambda x, w, b: torch.nn.functional.linear(x[:10], w, b), (x, w, b)),
    ("float64: stays (the kernel is float32's)", 0, lambda x, w, b: x @ w.t(), (x.double(), w.double(), b)),
    ("addmm with beta 0.5: stays", 0, lambda x, w, b: torch.addmm(b, x, w.t(), beta=0.5), (x, w, b)),
    ("addmm with alpha 2: stays", 0, lambda x, w, b: torch.addmm(b, x, w.t(), alpha=2), (x, w, b)),
]
for what, want, fn, args in cases:
    try:
        n, left, metas, got, ref = split(fn, *args)
        same = got.shape == ref.shape and torch.allclose(got, ref, rtol=1e-5, atol=1e-4)
        has = "kopt.products.default" in left
        gone = not any(op in left for op in ("aten.mm.default", "aten.addmm.default", "aten.bmm.default"))
        ok(n == want and same and metas and has == (want > 0) and (want == 0 or gone or "small" in what),
           f"tf32x3 products: {what}", f"replaced {n}, ops {left}, same {same}, metas {metas}")
    except Exception as e:
        ok(False, f"tf32x3 products: {what}", f"{type(e).__name__}: {e}")

# a product node without its fake value (a graph traced without them):
# left as it is, not an error
g = make_fx(lambda x, w: x @ w.t(), tracing_mode="fake")(x, w)
for node in g.graph.nodes:
    if node.op == "call_function" and "mm" in str(node.target):
        del node.meta["val"]
try:
    n = rewrite_products.split_products(g.graph)
    ok(n == 0, "a product node without its fake value: left as it is", f"replaced {n}")
except Exception as e:
    ok(False, "a product node without its fake value: left as it is", f"{type(e).__name__}: {e}")

# the operator itself: its CPU form is torch's product and bias; its Meta
# form gives the shape of its CUDA one (two- and three-dimensional, a batch
# of one broadcast as a 1x1 convolution's weight is)
op = products.op()
a2, b2, bias = torch.randn(5, 7), torch.randn(7, 3), torch.randn(3)
ok(torch.allclose(op(a2, b2, bias), a2 @ b2 + bias) and torch.allclose(op(a2, b2), a2 @ b2),
   "kopt::products on the CPU: a @ b + bias, and a @ b without one")


def meta_shape(*args):
    """the output shape the operator's Meta form gives, as make_fx's fake
    tensors see it"""
    g = make_fx(lambda *xs: op(*xs), tracing_mode="fake")(*args)
    node = next(x for x in g.graph.nodes if x.op == "call_function")
    return list(node.meta["val"].shape)


wb = torch.randn(1, 4, 7).expand(3, 4, 7)
shapes = [meta_shape(wb, torch.randn(3, 7, 9)), meta_shape(torch.randn(1, 4, 7), torch.randn(3, 7, 9)),
          meta_shape(a2, b2, bias)]
ok(shapes == [[3, 4, 9], [3, 4, 9], [5, 3]],
   "kopt::products' Meta form: [B, M, N] from [B or 1, M, K] and [B, K, N]; [M, N] from two dimensions", shapes)
# both operators in one process, either registered first: one namespace
attention.register()
products.register()
ok(hasattr(torch.ops.kopt, "attention") and hasattr(torch.ops.kopt, "products"),
   "kopt::attention and kopt::products registered side by side in namespace kopt")
# the rewrite by its variant option: kopt.tf32x3_products is known, and
# its pass runs as Inductor's post-grad pass while a compile is inside applied()
inductor, own = rewrites.split({"kopt.tf32x3_products": True, "max_autotune": True})
ok(own == {"tf32x3_products": True} and inductor == {"max_autotune": True} and
   rewrites.GRAPH_PASSES["tf32x3_products"] is rewrite_products.split_products,
   "the variant option kopt.tf32x3_products turns the pass on", (inductor, own))
done()
