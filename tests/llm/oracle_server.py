#!/usr/bin/env python3
"""tests/llm/oracle_server.py: a TEST DOUBLE of an LLM behind the
OpenAI-compatible chat API (POST /v1/chat/completions) and the Anthropic
Messages API (POST /v1/messages). It is no model: each reply is computed
from the prompt it is sent, by the mode given on the command line.

    oracle     applies one known good edit to the kernel source it is sent
               and answers with the result: the source of the prompt's
               "## Best so far" section where there is one, else the
               original ("## Kernel module as Inductor generated it").
               The edit adds the line "    # kopt-oracle: step N" after
               the kernel's def line (N = the steps already there + 1);
               at STEPS steps (--steps, default 4) the source comes back
               as it is: the oracle's best. tests/llm/oracle-worker.py
               times a source 1.1x faster for each step. So the oracle
               helps only a loop that sends its best source.
    original   the same edit, always on the original source: what a loop
               that starts from the original each round would get.
    broken     a kernel module that does not parse (an unclosed
               parenthesis), whatever it is sent; each reply numbers its
               attempt, so that no two are the same.
    echo       the API key it was sent, in the reply's text, its kernel
               module, its launch config and its notes: raw, as base64
               (standard and URL-safe, padded or not) and in halves, as a
               server or proxy that echoes credentials would.
    timeout    accepts each request and never answers (sleeps past the
               client's limits).
    config     a launch config only: one json block with the config that
               tests/llm/oracle-worker.py times faster
               ({"XBLOCK": 1, "R0_BLOCK": 1024, "num_warps": 4,
               "num_stages": 1}, the one recorded passing on the H200).

Every reply ends with the notes lines "Avoid: ..." and "Prioritize: ...".
A request's replies are numbered per prompt: the second and later replies
to the same prompt (a beam's) add "    # kopt-oracle: variant K" so that
they differ. --delay S waits S seconds before answering (to show calls
that run in parallel).

Usage: the reply counts the prompt's tokens as its bytes / 4. It plays a
provider's prompt cache: an Anthropic request whose first user block
carries cache_control reads that block's tokens from the cache when the
same block came before (cache_read_input_tokens); an OpenAI request
reports the prefix it shares with an earlier prompt, in whole 256-byte
blocks, as prompt_tokens_details.cached_tokens.

It listens on 127.0.0.1 only, on a port the kernel picks, prints the port
as its first line, and with --log FILE appends each request as a JSON
line {"path", "headers", "body", "start", "end"} (times in seconds since
the epoch, end when the reply was sent). Standard library only.
"""
import argparse
import base64
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GOOD_CONFIG = {"XBLOCK": 1, "R0_BLOCK": 1024, "num_warps": 4, "num_stages": 1}
BLOCK = re.compile(r"^(`{3,})python\n(.*?)^\1\n", re.S | re.M)
STEP = "# kopt-oracle: step "


def section_source(prompt: str, title: str):
    i = prompt.find("\n## " + title)
    if i < 0:
        return None
    m = BLOCK.search(prompt, i)
    return m.group(2) if m else None


def kernel_name(prompt: str) -> str:
    m = re.search(r"# Speed up the Triton kernel `([^`]+)`", prompt)
    return m.group(1) if m else "kernel"


def step(src: str, name: str, steps: int) -> str:
    lines = src.split("\n")
    k = sum(1 for l in lines if STEP in l)
    if k >= steps:
        return src
    at = next(i for i, l in enumerate(lines) if l.startswith("def " + name + "("))
    while at + 1 < len(lines) and STEP in lines[at + 1]:
        at += 1
    lines.insert(at + 1, "    " + STEP + str(k + 1))
    return "\n".join(lines)


def variant(src: str, name: str, nth: int) -> str:
    if nth == 0:
        return src
    lines = src.split("\n")
    at = next(i for i, l in enumerate(lines) if l.startswith("def " + name + "("))
    lines.insert(at + 1, "    # kopt-oracle: variant %d" % nth)
    return "\n".join(lines)


def forms(key: str) -> list:
    b = key.encode()
    return [key, base64.b64encode(b).decode(), base64.b64encode(b).decode().rstrip("="),
            base64.urlsafe_b64encode(b).decode(), key[:len(key) // 2], key[len(key) // 2:]]


class State:
    def __init__(self, mode: str, steps: int, delay: float, log):
        self.mode, self.steps, self.delay, self.log = mode, steps, delay, log
        self.lock = threading.Lock()
        self.seen = {}       # prompt -> replies given
        self.cached = set()  # Anthropic blocks marked for the cache
        self.prompts = []    # earlier OpenAI prompts
        self.broken = 0      # broken replies so far


def user_text(path: str, body: dict):
    """The user prompt, and the Anthropic block marked for the cache."""
    msg = body["messages"][-1]["content"]
    if isinstance(msg, str):
        return msg, None
    text = "".join(b.get("text", "") for b in msg)
    marked = next((b["text"] for b in msg if b.get("cache_control")), None)
    return text, marked


def answer(st: State, prompt: str, key: str) -> str:
    name = kernel_name(prompt)
    with st.lock:
        nth = st.seen.get(prompt, 0)
        st.seen[prompt] = nth + 1
    notes = "\nAvoid: editing anything but the one line the oracle knows.\nPrioritize: the next step.\n"
    if st.mode in ("oracle", "original"):
        src = section_source(prompt, "Best so far") if st.mode == "oracle" else None
        if src is None:
            src = section_source(prompt, "Kernel module as Inductor generated it")
        new = variant(step(src, name, st.steps), name, nth)
        return "One more step.\n\n```python\n" + new + "```\n" + notes
    if st.mode == "broken":
        with st.lock:
            st.broken += 1
            k = st.broken
        return ("```python\nimport triton\n\n@triton.jit\ndef " + name +
                "(in_ptr0, out_ptr2, xnumel, r0_numel, XBLOCK, R0_BLOCK):\n    # attempt %d\n    x = (1 +\n```\n" % k +
                notes)
    if st.mode == "echo":
        f = forms(key)
        src = section_source(prompt, "Kernel module as Inductor generated it") or ""
        lines = src.split("\n")
        at = next((i for i, l in enumerate(lines) if l.startswith("def " + name + "(")), 0)
        lines.insert(at + 1, "    # key " + f[0] + " b64 " + f[1] + " url " + f[3])
        return ("Your key is " + f[0] + " (" + f[2] + "), halves " + f[4] + " / " + f[5] + ".\n\n```python\n" +
                "\n".join(lines) + "```\n\n```json\n{\"XBLOCK\": 1, \"" + f[0] + "\": 2}\n```\n" +
                "\nAvoid: sending " + f[0] + "\nPrioritize: " + f[1] + "\n")
    if st.mode == "config":
        return "Only the launch config.\n\n```json\n" + json.dumps(GOOD_CONFIG) + "\n```\n" + notes
    return "?"


def make_handler(st: State):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "oracle-test-double/1"

        def log_message(self, fmt, *args):
            pass

        def do_POST(self):
            start = time.time()
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8", "replace")
            try:
                self.reply(raw, start)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def reply(self, raw: str, start: float):
            body = json.loads(raw)
            auth = self.headers.get("Authorization", "")
            key = auth[7:] if auth.startswith("Bearer ") else self.headers.get("x-api-key", "")
            prompt, marked = user_text(self.path, body)
            if st.mode == "timeout":
                time.sleep(60)
                return
            if st.delay:
                time.sleep(st.delay)
            text = answer(st, prompt, key)
            tokens_in = (len(prompt) + len(body.get("system", "") if isinstance(body.get("system"), str) else "")) // 4
            tokens_out = len(text) // 4
            if self.path == "/v1/messages":
                with st.lock:
                    read = marked is not None and marked in st.cached
                    if marked is not None:
                        st.cached.add(marked)
                cached = len(marked) // 4 if read else 0
                out = {"type": "message", "role": "assistant", "content": [{"type": "text", "text": text}],
                       "stop_reason": "end_turn",
                       "usage": {"input_tokens": tokens_in - cached, "cache_creation_input_tokens": 0,
                                 "cache_read_input_tokens": cached, "output_tokens": tokens_out}}
            else:
                with st.lock:
                    share = 0
                    for p in st.prompts:
                        n = 0
                        while n < min(len(p), len(prompt)) and p[n] == prompt[n]:
                            n += 1
                        share = max(share, n)
                    st.prompts.append(prompt)
                cached = (share // 256) * 256 // 4
                out = {"choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                                 "prompt_tokens_details": {"cached_tokens": cached}}}
            data = json.dumps(out).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
            if st.log:
                rec = {"path": self.path, "headers": dict(self.headers.items()), "body": raw,
                       "start": start, "end": time.time()}
                with st.lock, open(st.log, "a", encoding="utf-8") as f:
                    f.write(json.dumps(rec) + "\n")

    return Handler


def main() -> int:
    ap = argparse.ArgumentParser(description="an LLM API that answers by rule (test double)")
    ap.add_argument("mode", choices=["oracle", "original", "broken", "echo", "timeout", "config"])
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--log")
    ap.add_argument("--max-seconds", type=float, default=300)
    args = ap.parse_args()
    st = State(args.mode, args.steps, args.delay, args.log)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(st))
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    t = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    try:
        time.sleep(args.max_seconds)
    except KeyboardInterrupt:
        pass
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
