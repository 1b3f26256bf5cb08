"""kopt.static_lists: gate 1's allow-lists and the paths they name.

What a candidate kernel may import, which attributes of triton.language,
Inductor's helpers and Python's math it may reach, which builtins it may
name, and what is rejected by name (frames, code objects, streams, timers,
processes). ``Aliases`` maps the names a module's imports bind to their
canonical dotted paths; the scope rules (kopt.static_scope) make sure no
other binding of those names exists, so a name's path is its meaning
everywhere in the file. Standard library only.
"""

from __future__ import annotations

import ast


class Reject(Exception):
    """One reason to reject the candidate (one line)."""


# Canonical module paths that an import may bind.
INDUCTOR_RUNTIME = "torch._inductor.runtime"
INDUCTOR_MODULES = {"triton_helpers", "triton_heuristics", "hints", "triton_compat"}
# The modules a kernel may name paths into. Each is named only as the head
# of a path (tl.math.exp), never as a value: a module held in a name or
# passed to a helper has its attributes read as a tensor's
# (`m = tl.math; m.reduce` is functools.reduce, host-side Python).
MODULE_PATHS = {"triton", "triton.language", "triton.language.math", "triton.language.extra",
                "triton.language.extra.libdevice", "triton.language.extra.cuda",
                "triton.language.extra.cuda.libdevice", "triton.language.core", "math", INDUCTOR_RUNTIME,
                *(f"{INDUCTOR_RUNTIME}.{m}" for m in INDUCTOR_MODULES),
                *(f"{INDUCTOR_RUNTIME}.{m}.{sub}" for m in ("triton_helpers", "triton_compat")
                  for sub in ("libdevice", "math"))}
# Attributes of the triton package a kernel may use.
TRITON_ATTRS = {"jit", "autotune", "heuristics", "Config", "cdiv", "next_power_of_2",
                "language", "constexpr"}
# Inductor's kernel decorators (triton_heuristics.*); the original's own are added.
HEURISTICS_ATTRS = {"pointwise", "reduction", "persistent_reduction", "cooperative_reduction",
                    "split_scan", "template", "foreach", "user_autotune", "fixed_config"}
# triton.language: the programming model, its math and its dtypes.
TL_ATTRS = {
    # programs, blocks, shapes
    "program_id", "num_programs", "arange", "full", "zeros", "zeros_like", "full_like", "cdiv",
    "broadcast", "broadcast_to", "reshape", "view", "trans", "permute", "expand_dims", "ravel",
    "join", "split", "interleave", "cat", "flip", "where", "swizzle2d",
    # memory (masks checked in kopt.static_bounds)
    "load", "store", "make_block_ptr", "advance", "make_tensor_descriptor",
    "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
    "atomic_xchg", "atomic_cas",
    # reductions and scans
    "sum", "max", "min", "argmax", "argmin", "reduce", "xor_sum", "associative_scan", "cumsum",
    "cumprod", "sort", "histogram", "dot", "dot_scaled",
    # math
    "maximum", "minimum", "clamp", "abs", "exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "cast",
    "sin", "cos", "erf", "floor", "ceil", "fma", "fdiv", "div_rn", "umulhi", "sigmoid", "softmax",
    "math", "extra", "PropagateNan",
    # random numbers
    "rand", "randn", "randint", "randint4x", "philox",
    # compile-time
    "constexpr", "static_range", "range", "static_assert", "device_assert", "multiple_of",
    "max_contiguous", "max_constancy", "debug_barrier", "assume",
    # types
    "dtype", "tensor", "pointer_type", "block_type", "void", "int1", "int8", "int16", "int32",
    "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16", "float32", "float64",
    "float8e4nv", "float8e5", "float8e4b15", "float8e4b8", "float8e5b16",
}
# Modules reachable through triton_helpers that a kernel must not walk into.
HELPERS_MODULES = {"triton", "tl", "torch", "os", "sys", "builtins", "inspect", "functools",
                   "typing", "importlib", "warnings", "itertools", "operator", "dataclasses"}
# Names that triton.language.math, the libdevice modules and Inductor's
# helpers bind to host-side Python (functools, typing, contextlib, modules,
# Triton's runtime classes, Inductor's driver and backend functions): Triton
# calls any Python function a kernel names while it compiles it, so
# tl.math.wraps(a)(b) there copies a's attributes into b (another helper's
# code, a module's functions) for the rest of the process, and
# triton_helpers.set_driver_to_cpu() switches the driver every later kernel
# compiles for. A path through one of them is refused; module-level
# `triton_helpers.set_driver_to_gpu()`, Inductor's own line, is allowed
# as a statement (kopt.static_checker).
HOST_NAMES = {
    "wraps", "update_wrapper", "partial", "partialmethod", "lru_cache", "cache", "cached_property",
    "reduce", "singledispatch", "total_ordering", "contextmanager", "ContextVar", "JITFunction",
    "KernelInterface", "Config", "GPUTarget", "Callable", "Any", "TypeVar", "List", "Optional", "Union",
    "Tuple", "Dict", "Sequence", "T", "core", "semantic", "standard", "pymath", "builtins_use_semantic_kwarg",
    "set_driver_to_cpu", "set_driver_to_gpu", "skip_gpu_driver_setup", "get_backend_options",
    "get_backend_options_for_target", "try_filter_backend_options_for_target", "get_constexprs",
    "triton_key", "knobs", "autograd_profiler", "cc_warp_size", "triton_builtin",
}
# Stubs of Triton's generic libdevice module (`def fast_tanhf(arg0): ...`)
# that the CUDA backend's libdevice does not define: Triton's compiler
# replaces a stub by the backend's function of its name, and a stub with
# none is host-side Python that no GPU runs. Refused like HOST_NAMES
# (tests/gpu/gate_reading.py finds them in the installed Triton: one that
# a Triton adds fails there until it is listed).
STUB_NAMES = {"fast_tanhf"}
HINTS_ATTRS = {"TileHint", "ReductionHint", "AutotuneHint", "DeviceProperties", "HeuristicType",
               "TRITON_MAX_BLOCK", "TRITON_MAX_RSPLIT"}
HINT_ENUMS = {"TileHint", "ReductionHint", "AutotuneHint", "HeuristicType"}
# Attributes of values (tensors, constexprs, dtypes) a kernel may use.
VALUE_ATTRS = {
    "to", "dtype", "shape", "T", "reshape", "view", "trans", "permute", "broadcast_to",
    "expand_dims", "ravel", "split", "sum", "max", "min", "argmax", "argmin", "cumsum", "cumprod",
    "sort", "flip", "reduce", "logical_and", "logical_or", "element_ty", "primitive_bitwidth",
    "is_floating", "is_int", "is_int_signed", "is_int_unsigned", "is_fp8", "is_fp16", "is_bf16",
    "is_fp32", "is_fp64", "is_ptr", "value", "numel", "type", "int_bitwidth", "scalar",
}

# Builtins that cannot reach outside the kernel.
SAFE_BUILTINS = {"range", "len", "min", "max", "abs", "int", "float", "bool", "tuple",
                 "zip", "enumerate", "isinstance", "sum", "any", "all", "round", "pow",
                 "divmod", "slice",
                 "ValueError", "RuntimeError", "AssertionError", "NotImplementedError",
                 "True", "False", "None", "__file__"}
# Names with their own reason (they would otherwise be "unknown").
BANNED_NAMES = {"open", "exec", "eval", "compile", "__import__", "getattr", "setattr",
                "delattr", "hasattr", "globals", "locals", "vars", "dir", "input",
                "breakpoint", "exit", "quit", "help", "memoryview", "type", "object",
                "super", "classmethod", "staticmethod", "property", "id", "format", "repr",
                "os", "sys", "subprocess", "socket", "shutil", "pathlib", "io", "ctypes",
                "importlib", "pickle", "marshal", "time", "threading", "multiprocessing",
                "signal", "urllib", "http", "requests", "builtins", "torch", "numpy", "np",
                "tempfile", "random", "inspect", "gc", "weakref", "asyncio", "select",
                "mmap", "resource", "platform", "cupy", "pycuda", "operator", "functools",
                "codecs", "copyreg", "types", "sysconfig", "site"}
# Attribute names that reach streams, events, timers, processes or modules.
BANNED_ATTRS = {"cuda", "synchronize", "Event", "Stream", "stream", "current_stream",
                "default_stream", "set_stream", "elapsed_time", "record", "record_event",
                "perf_counter", "perf_counter_ns", "monotonic", "time_ns", "sleep",
                "system", "popen", "spawn", "fork", "environ", "modules", "builtins",
                "testing", "do_bench", "runtime", "compiler", "driver", "knobs",
                "os", "sys", "subprocess", "socket", "torch", "time", "importlib"}
# Frames, code objects, generators, coroutines, tracebacks and functions'
# insides: the ways from any object to every global of the process.
FRAME_ATTRS = {"gi_frame", "gi_code", "gi_yieldfrom", "gi_running", "gi_suspended",
               "cr_frame", "cr_code", "cr_await", "cr_origin", "ag_frame", "ag_code",
               "ag_await", "f_back", "f_builtins", "f_globals", "f_locals", "f_code",
               "f_trace", "f_lineno", "f_lasti", "tb_frame", "tb_next", "co_code",
               "co_consts", "co_names", "co_filename", "func_globals", "func_code",
               "mro", "fn", "src", "cache_fn", "fget", "fset", "im_func", "im_self"}
MUTABLE_CALLS = {"list", "dict", "set", "bytearray"}
PRINTS = {"triton.language.device_print", "triton.language.static_print",
          "triton.language.core.device_print", "triton.language.core.static_print"}
INLINE_ASM = {"triton.language.inline_asm_elementwise",
              "triton.language.core.inline_asm_elementwise"}
# @triton.jit(...) keywords whose literal values change nothing outside the kernel
JIT_KEYWORDS = {"noinline", "do_not_specialize", "do_not_specialize_on_alignment", "debug"}
# decorator arguments that must equal the original's; reset_to_zero names
# the arguments triton.autotune zeroes before it times each config, a
# write from the host into each of them (an input's, a weight's zeroed)
SAME_AS_ORIGINAL = {"triton_meta", "inductor_meta", "filename", "reset_to_zero"}
# triton.Config's keywords a candidate may give; its dict's keys name the
# kernel's parameters. Anything else reaches Triton's compile as an option
# (extern_libs links a bitcode file as libdevice, ir_override swaps a
# stage for a file's text): kopt.static_checker.Checker.check_values
CONFIG_KEYWORDS = {"num_warps", "num_stages", "num_ctas", "maxnreg"}
# calls a literal may make: canonical path -> allowed positional arguments
LITERAL_CALLS = {INDUCTOR_RUNTIME + ".hints.DeviceProperties": 0, "triton.Config": 1}

# Triton's loop iterables and their parameters in order (Triton 3.6's
# tl.range and tl.static_range take their bounds and step by keyword too:
# tl.range(0, arg2=N) ends at N, tl.range(0, n, 1, 4, 1 << 20) unrolls by
# 2**20; Python's range takes no keyword). A for loop's iterable is read
# with its arguments bound as Triton binds them (range_arguments), for
# its values (kopt.static_bounds) and for its limits (kopt.static_limits).
RANGE_PARAMS = {
    "range": ("arg1", "arg2", "step"),
    "triton.language.range": ("arg1", "arg2", "step", "num_stages", "loop_unroll_factor",
                              "disallow_acc_multi_buffer", "flatten", "warp_specialize", "disable_licm"),
    "triton.language.static_range": ("arg1", "arg2", "step"),
}


# memory accesses: canonical path -> index of the mask among the positional
# arguments (None: the call takes no mask)
LOADS = {"triton.language.load": 1}
STORES = {"triton.language.store": 2, "triton.language.atomic_add": 2,
          "triton.language.atomic_max": 2, "triton.language.atomic_min": 2,
          "triton.language.atomic_and": 2, "triton.language.atomic_or": 2,
          "triton.language.atomic_xor": 2, "triton.language.atomic_xchg": 2,
          "triton.language.atomic_cas": None}
# atomics whose new value is made from what the buffer held (an add, a max,
# a compare-and-swap): their effect reads the buffer, whether or not their
# old value is used; an exchange alone writes a value of its own
MERGING_ATOMICS = set(STORES) - {"triton.language.store", "triton.language.atomic_xchg"}
# Inductor's helpers (triton_helpers.NAME: @triton.jit functions the gate
# does not read) that load or store through a pointer they are given: the
# pointer's position and name among their parameters, and what they do
# there. One not named here that is given a buffer's pointer is taken to
# load and store through it (kopt.static_buffers.helper_accesses).
HELPER_ACCESSES = {
    "bucketize_binary_search": (1, "offsets_ptr", ("load",)),
    "exclusive_scan_decoupled_lookback": (0, "scratch_base", ("load", "store")),
    "exclusive_scan_decoupled_lookback_64": (0, "scratch_base", ("load", "store")),
    "x_grid_barrier": (0, "sem", ("load", "store")),
    "gpu_barrier": (0, "state", ("load", "store")),
}


def dotted(node: ast.AST) -> list[str] | None:
    """a.b.c -> ['a', 'b', 'c']; None when the chain is not names and attributes."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def is_dunder(s: str) -> bool:
    return s.startswith("__") and s.endswith("__") and len(s) > 4


def public(name: str) -> bool:
    return not name.startswith("_")


def host_note(name: str) -> str:
    """What a refusal adds where the name refused is host-side Python."""
    if name in STUB_NAMES:
        return ": a stub of Triton's libdevice that the CUDA backend does not define"
    return ": host-side Python, which Triton runs while it compiles" if name in HOST_NAMES else ""


def device_name(name: str) -> bool:
    """A public name of a device-function module (tl.math, libdevice,
    Inductor's helpers) that is not host-side Python (HOST_NAMES) or a
    libdevice stub with no CUDA function (STUB_NAMES)."""
    return public(name) and name not in HOST_NAMES and name not in STUB_NAMES


def range_arguments(it: ast.AST, path: str | None) -> dict[str, ast.expr] | None:
    """A loop iterable's arguments by parameter name (RANGE_PARAMS), bound
    as Triton binds them, a literal None left out as Triton leaves it; None
    where it is no such call or they cannot be bound: a keyword to range(),
    an unknown or repeated one, too many positional arguments, a starred
    one."""
    if not isinstance(it, ast.Call) or path not in RANGE_PARAMS:
        return None
    params = RANGE_PARAMS[path]
    if len(it.args) > len(params) or any(isinstance(a, ast.Starred) for a in it.args) \
            or (path == "range" and it.keywords):
        return None
    out = dict(zip(params, it.args))
    for k in it.keywords:
        if k.arg is None or k.arg not in params or k.arg in out:
            return None
        out[k.arg] = k.value
    out = {k: v for k, v in out.items() if not (isinstance(v, ast.Constant) and v.value is None)}
    return out if "arg1" in out else None


def range_values(bound: dict[str, ast.expr]) -> list[ast.expr]:
    """A bound iterable's values as range() takes them: [stop],
    [start, stop] or [start, stop, step]."""
    if "arg2" not in bound:
        return [bound["arg1"]] if "step" not in bound else [ast.Constant(0), bound["arg1"], bound["step"]]
    return [bound["arg1"], bound["arg2"]] + ([bound["step"]] if "step" in bound else [])


def short(path: str) -> str:
    """A canonical path as a person reads it: the last two components."""
    return ".".join(path.split(".")[-2:])


def excerpt(node: ast.AST, n: int = 70) -> str:
    s = " ".join(ast.unparse(node).split())
    return s if len(s) <= n else s[:n - 3] + "..."


def module_allowed(path: str) -> bool:
    """May `import path` / `from path import ...` name this module?"""
    if path in ("triton", "math", "triton.language") or path.startswith("triton.language."):
        return True
    if path == INDUCTOR_RUNTIME:
        return True
    if path.startswith(INDUCTOR_RUNTIME + "."):
        rest = path[len(INDUCTOR_RUNTIME) + 1:].split(".")
        return len(rest) == 1 and rest[0] in INDUCTOR_MODULES
    return False


def tl_path_ok(rest: list[str]) -> bool:
    """A path below triton.language (rest may be a prefix of an allowed one)."""
    if not rest:
        return True
    head = rest[0]
    if head not in TL_ATTRS:
        return False
    if len(rest) == 1:
        return True
    if head == "math":
        return len(rest) == 2 and device_name(rest[1])
    if head == "extra":
        # libdevice only: not tl.extra.cuda's timers, SM ids or format conversions
        if rest[1] == "libdevice":
            return len(rest) <= 3 and (len(rest) < 3 or device_name(rest[2]))
        if rest[1] == "cuda":
            if len(rest) == 2:
                return True
            return rest[2] == "libdevice" and (len(rest) == 3 or (len(rest) == 4 and device_name(rest[3])))
        return False
    return False


def _inductor_path_ok(mod: str, rest: list[str], heuristics_ok: set[str]) -> bool:
    """A path below torch._inductor.runtime.MOD."""
    if mod in ("triton_helpers", "triton_compat"):
        if not rest:
            return True
        if not device_name(rest[0]) or rest[0] in HELPERS_MODULES:
            return False
        if len(rest) == 1:
            return mod == "triton_helpers" or rest[0] in ("libdevice", "math")
        return rest[0] in ("libdevice", "math") and len(rest) == 2 and device_name(rest[1])
    if mod == "triton_heuristics":
        return len(rest) <= 1 and (not rest or rest[0] in heuristics_ok)
    if mod == "hints":
        if not rest:
            return True
        if rest[0] not in HINTS_ATTRS:
            return False
        return len(rest) == 1 or (len(rest) == 2 and rest[0] in HINT_ENUMS and public(rest[1]))
    return False


def path_ok(path: str, heuristics_ok: set[str]) -> bool:
    """Is this canonical module path (or a prefix of one) on the allow-list?"""
    parts = path.split(".")
    if parts[0] == "triton":
        if len(parts) == 1:
            return True
        if parts[1] == "language":
            return tl_path_ok(parts[2:])
        return len(parts) == 2 and parts[1] in TRITON_ATTRS
    if parts[0] == "math":
        return len(parts) <= 2 and all(public(p) for p in parts[1:])
    runtime = INDUCTOR_RUNTIME.split(".")
    if parts[:len(runtime)] == runtime[:len(parts)]:
        if len(parts) <= len(runtime):
            return True
        return _inductor_path_ok(parts[len(runtime)], parts[len(runtime) + 1:], heuristics_ok)
    return False


def hint_enum(path: str) -> bool:
    """Inductor's hint enums' members (TileHint.SQUARE): literals."""
    parts = path.split(".")
    return (path.startswith(INDUCTOR_RUNTIME + ".hints.") and len(parts) == 6
            and parts[4] in HINT_ENUMS and public(parts[5]))


class Aliases:
    """Local names bound by the imports, mapped to canonical dotted paths.
    Each name is bound once at module level (kopt.static_scope), and no
    function binds one of them, so the map holds everywhere."""

    def __init__(self, tree: ast.Module):
        self.map: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.map[a.asname] = a.name
                    else:
                        root = a.name.split(".")[0]
                        self.map[root] = root
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if a.name != "*":
                        self.map[a.asname or a.name] = node.module + "." + a.name

    def resolve(self, node: ast.AST) -> str | None:
        parts = dotted(node)
        if not parts:
            return None
        head = self.map.get(parts[0])
        if head is None:
            return ".".join(parts)
        return ".".join([head] + parts[1:])

    def module_path(self, node: ast.AST) -> str | None:
        """The canonical path when node is a chain rooted at an import, else None."""
        parts = dotted(node)
        if not parts or parts[0] not in self.map:
            return None
        return ".".join([self.map[parts[0]]] + parts[1:])


def decorator_kind(dec: ast.AST, aliases: Aliases) -> str:
    target = dec.func if isinstance(dec, ast.Call) else dec
    return aliases.resolve(target) or ast.unparse(target)


def is_jit(fn: ast.FunctionDef, aliases: Aliases) -> bool:
    return any(decorator_kind(d, aliases) == "triton.jit" for d in fn.decorator_list)


def kernels(tree: ast.Module, aliases: Aliases) -> list[ast.FunctionDef]:
    return [n for n in tree.body if isinstance(n, ast.FunctionDef) and is_jit(n, aliases)]


def signature(fn: ast.FunctionDef) -> str:
    return "(" + ast.unparse(fn.args) + ")"


def module_constants(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level NAME = literal (or NAME: ann = literal) assignments;
    tl.constexpr(literal) counts as its literal."""
    out: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            out[node.target.id] = node.value
    return out
