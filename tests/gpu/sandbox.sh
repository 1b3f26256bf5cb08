#!/bin/bash
# tests/gpu/sandbox.sh: the worker's sandbox on the GPU machine, through the
# real kopt-worker: its hello says how it is confined; a model that opens a
# network socket when loaded, and one that writes a file outside the
# worker's scratch folder, fail their capture with PermissionError (the file
# is not written); so does one that reads ~/.netrc (the home folder is
# hidden: made for the test with a canary where there is none, which no
# reply shows) and one that reads a file in a fresh folder of the home; the
# small softmax still captures and profiles (torch.compile, Triton, CUPTI
# and CUDA work under the sandbox, reading only the system's, Python's and
# the models' folders: KOPT_SANDBOX_READ names the last, as koptmake names a
# spec's).
# Code in a candidate runs in the same confined process as the model's.
#   sandbox.sh WORKER OUTDIR      (run from the build folder; prints TAP)
set -u
W=$1; O=$2; here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$O"
m() { printf '{"name":"%s","kind":"torch","path":"%s/models/%s.py"}' "$1" "$here" "$1"; }
V='{"name":"default","mode":null,"options":{},"aten_fallback":[],"cudnn_benchmark":false}'
G='{"seeds":3,"atol":1e-4,"rtol":1e-4,"atol_half":1e-2,"rtol_half":1e-2,"fp64_fallback":true,"gamma":1.03,"repeats":10,"precision":"strict"}'
outside=$(mktemp -d "$HOME/kopt-sandbox-check-XXXXXX")
export KOPT_ESCAPE_FILE=$outside/escaped
export KOPT_SANDBOX_READ=$here/models
canary=netrc-canary-9e0c41
made_netrc=
if [ ! -e "$HOME/.netrc" ]; then
	printf 'machine kopt-cache.example.org login kopt password %s\n' "$canary" >"$HOME/.netrc"
	chmod 600 "$HOME/.netrc"
	made_netrc=1
fi
printf 'password %s\n' "$canary" >"$outside/secret"
unset KOPT_SANDBOX
python3 "$here/wclient.py" "$W" "$O" \
  "{\"op\":\"capture\",\"model\":$(m escape_socket),\"variant\":$V,\"seed\":0}" \
  "{\"op\":\"capture\",\"model\":$(m escape_write),\"variant\":$V,\"seed\":0}" \
  "{\"op\":\"capture\",\"model\":$(m small_softmax),\"variant\":$V,\"seed\":0}" \
  "{\"op\":\"profile\",\"model\":$(m small_softmax),\"variant\":$V,\"seed\":0,\"warmup\":3,\"calls\":5}" \
  "{\"op\":\"capture\",\"model\":$(m read_netrc),\"variant\":$V,\"seed\":0}" \
  >"$O/wclient.log" 2>"$O/worker.log"
KOPT_SECRET_FILE=$outside/secret python3 "$here/wclient.py" "$W" "$O/home" \
  "{\"op\":\"capture\",\"model\":$(m read_netrc),\"variant\":$V,\"seed\":0}" \
  >"$O/wclient-home.log" 2>"$O/worker-home.log"
python3 - "$O" "$outside" "$canary" <<'PY'
import glob, json, os, sys
o, outside, canary = sys.argv[1], sys.argv[2], sys.argv[3]
n = bad = 0
def ok(cond, what, diag=""):
    global n, bad
    n += 1
    print(f"{'' if cond else 'not '}ok {n} - {what}")
    if not cond:
        bad += 1
        if diag:
            print("# " + str(diag)[:600].replace("\n", "\n# "))
hello = json.load(open(os.path.join(o, "hello.json")))
sb = hello.get("sandbox") or {}
print(f"# sandbox: {sb.get('how')} (Landlock ABI {sb.get('landlock_abi')}, scratch {sb.get('scratch')})")
ok(sb.get("net") is True, "the worker denies network sockets (seccomp)", sb)
ok(sb.get("fs") is True, "the worker's writes are confined (Landlock)", sb)
def reply(i, d=o):
    f = glob.glob(os.path.join(d, f"reply-{i}-*.json"))
    return json.load(open(f[0]))["reply"] if f else {}
r = reply(1)
text = (r.get("error") or "") + (r.get("detail") or "")
ok(not r.get("ok") and "PermissionError" in text and "Permission denied" in text,
   "a model opening a socket fails its capture with PermissionError", text)
r = reply(2)
text = (r.get("error") or "") + (r.get("detail") or "")
ok(not r.get("ok") and "PermissionError" in text and outside in text,
   "a model writing outside the scratch folder fails its capture with PermissionError", text)
ok(not os.path.exists(os.path.join(outside, "escaped")), "and the file is not written")
ok(reply(3).get("ok") is True, "the small softmax captures under the sandbox", reply(3).get("error"))
ok(reply(4).get("ok") is True, "and profiles (CUPTI records, CUDA events)", reply(4).get("error"))
r = reply(5)
text = (r.get("error") or "") + (r.get("detail") or "")
ok(not r.get("ok") and "PermissionError" in text and ".netrc" in text,
   "a model reading ~/.netrc fails its capture with PermissionError", text)
r = reply(1, os.path.join(o, "home"))
text2 = (r.get("error") or "") + (r.get("detail") or "")
ok(not r.get("ok") and "PermissionError" in text2 and outside in text2,
   "so does one reading a file in a fresh folder of the home", text2)
logs = "".join(open(p, errors="replace").read() for p in glob.glob(os.path.join(o, "**", "*"), recursive=True)
               if os.path.isfile(p))
ok(canary not in text + text2 + logs and "read it:" not in text + text2,
   "no reply and no log shows what those files hold")
print(f"1..{n}")
sys.exit(1 if bad else 0)
PY
st=$?
rm -rf "$outside"
[ -n "$made_netrc" ] && rm -f "$HOME/.netrc"
exit $st
