#!/usr/bin/env python3
"""tests/gpu/wclient.py: speaks the worker protocol to a kopt-worker, for GPU
tests and for recording fixtures.

    wclient.py WORKER OUTDIR REQUEST.json...

Starts WORKER, checks the hello, sends each request (a JSON file, or inline
JSON), writes hello.json and reply-N.json into OUTDIR and prints a one-line
summary per reply. Exit status 1 if any reply is not ok. Worker below is the same client
as a class, for the GPU tests that import it.
"""

import json
import os
import subprocess
import sys
import time


class Worker:
    """A kopt-worker spoken to request by request, for the GPU tests that
    drive it from Python (knobs.py, transforms.py, static_shapes.py,
    graph_cache.py): each reply is written to OUTDIR as reply-N-OP.json
    where an OUTDIR is given, and a reply that is not ok raises. env: the
    worker's environment (default this process's); stderr: where its
    stderr goes (default this process's)."""

    def __init__(self, path, outdir=None, env=None, stderr=None):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                                  stderr=stderr)
        self.outdir, self.i = outdir, 0
        json.loads(self.p.stdout.readline())  # hello

    def ask(self, req):
        self.i += 1
        req = dict(req, id=self.i)
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker died (exit {self.p.wait()})")
        rep = json.loads(line)
        if self.outdir:
            with open(os.path.join(self.outdir, f"reply-{self.i}-{req['op']}.json"), "w") as f:
                json.dump({"request": req, "reply": rep}, f, indent=1)
        if not rep.get("ok"):
            raise RuntimeError(f"{req['op']}: {rep.get('error')}\n{rep.get('detail', '')}")
        return rep["result"]

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def main() -> int:
    worker, outdir, reqs = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(outdir, exist_ok=True)
    p = subprocess.Popen([worker], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    t0 = time.time()
    hello = json.loads(p.stdout.readline())
    print(f"hello after {time.time() - t0:.1f}s: {json.dumps(hello)}", flush=True)
    with open(os.path.join(outdir, "hello.json"), "w") as f:
        json.dump(hello, f, indent=1)
    bad = 0
    for i, r in enumerate(reqs):
        req = json.loads(r) if r.lstrip().startswith("{") else json.load(open(r))
        req["id"] = i + 1
        t0 = time.time()
        p.stdin.write(json.dumps(req) + "\n")
        p.stdin.flush()
        line = p.stdout.readline()
        if not line:
            print(f"reply {i+1}: worker died (exit {p.wait()})", flush=True)
            return 1
        rep = json.loads(line)
        with open(os.path.join(outdir, f"reply-{i+1}-{req['op']}.json"), "w") as f:
            json.dump({"request": req, "reply": rep}, f, indent=1)
        ok = rep.get("ok")
        bad += not ok
        summary = rep.get("error") if not ok else ", ".join(f"{k}" for k in (rep.get("result") or {}))
        print(f"reply {i+1} {req['op']} {'ok' if ok else 'FAILED'} in {time.time() - t0:.1f}s: {summary}", flush=True)
        if not ok:
            print(rep.get("detail", ""), flush=True)
    p.stdin.close()
    p.wait(timeout=60)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
