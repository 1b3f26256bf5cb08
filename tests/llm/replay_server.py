#!/usr/bin/env python3
"""tests/llm/replay_server.py: a TEST DOUBLE of the LLM HTTP APIs.

This is not an LLM and not a proxy. It listens on 127.0.0.1 only, on a port
the kernel picks (port 0), prints that port as its first line of stdout, and
answers each POST with the next scripted response of a JSON script file:

    {
      "expect_path": "/v1/chat/completions",   optional: other paths get a 404
      "max_requests": 6,                       exit after this many requests (default 32)
      "max_seconds": 20,                       exit after this long whatever happens (default 30)
      "responses": [                           served in order; then 418 "script exhausted"
        {
          "status": 200,                       HTTP status (default 200)
          "headers": {"Retry-After": "1"},     extra response headers
          "json": {...}                        body: a JSON value,
          | "body": "text"                     or raw text,
          | "body_file": "../replies/x.json"   or a recorded reply, relative to the script
          "delay": 0.5,                        seconds to wait before answering
          "truncate": 40,                      send only this many body bytes (the
                                               Content-Length stays the full length), then close
          "close": true,                       close the connection without any reply
          "times": 3                           serve this response this many times (default 1)
        }
      ]
    }

In a body, "{{header:NAME}}" is replaced by the value of the request's NAME
header (empty when absent): that is how a test makes the server echo the API
key back, as some real servers and proxies do in their error messages.
"{{key:FORM}}" echoes the key itself (the Authorization header without
"Bearer ", else x-api-key) in another form: raw, b64, b64nopad, b64url,
b64urlnopad (its base64), b64at1, b64at2, b64urlat1, b64urlat2 (the base64
of one or two other bytes and the key: the key at the other alignments),
half1, half2 (its halves).

With --log FILE, each request is appended to FILE as one JSON line:
{"method", "path", "headers": {name: value}, "body": text}.

Standard library only (python3 in CI).
"""
import argparse
import base64
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import time

PLACEHOLDER = re.compile(r"\{\{header:([A-Za-z0-9-]+)\}\}")
KEY_FORM = re.compile(r"\{\{key:([a-z0-9]+)\}\}")


def key_form(key: str, form: str) -> str:
    b = key.encode("utf-8")
    enc = {
        "raw": lambda: key,
        "b64": lambda: base64.b64encode(b).decode(),
        "b64nopad": lambda: base64.b64encode(b).decode().rstrip("="),
        "b64url": lambda: base64.urlsafe_b64encode(b).decode(),
        "b64urlnopad": lambda: base64.urlsafe_b64encode(b).decode().rstrip("="),
        "b64at1": lambda: base64.b64encode(b"\xfb" + b).decode(),
        "b64at2": lambda: base64.b64encode(b"\xfb\xff" + b).decode(),
        "b64urlat1": lambda: base64.urlsafe_b64encode(b"\xfb" + b).decode(),
        "b64urlat2": lambda: base64.urlsafe_b64encode(b"\xfb\xff" + b).decode(),
        "half1": lambda: key[:len(key) // 2],
        "half2": lambda: key[len(key) // 2:],
    }
    return enc[form]() if form in enc else "?"


class Script:
    def __init__(self, path: str) -> None:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
        base = os.path.dirname(os.path.abspath(path))
        self.expect_path = spec.get("expect_path")
        self.max_requests = int(spec.get("max_requests", 32))
        self.max_seconds = float(spec.get("max_seconds", 30))
        self.queue = []
        for r in spec.get("responses", []):
            if "body_file" in r:
                with open(os.path.join(base, r["body_file"]), encoding="utf-8") as f:
                    r = dict(r, body=f.read())
            elif "json" in r:
                r = dict(r, body=json.dumps(r["json"], indent=2))
            self.queue.extend([r] * int(r.get("times", 1)))
        self.lock = threading.Lock()
        self.served = 0
        self.done = threading.Event()

    def next(self):
        with self.lock:
            return self.queue.pop(0) if self.queue else None

    def count(self) -> None:
        with self.lock:
            self.served += 1
            if self.served >= self.max_requests:
                self.done.set()


def make_handler(script: Script, log_path):
    log_lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "replay-test-double/1"

        def log_message(self, fmt, *args):  # quiet: stderr stays clean
            pass

        def do_POST(self):
            try:
                self.answer()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)
            finally:
                script.count()

        def answer(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8", "replace")
            if log_path:
                rec = {"method": self.command, "path": self.path,
                       "headers": {k: v for k, v in self.headers.items()}, "body": body}
                with log_lock, open(log_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(rec) + "\n")
            self.close_connection = True
            if script.expect_path and self.path != script.expect_path:
                self.send(404, {}, json.dumps({"error": {"message": "no route " + self.path,
                                                         "type": "not_found_error"}}))
                return
            r = script.next()
            if r is None:
                self.send(418, {}, json.dumps({"error": {"message": "replay script exhausted",
                                                         "type": "test_double"}}))
                return
            if r.get("delay"):
                time.sleep(float(r["delay"]))
            if r.get("close"):
                return  # the server closes the socket: no status line at all
            text = PLACEHOLDER.sub(lambda m: self.headers.get(m.group(1), ""), r.get("body", ""))
            auth = self.headers.get("Authorization", "")
            key = auth[7:] if auth.startswith("Bearer ") else self.headers.get("x-api-key", "")
            text = KEY_FORM.sub(lambda m: key_form(key, m.group(1)), text)
            self.send(int(r.get("status", 200)), r.get("headers", {}), text, r.get("truncate"))

        def send(self, status, headers, text, truncate=None):
            data = text.encode("utf-8")
            self.send_response(status)
            if not any(k.lower() == "content-type" for k in headers):
                self.send_header("Content-Type", "application/json")
            for k, v in headers.items():
                self.send_header(k, str(v))
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data if truncate is None else data[:int(truncate)])
            self.wfile.flush()

    return Handler


def main() -> int:
    ap = argparse.ArgumentParser(description="replay scripted LLM API responses (test double)")
    ap.add_argument("script")
    ap.add_argument("--log", help="append each request as a JSON line")
    args = ap.parse_args()
    script = Script(args.script)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(script, args.log))
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    t = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    script.done.wait(script.max_seconds)
    time.sleep(0.05)  # let the last response drain
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
