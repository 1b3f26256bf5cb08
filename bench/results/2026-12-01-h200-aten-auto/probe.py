# probe for issue 17: an ATen-fallback compile whose output differs from eager
import sys, torch, itertools
sys.path.insert(0, sys.argv[1])
from kopt.inductor import aten_fallbacks
torch.manual_seed(0)
N, C, Bt = 4096, 64, 8
def make(kind, pos, big):
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            p = torch.zeros(1, 1, N)
            p[0, 0, pos[0]] = big; p[0, 0, pos[1]] = -big
            self.register_buffer("pattern", p)
        def forward(self, x):
            y = x.permute(0, 2, 1) * 2 + 1 + self.pattern
            if kind == "sum": return y.sum(dim=2)
            if kind == "mean": return y.mean(dim=2)
            if kind == "cumsum": return y.cumsum(dim=2)[..., -1]
            if kind == "sumc":  # producer contiguous, reduce inner
                return (x * 2 + 1 + self.pattern.reshape(1, N, 1)).sum(dim=1)
    return M().cuda()
def err(a, ref):
    d = (a.double() - ref).abs(); return float(d.max()), float((d / ref.abs().clamp_min(1e-3)).max())
x = torch.randn(Bt, N, C, device="cuda")
for kind, pos, big in itertools.product(["sum", "mean", "cumsum", "sumc"], [(0, 1), (0, 2), (0, 4), (0, 64), (0, N // 2), (0, N - 1), (5, 6)], [1e8]):
    m = make(kind, pos, big)
    with torch.no_grad():
        e = m(x)
        m64 = make(kind, pos, big).double(); ref = m64(x.double())
        torch._dynamo.reset()
        d = torch.compile(m)(x)
        torch._dynamo.reset()
        op = {"sum": "aten.sum", "mean": "aten.mean", "cumsum": "aten.cumsum", "sumc": "aten.sum"}[kind]
        with aten_fallbacks([op]):
            a = torch.compile(m)(x)
        torch._dynamo.reset()
    ce = lambda u, v: bool(torch.allclose(u.double(), v.double(), atol=1e-4, rtol=1e-4))
    print(f"{kind:6s} pos={pos} eager-vs64 {err(e, ref)} default-vs64 {err(d, ref)} aten-vs64 {err(a, ref)} "
          f"| aten~eager {ce(a, e)} default~eager {ce(d, e)} eager~64 {ce(e, ref)} aten~64 {ce(a, ref)} default~64 {ce(d, ref)}", flush=True)
