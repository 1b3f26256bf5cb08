"""kopt: the runtime side of koptmake.

The GPU worker (kopt-worker) embeds Python and imports kopt.worker; users
import kopt to run the optimized kernels that koptmake found, in one line:

    torch.compile(model, backend=kopt.backend("kopt-out/mymodel"))
"""

__version__ = "0.2.0"


def backend(outdir: str, **options):
    """A torch.compile backend that swaps in koptmake's optimized kernels."""
    from .deploy import make_backend

    return make_backend(outdir, **options)
