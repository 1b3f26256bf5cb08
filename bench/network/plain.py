"""What torch.compile alone costs for a model, outside koptmake: the
reference that a capture's time is read against (bench/network/README.md).

    python3 bench/network/plain.py MODEL.py [MODE] [--template-threads]

MODEL.py is in KernelBench's format (Model, get_inputs, get_init_inputs);
MODE is torch.compile's mode (default: Inductor's defaults).
--template-threads compiles max-autotune's template choices in threads of
this process, as koptmake's workers do (runtime/python/kopt/tplthreads.py):
the one change from a plain torch.compile, to time what it saves. The compile
caches are Inductor's own (TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR): point
them at empty folders for a cold figure, at an earlier run's for a warm one.
Prints one line: the seconds of the first call (the compile) and of a later
call, Dynamo's own table of compile phases after it. Inductor's autotuning
lines ("AUTOTUNE ...") go to stderr as usual: bench/beyond/costs.py reads
them from a log.
"""
import importlib.util
import os
import sys
import time

import torch


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: plain.py MODEL.py [MODE] [--template-threads]\n")
        return 2
    threads = "--template-threads" in argv
    argv = [a for a in argv if a != "--template-threads"]
    path, mode = argv[1], argv[2] if len(argv) > 2 else None
    if threads:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "..", "..", "runtime", "python"))
        from kopt import tplthreads
        if not tplthreads.install():
            sys.stderr.write("plain.py: --template-threads: Inductor's functions not found\n")
            return 1
    spec = importlib.util.spec_from_file_location("kopt_plain_model", os.path.abspath(path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    torch.manual_seed(0)
    model = mod.Model(*mod.get_init_inputs()).cuda().eval()
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in mod.get_inputs()]
    compiled = torch.compile(model, mode=mode)
    t0 = time.perf_counter()
    with torch.no_grad():
        compiled(*inputs)
    torch.cuda.synchronize()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    with torch.no_grad():
        compiled(*inputs)
    torch.cuda.synchronize()
    later = time.perf_counter() - t0
    print(f"plain: {os.path.basename(path)} mode={mode or 'default'}: first call {first:.1f} s, "
          f"a later call {later * 1e3:.2f} ms, compile threads "
          f"{torch._inductor.config.compile_threads}{', template choices in threads' if threads else ''}")
    print(torch._dynamo.utils.compile_times(repr="str"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
