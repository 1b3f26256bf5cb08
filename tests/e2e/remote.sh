#!/bin/sh
# tests/e2e/remote.sh: the shared remote cache (issue 20) against a real
# nginx with WebDAV's PUT, started here on a loopback port, and the
# examples built with the simulated worker (a TEST DOUBLE). Two cache
# folders behind one remote: the second build runs no worker request and
# writes the same reports; the -v summary counts the records, objects and
# bytes sent (the bytes, against nginx's own log of the PUTs); planted
# corruption (an object's bytes, a record's checksum, another key's
# record) is found, run here and repaired on the server; a forged record
# (its checksum recomputed, its object named by its hash, both sealed
# with the forger's key) is refused and never reaches kopt-out/;
# read-only sends nothing; credentials (netrc,
# KOPT_REMOTE_CACHE_AUTH: a password, a bearer token) never show, not
# even to a worker; a stopped, a slow and a refusing server each cost one
# warning and no failure, and one that answers garbage to everything a
# few warnings and no wrong result.
# Skips without nginx, unless KOPT_REQUIRE_SERVICES=1 (.ci/run) fails it.
set -eu
. "$top_srcdir/tests/e2e/sim-env.sh" remote

nginx=$(command -v nginx || echo /usr/sbin/nginx)
if [ ! -x "$nginx" ]; then
	if [ "${KOPT_REQUIRE_SERVICES:-}" = 1 ]; then
		echo "not ok 1 - nginx is installed (tools/setup-debian.sh)"
		echo "1..1"
		exit 1
	fi
	echo "1..0 # SKIP no nginx (tools/setup-debian.sh installs it)"
	exit 0
fi

pw=s3cret-pw-4d1f
token=tok-8c2e91f0
slow_pid=
stop_services() {
	[ -f "$tmp/ng/nginx.pid" ] && kill "$(cat "$tmp/ng/nginx.pid")" 2>/dev/null || true
	[ -n "$slow_pid" ] && kill "$slow_pid" 2>/dev/null || true
}
trap 'stop_services; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# nginx on a free loopback port, basic authentication, PUT allowed
mkdir -p "$tmp/ng/www" "$tmp/ng/tmp" "$tmp/home"
echo "kopt:{PLAIN}$pw" >"$tmp/ng/htpasswd"
start_nginx() {
	port=$(free_port)
	cat >"$tmp/ng/nginx.conf" <<EOF
user root;
worker_processes 1;
pid $tmp/ng/nginx.pid;
error_log $tmp/ng/error.log;
events { worker_connections 64; }
http {
	access_log $tmp/ng/access.log;
	log_format puts '\$request_method \$status \$content_length';
	access_log $tmp/ng/puts.log puts;
	client_body_temp_path $tmp/ng/tmp;
	client_max_body_size 1g;
	server {
		listen 127.0.0.1:$port;
		root $tmp/ng/www;
		location / {
			dav_methods PUT;
			create_full_put_path on;
			dav_access user:rw group:r all:r;
			auth_basic "kopt";
			auth_basic_user_file $tmp/ng/htpasswd;
		}
		location /garbage/ {
			return 200 "<html>please sign in</html>\\n";
		}
		location /bearer/ {
			if (\$http_authorization != "Bearer $token") { return 401; }
			dav_methods PUT;
			create_full_put_path on;
		}
	}
}
EOF
	"$nginx" -c "$tmp/ng/nginx.conf" -p "$tmp/ng" -e "$tmp/ng/error.log" </dev/null >/dev/null 2>&1 || return 1
	for _ in $(seq 50); do
		[ -s "$tmp/ng/nginx.pid" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")" = 401 ] && return 0
		sleep 0.1
	done
	return 1
}
started=no
for _ in 1 2 3; do start_nginx && { started=yes; break; }; done
if [ $started = no ]; then
	echo "not ok 1 - nginx starts"
	sed 's/^/# /' "$tmp/ng/error.log" 2>/dev/null || true
	echo "1..1"
	exit 1
fi
url=http://127.0.0.1:$port/kopt
www=$tmp/ng/www/kopt

# a copy of the examples per cache folder
copy() {
	mkdir -p "$tmp/$1"
	(cd "$top_srcdir/examples" && tar cf - --exclude=.kopt --exclude=kopt-out .) | (cd "$tmp/$1" && tar xf -)
}
# build NAME [ARGS...]: the examples in folder NAME, its output in NAME.out
# and NAME.err, its worker requests in NAME.sim, its exit status in rc
build() {
	d=$1
	shift
	[ -d "$tmp/$d" ] || copy "$d"
	rm -f "$tmp/$d.sim"
	rc=0
	KOPT_SIM_LOG=$tmp/$d.sim "$KOPTMAKE" -C "$tmp/$d" -k -v "$@" all >"$tmp/$d.out" 2>"$tmp/$d.err" || rc=$?
	touch "$tmp/$d.sim"
}
warnings() { grep -c 'warning: remote cache' "$tmp/$1.err" || true; }
# same_results A B: the reports of builds A and B agree but for the GPU
# time each took (as tests/e2e/slurm.sh compares them): a build that runs
# its steps here measures its own, and a model's tenth of a minute moves
# with the machine's load
same_results() {
	for x in "$1" "$2"; do
		rm -rf "$tmp/$x.res" && cp -r "$tmp/$x/kopt-out" "$tmp/$x.res"
		sed -i -e '/^## GPU time/,/^## /{/^## [^G]/!d}' -e 's/| [0-9]*\.[0-9] |$/| - |/' "$tmp/$x.res/all/report.md"
		python3 - "$tmp/$x.res/all/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("gpu_minutes_by_step", None)
for m in d["models"]:
    m.pop("gpu_minutes", None)
    m.pop("gpu_minutes_by_step", None)
json.dump(d, open(sys.argv[1], "w"), indent=2, sort_keys=True)
PY
	done
	diff -r "$tmp/$1.res" "$tmp/$2.res" >/dev/null
}
requests() { wc -l <"$tmp/$1.sim" | tr -d ' '; }

# 1. first cache folder, credentials from ~/.netrc
printf 'machine 127.0.0.1\nlogin kopt\npassword %s\n' "$pw" >"$tmp/home/.netrc"
chmod 600 "$tmp/home/.netrc"
HOME=$tmp/home build A --remote-cache="$url"
check "A: the build ends well with credentials from ~/.netrc" "[ $rc -eq 0 ] && [ -f '$tmp/A/kopt-out/all/report.json' ]"
nac=$(ls "$www/ac" 2>/dev/null | wc -l)
ncas=$(ls "$www/cas" 2>/dev/null | wc -l)
check "A: the remote holds every record and object ($nac records, $ncas objects)" \
	"[ $nac -gt 282 ] && [ $ncas -gt 0 ] && [ $(requests A) -gt 0 ] && [ $(warnings A) -eq 0 ]"
# the server was empty: each record there took at least one PUT that
# worked (a record written twice here is sent twice), each object one
sent=$(sed -n 's/.*; \([0-9]*\) records and \([0-9]*\) objects sent;.*/\1 \2/p' "$tmp/A.err")
check "A: the summary counts what it sent ($sent): every record the server holds ($nac), at least, and its $ncas objects" \
	"[ '${sent% *}' -ge $nac ] && [ '${sent#* }' -eq $ncas ]"
# ... and the bytes it sent: the bodies of the PUTs the server took
out=$(sed -n 's/.* bytes in, \([0-9]*\) out.*/\1/p' "$tmp/A.err" | tail -n 1)
put=$(awk '$1 == "PUT" && $2 ~ /^2/ && $3 ~ /^[0-9]+$/ { n += $3 } END { printf "%d", n }' "$tmp/ng/puts.log")
check "A: the summary counts the bytes it sent ($out): the bodies of the PUTs the server took ($put)" \
	"[ -n '$out' ] && [ '$out' = '$put' ] && [ '$put' -gt 0 ]"
# ... and every step it looked up there missed: each counted, none found
fm=$(sed -n 's/.*remote cache .*: \([0-9]*\) found, \([0-9]*\) missing, .*/\1 \2/p' "$tmp/A.err" | tail -n 1)
check "A: the summary counts the lookups that missed on the empty server ($fm found and missing): none found, one at least for each record sent" \
	"[ '${fm% *}' = 0 ] && [ '${fm#* }' -ge '${sent% *}' ] && [ '${sent% *}' -gt 0 ]"
check "A: a record on the server is the local action map's line, with its checksum, then its seal" \
	"k=\$(ls '$www/ac' | head -n 1) && grep -qxF \"\$(head -n 1 '$www/ac/'\$k)\" '$tmp/A/.kopt/actions' && [ \$(wc -l <'$www/ac/'\$k) -eq 2 ] && tail -n 1 '$www/ac/'\$k | grep -qx '[0-9a-f]\{64\}'"

# 2. second cache folder, credentials from the environment; a launcher
# that writes down the environment its worker gets
printf '#!/bin/sh\nenv >>"%s"\nexec "$@"\n' "$tmp/worker.env" >"$tmp/env-launcher"
chmod +x "$tmp/env-launcher"
KOPT_LAUNCHER=$tmp/env-launcher KOPT_REMOTE_CACHE_AUTH=kopt:$pw build B --remote-cache="$url"
check "B: a second cache folder runs no worker request" "[ $rc -eq 0 ] && [ $(requests B) -eq 0 ] && grep -q '^koptmake: nothing to run; [0-9]* output files restored from the cache' '$tmp/B.out'"
check "B: ... and writes byte-identical reports" "diff -r '$tmp/A/kopt-out' '$tmp/B/kopt-out' >/dev/null"
check "B: ... from the remote, which it did not write to" \
	"grep -q ' found, 0 missing, 0 corrupt; 0 records and 0 objects sent' '$tmp/B.err' && [ $(warnings B) -eq 0 ]"
check "the password shows in no output, log or cache file" \
	"! grep -rqF '$pw' '$tmp/A' '$tmp/B' '$tmp/A.out' '$tmp/A.err' '$tmp/B.out' '$tmp/B.err'"
check "... nor in the environment of a worker" "grep -q '^KOPT_SLOT=' '$tmp/worker.env' && ! grep -qF '$pw' '$tmp/worker.env'"

# a URL that ends in a slash names the same folder: its paths have one
# slash where the URL has its own
n0=$(wc -l <"$tmp/ng/access.log")
KOPT_REMOTE_CACHE_AUTH=kopt:$pw build T --remote-cache="$url/"
tail -n +$((n0 + 1)) "$tmp/ng/access.log" >"$tmp/T.access"
check "T: a URL that ends in / finds every record (no worker request), each path with one slash after /kopt" \
	"[ $rc -eq 0 ] && [ $(requests T) -eq 0 ] && grep -q ' /kopt/' '$tmp/T.access' && ! grep -q '/kopt//' '$tmp/T.access'"

# 3. planted on the server: an object's bytes, a record's checksum, the
# record of another key
key_of() { "$KOPTMAKE" -C "$tmp/A" -t query "$1" | sed -n 's/^  key *//p'; }
obj=$("$KOPTMAKE" -C "$tmp/A" -t query capture elementwise/default | sed -n 's/.*"kernel:[^"]*": "\([0-9a-f]*\)".*/\1/p' | head -n 1)
kln=$(key_of "capture layernorm/default")
krow=$(key_of "capture row_sum/default")
kcol=$(key_of "capture col_mean/default")
cp "$www/cas/$obj" "$tmp/good-object"
printf 'not the bytes you hashed\n' >"$www/cas/$obj"
sed -i 's/"kind":"capture"/"kind":"capturE"/' "$www/ac/$kln"
cp "$www/ac/$kcol" "$www/ac/$krow"
KOPT_REMOTE_CACHE_AUTH=kopt:$pw build C --remote-cache="$url"
check "C: a corrupt object is found ($obj)" "grep -q 'cas/$obj is not sealed with this machine.s key' '$tmp/C.err'"
check "C: a record whose checksum fails is found" "grep -q 'ac/$kln is not sealed' '$tmp/C.err'"
check "C: another key's record is found" "grep -q 'ac/$krow is the record of another key' '$tmp/C.err'"
ran=$(sort "$tmp/C.sim" | tr '\n' ',')
check "C: exactly those three steps ran here ($ran)" \
	"[ '$ran' = 'capture elementwise default,capture layernorm default,capture row_sum default,' ] && [ $(warnings C) -eq 3 ]"
check "C: ... and the reports are A's" "[ $rc -eq 0 ] && diff -r '$tmp/A/kopt-out' '$tmp/C/kopt-out' >/dev/null"
check "C: the server's object is repaired" "cmp -s '$www/cas/$obj' '$tmp/good-object'"
check "C: the server's records are repaired" \
	"[ \"\$(head -n 1 '$www/ac/$krow' | cut -c1-32)\" = '$krow' ] && [ \"\$(head -n 1 '$www/ac/$kln' | cut -c1-32)\" = '$kln' ] && ! grep -q capturE '$www/ac/$kln'"
KOPT_REMOTE_CACHE_AUTH=kopt:$pw build D --remote-cache="$url"
check "D: after the repair a new cache folder runs no worker request" \
	"[ $rc -eq 0 ] && [ $(requests D) -eq 0 ] && [ $(warnings D) -eq 0 ] && diff -r '$tmp/A/kopt-out' '$tmp/D/kopt-out' >/dev/null"

# 3a. a sound record with a line after its seal: corrupt, not read as
# the record it starts with
printf 'appended\n' >>"$www/ac/$kcol"
KOPT_REMOTE_CACHE_AUTH=kopt:$pw build S --remote-cache="$url"
check "S: a record with a line after its seal is corrupt, and only its step runs here" \
	"[ $rc -eq 0 ] && grep -q 'ac/$kcol is corrupt (not a record and its seal)' '$tmp/S.err' && [ \"\$(sort '$tmp/S.sim' | tr '\n' ,)\" = 'capture col_mean default,' ] && [ $(warnings S) -eq 1 ]"

# 3b. forged by whoever can write to the server, every checksum and hash
# recomputed and sealed with a key of their own: row_sum's stitch record
# names a substitutions.json of the forger's, as its own object
kst=$(key_of "stitch row_sum")
python3 - "$www" "$kst" <<'PY'
import ctypes, hashlib, hmac, json, os, sys
www, key = sys.argv[1], sys.argv[2]
xx = ctypes.CDLL("libxxhash.so.0")
class H128(ctypes.Structure):
    _fields_ = [("low64", ctypes.c_uint64), ("high64", ctypes.c_uint64)]
xx.XXH3_64bits.restype, xx.XXH3_64bits.argtypes = ctypes.c_uint64, [ctypes.c_char_p, ctypes.c_size_t]
xx.XXH3_128bits.restype, xx.XXH3_128bits.argtypes = H128, [ctypes.c_char_p, ctypes.c_size_t]
mine = os.urandom(32)  # the forger's own seal key
def seal(domain, name, data):
    return hmac.new(mine, b"koptmake seal 1\0" + domain + b"\0" + name + b"\0" + data, hashlib.sha256).hexdigest().encode()
line = open(f"{www}/ac/{key}", "rb").read().split(b"\n")[0]
k, stable, rest = line.split(b" ", 2)
man = json.loads(rest.rsplit(b" ", 1)[0])
out = man["outputs"]["row_sum/substitutions.json"]
body = json.dumps({"model": "row_sum", "variant": {}, "gates": {}, "kernels": {"0" * 32: {
    "kernel": "triton_red", "source": "FORGED-MARKER: import os; os.system('id')"}}}).encode()
h = xx.XXH3_128bits(body, len(body))
name = b"%016x%016x" % (h.high64, h.low64)
open(f"{www}/cas/{name.decode()}", "wb").write(body + seal(b"object", name, body))
out.update(hash=name.decode(), size=len(body))
head = b" ".join([k, stable, json.dumps(man, separators=(",", ":")).encode()])
line = head + b" %016x" % xx.XXH3_64bits(head, len(head))
open(f"{www}/ac/{key}", "wb").write(line + b"\n" + seal(b"record", b"", line) + b"\n")
PY
KOPT_REMOTE_CACHE_AUTH=kopt:$pw build L --remote-cache="$url"
check "L: a forged record (its checksum recomputed, sealed with another key) is refused on fetch" \
	"grep -q 'ac/$kst is not sealed with this machine.s key' '$tmp/L.err' && grep -q '^stitch row_sum ' '$tmp/L.sim'"
check "L: ... the forger's file never reaches kopt-out, and what does is sealed" \
	"[ $rc -eq 0 ] && ! grep -rq FORGED-MARKER '$tmp/L/kopt-out' && diff -r '$tmp/A/kopt-out' '$tmp/L/kopt-out' >/dev/null && \
	 PYTHONPATH='$top_srcdir/runtime/python' python3 -c 'import sys, kopt.seal as S; S.read_sealed(sys.argv[1])' '$tmp/L/kopt-out/row_sum/substitutions.json'"
check "L: ... and the server's record is sealed anew" "! grep -q FORGED '$www/ac/$kst' && [ \"\$(head -n 1 '$www/ac/$kst' | cut -c1-32)\" = '$kst' ]"

# 4. read-only: a changed model runs here and nothing goes to the server
copy E
sed -i 's/^cols = 16384$/cols = 16384 + 64/' "$tmp/E/models/row_sum.py"
before=$(find "$www" -type f | wc -l)
puts=$(grep -c '"PUT ' "$tmp/ng/access.log" || true)
KOPT_REMOTE_CACHE_AUTH=kopt:$pw build E --remote-cache="$url#readonly"
after=$(find "$www" -type f | wc -l)
check "E: #readonly reads (only row_sum's steps run) and sends nothing" \
	"[ $rc -eq 0 ] && ! grep -v ' row_sum ' '$tmp/E.sim' | grep -q . && [ $(requests E) -gt 0 ] && [ $before -eq $after ] && [ $puts -eq \$(grep -c '\"PUT ' '$tmp/ng/access.log') ]"

# 5. a refusing server (wrong password): one warning, a local build
KOPT_REMOTE_CACHE_AUTH=kopt:not-the-pw-9q build F --remote-cache="$url"
check "F: a wrong password costs one warning (HTTP 401) and the build runs here" \
	"[ $rc -eq 0 ] && [ $(warnings F) -eq 1 ] && grep -q 'HTTP 401' '$tmp/F.err' && [ $(requests F) -gt 0 ]"
check "F: ... and the wrong password shows nowhere" "! grep -rqF 'not-the-pw-9q' '$tmp/F.out' '$tmp/F.err' '$tmp/F'"

# 5a. no seal key (one that is not a key): nothing could be sealed or
# checked, so the remote is not asked at all; one warning, a local build
logged=$(wc -l <"$tmp/ng/access.log")
KOPT_SEAL_KEY=not-a-key KOPT_REMOTE_CACHE_AUTH=kopt:$pw build N --remote-cache="$url"
check "N: without a seal key, one warning, the build runs here and the remote is not asked" \
	"[ $rc -eq 0 ] && grep -q 'warning: remote cache .*: no seal key; this build goes on without it' '$tmp/N.err' && [ $(requests N) -gt 0 ] && [ \$(wc -l <'$tmp/ng/access.log') -eq $logged ]"

# 5b. a bearer token
KOPT_REMOTE_CACHE_AUTH="Bearer $token" build J --remote-cache="http://127.0.0.1:$port/bearer"
check "J: a bearer token from KOPT_REMOTE_CACHE_AUTH is sent, and shows nowhere" \
	"[ $rc -eq 0 ] && [ $(warnings J) -eq 0 ] && [ \$(ls '$tmp/ng/www/bearer/ac' | wc -l) -gt 282 ] && ! grep -rqF '$token' '$tmp/J' '$tmp/J.out' '$tmp/J.err'"

# 5c. a server that answers a page of its own to everything
build K --remote-cache="http://127.0.0.1:$port/garbage"
check "K: a server that answers garbage to everything: the build runs here, warned about $(warnings K) times" \
	"[ $rc -eq 0 ] && [ $(warnings K) -eq 6 ] && grep -q 'more corrupt entries' '$tmp/K.err' && same_results A K"

# 6. the server stopped: one warning, the build runs here with A's results
kill "$(cat "$tmp/ng/nginx.pid")"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" || break; sleep 0.1; done
t0=$(date +%s)
KOPT_REMOTE_CACHE_AUTH=kopt:$pw build G --remote-cache="$url"
t1=$(date +%s)
check "G: with the server stopped the build finishes here with exactly one warning" \
	"[ $rc -eq 0 ] && [ $(warnings G) -eq 1 ] && grep -q 'cannot connect' '$tmp/G.err' && [ $(requests G) -gt 0 ]"
check "G: ... the reports are A's but for the GPU time, and it took $((t1 - t0)) s" "same_results A G && [ $((t1 - t0)) -lt 30 ]"
check "G: a server that cannot be reached is an error, not a miss: nothing counted missing" \
	"grep -q 'remote cache .*: 0 found, 0 missing, 0 corrupt' '$tmp/G.err'"

# 7. a server that accepts and never answers: one warning after 5 s
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
print(s.getsockname()[1], flush=True)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
' >"$tmp/slow.port" &
slow_pid=$!
for _ in $(seq 50); do [ -s "$tmp/slow.port" ] && break; sleep 0.1; done
t0=$(date +%s)
build H --remote-cache="http://127.0.0.1:$(cat "$tmp/slow.port")/kopt"
t1=$(date +%s)
check "H: a server that never answers costs one warning and $((t1 - t0)) s" \
	"[ $rc -eq 0 ] && [ $(warnings H) -eq 1 ] && grep -q 'too slow' '$tmp/H.err' && [ $((t1 - t0)) -lt 30 ]"

# 8. credentials in a URL are refused, and not repeated
rc=0
"$KOPTMAKE" -C "$tmp/A" -n --remote-cache="http://kopt:$pw@127.0.0.1:1/kopt" all >"$tmp/I.out" 2>"$tmp/I.err" || rc=$?
check "I: --remote-cache with credentials is refused without repeating them" \
	"[ $rc -eq 2 ] && grep -q 'netrc' '$tmp/I.err' && ! grep -qF '$pw' '$tmp/I.err'"
echo "1..$n"
