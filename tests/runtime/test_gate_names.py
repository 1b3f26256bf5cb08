"""tests/gpu/gate_reading.py's module_names on stand-in modules: the check
that, on the GPU machine, holds gate 1's path check against the names that
this Triton's tl.math and libdevice and this torch's triton_helpers define.
The modules here are TEST DOUBLES: a device function is a function marked
as Triton marks its builtins (__triton_builtin__), the rest are
functools' and warnings' own objects and functions of this file. Prints
TAP."""
import functools
import os
import sys
import types
import warnings

top = os.environ.get("top_srcdir", ".")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.join(top, "tests", "gpu"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402
from kopt import static_lists as L  # noqa: E402
import gate_reading as G  # noqa: E402


def builtin(fn):
    fn.__triton_builtin__ = True
    return fn


def is_device(obj):
    return getattr(obj, "__triton_builtin__", False)


def module(name, **names):
    m = types.ModuleType(name)
    m.__dict__.update(names)
    return m


@builtin
def exp(x):
    return x


@builtin
def maximum(a, b):
    return a


def host_hook():
    """a host function no list names"""


MATH = "triton.language.math"
HELPERS = L.INDUCTOR_RUNTIME + ".triton_helpers"

math_mod = module(MATH, exp=exp, wraps=functools.wraps, partial=functools.partial, pi=3.14159, _private=host_hook)
found = G.module_names([(MATH, math_mod)], L.path_ok, is_device)
ok(found == {MATH: ([], [])}, "tl.math: a device function allowed, functools' wraps and partial refused "
   "(HOST_NAMES), a number and a private name not looked at", found)

found = G.module_names([(MATH, module(MATH, exp=exp, hook=host_hook))], L.path_ok, is_device)
ok(found == {MATH: (["hook"], [])}, "tl.math: a host function that no list names is reported as allowed", found)

refused_dev = builtin(lambda x: x)
found = G.module_names([(MATH, module(MATH, exp=exp, set_driver_to_cpu=refused_dev))], L.path_ok, is_device)
ok(found == {MATH: ([], ["set_driver_to_cpu"])}, "a device function that gate 1 refuses is reported", found)

lib = module("triton.language.extra.libdevice", exp=exp)
helpers = module(HELPERS, maximum=maximum, libdevice=lib, math=math_mod, warnings=warnings,
                 set_driver_to_gpu=host_hook, set_driver_to_cpu=host_hook, Config=type("Config", (), {}))
found = G.module_names([(HELPERS, helpers)], L.path_ok, is_device,
                       skip=(HELPERS + ".libdevice", HELPERS + ".math"))
ok(found == {HELPERS: ([], [])}, "triton_helpers: its helpers allowed; its driver functions, a class and "
   "the warnings module refused; its libdevice and math skipped as asked", found)

found = G.module_names([(HELPERS, helpers)], L.path_ok, is_device)
ok(found == {HELPERS: (["libdevice", "math"], [])},
   "triton_helpers: the device modules it holds are allowed paths (hence skipped on the GPU)", found)

found = G.module_names([("triton.language.extra.libdevice", module("x", exp=exp, lru_cache=functools.lru_cache)),
                        ("triton.language.extra.cuda.libdevice", module("y", exp=exp, hook=host_hook))],
                       L.path_ok, is_device)
ok(found == {"triton.language.extra.libdevice": ([], []), "triton.language.extra.cuda.libdevice": (["hook"], [])},
   "each module's names judged under its own path", found)

# Triton's own libdevice module holds stubs (`def abs(arg0): ...`) that its
# compiler replaces by the backend's functions of the same names: a stub is
# a device function where the backend has one of its name
STUBS = "triton.language.extra.libdevice"


def stub(name):
    def f(arg0):
        ...
    f.__name__, f.__module__ = name, STUBS
    return f


cuda = module("triton.language.extra.cuda.libdevice", exp=exp)
stubs = module(STUBS, exp=stub("exp"), erfx=stub("erfx"), wraps=functools.wraps)
found = G.module_names([(STUBS, stubs)], L.path_ok, G.stubs_dispatched(is_device, cuda))
ok(found == {STUBS: (["erfx"], [])}, "libdevice's stubs: one the backend defines is a device function, "
   "one it lacks is reported as allowed, functools' wraps still refused", found)
listed = sorted(L.STUB_NAMES)[0]
stubs = module(STUBS, exp=stub("exp"), **{listed: stub(listed)})
found = G.module_names([(STUBS, stubs)], L.path_ok, G.stubs_dispatched(is_device, cuda))
ok(found == {STUBS: ([], [])}, f"libdevice's stubs: {listed} (STUB_NAMES), which the backend lacks, is refused", found)
ok(not L.path_ok(f"{L.INDUCTOR_RUNTIME}.triton_helpers.libdevice.{listed}", set()),
   f"{listed} refused through Inductor's helpers' libdevice too", listed)
ok(L.path_ok(f"{L.INDUCTOR_RUNTIME}.triton_helpers.libdevice.exp", set()), "exp allowed there", "exp")
ok(L.host_note("wraps").startswith(": host-side Python") and L.host_note(listed).startswith(": a stub of")
   and L.host_note("exp") == "", "a refusal's note: host-side Python for HOST_NAMES, a stub for STUB_NAMES, "
   "none for other names", [L.host_note(n) for n in ("wraps", listed, "exp")])
elsewhere = stub("exp")
elsewhere.__module__ = "somewhere.else"
ok(not G.stubs_dispatched(is_device, cuda)(elsewhere), "a function of another module named like a backend's is not")
ok(not G.stubs_dispatched(is_device, None)(stub("exp")), "without a backend module no stub is a device function")
ok(G.stubs_dispatched(is_device, cuda)(exp), "a device function stays one")
done()
