#!/bin/sh
# tests/e2e/spec-secrets.sh: a spec reads no file outside its folder and
# shows no secret (lang/paths.c), with the simulated worker (a TEST
# DOUBLE) for the build.
#   - include, source and glob() outside the spec's folder (`..`, an
#     absolute path, a link inside that points out) are refused, the
#     message naming --allow-root; --allow-root=DIR and allow_roots allow
#     a folder; an included file that is no spec by its name (a .env, or a
#     link named *.kopt to one) is never read, and its lines never shown;
#   - a top file that is no spec by its name shows none of its text;
#   - a canary value in variables named like secrets (*_PASS, *_PWD,
#     *_DSN, *_COOKIE, ...) and in one a key_env names, read with env()
#     into other fields, appears in no message ("***" where it would),
#     and in nothing a build writes: stdout, stderr, the build log,
#     kopt-out/, the cache, the workers' logs and environment;
#   - a variable named like a secret that the defaults' public_env lists
#     is read by env() as any other; one it does not list is refused.
set -eu
. "$top_srcdir/tests/e2e/sim-env.sh" spec-secrets
KOPT_SIM_ENV_LOG=$tmp/env.log
export KOPT_SIM_ENV_LOG

canary=cAnArY-7f3e91d0b2
mkdir -p proj/models outside
printf 'OPENAI_API_KEY=%s\nDB_PASS="%s"\n' "$canary" "$canary" >.env
printf '# model\nimport torch\n# sim: kernels 1\n' >proj/models/m.py
cp proj/models/m.py outside/o.py
printf 'device sim { gpus = 1 }\n' >outside/common.kopt
ln -s "$tmp/.env" proj/evil.kopt
ln -s "$tmp/outside/o.py" proj/models/link.py
run() { rc=0; (cd proj && "$KOPTMAKE" "$@") >out 2>err || rc=$?; }
flag="outside the spec's folder (--allow-root=DIR, or allow_roots in the defaults block, allows a folder outside it)"

# paths
for p in '../.env' "$tmp/outside/common.kopt" '../outside/common.kopt'; do
	printf 'include "%s"\n' "$p" >proj/Koptfile
	run -t check
	check "include '$p' is refused, the message naming the flag" \
		"[ $rc -eq 2 ] && grep -qF \"include '$p' is $flag\" err && ! grep -q '$canary' err"
done
printf 'model m { source = "models/link.py" }\n' >proj/Koptfile
run -t check
check "a link inside the folder that points out is refused as a source" "[ $rc -eq 2 ] && grep -qF \"source 'models/link.py' is $flag\" err"
printf 'models g = glob("../outside/*.py")\n' >proj/Koptfile
run -t check
check "a glob that matches outside is refused" "[ $rc -eq 2 ] && grep -qF \"glob's match '../outside/o.py' is $flag\" err"
printf 'include "../outside/common.kopt"\nmodels g = glob("../outside/*.py")\nmodel l { source = "models/link.py" }\n' >proj/Koptfile
run --allow-root="$tmp/outside" -t dump
check "--allow-root=DIR allows them" "[ $rc -eq 0 ] && grep -q '^model \"g/o\" ' out && grep -q '^model l ' out"
printf 'defaults { allow_roots = ["../outside"] }\ninclude "../outside/common.kopt"\nmodel l { source = "models/link.py" }\n' >proj/Koptfile
run -t dump
check "... and so does allow_roots in the defaults block" "[ $rc -eq 0 ] && grep -q '^device sim ' out"
run --allow-root=nowhere -t check
check "--allow-root of no folder is a usage error" "[ $rc -eq 2 ] && grep -q \"allow-root: 'nowhere' is not a folder\" err"
for p in '../.env' 'evil.kopt'; do
	printf 'include "%s"\n' "$p" >proj/Koptfile
	run --allow-root="$tmp" -t check
	check "include '$p' (allowed folder): not a spec, not read, none of its text shown" \
		"[ $rc -eq 2 ] && grep -q \"include '$p' is not a spec\" err && ! grep -q '$canary' err out && ! grep -q DB_PASS err"
done
cp .env proj/spec.env
run -f spec.env -t check
check "a top file that is no spec by its name: an error, none of its text shown" \
	"[ $rc -eq 2 ] && grep -q 'spec.env: error: [0-9]* diagnostics\? in a file that does not look like a spec' err && ! grep -q '$canary' err out && ! grep -q DB_PASS err"

# secrets in messages: each value read through env() into fields that echo it
export DB_PASS=$canary MY_SERVICE_PWD=$canary SENTRY_DSN=$canary SESSION_COOKIE=$canary KOPT_MY_LLM_ACCESS=$canary
cat >proj/Koptfile <<'SPEC'
a = env("DB_PASS")
b = env("MY_SERVICE_PWD")
c = env("SENTRY_DSN")
d = env("SESSION_COOKIE")
e = env("KOPT_MY_LLM_ACCESS")
agents x { budget = 1  coder = llm("openai", model = "m", key_env = "KOPT_MY_LLM_ACCESS") }
model m { source = "${a}/m.py"  variant v { mode = b  aten_fallback = ["aten.${c}"] } }
models g = glob("models/${d}*.py")
model n { source = e }
SPEC
run -t check
check "env() of each secret is an error, naming the variable" \
	"[ $rc -eq 2 ] && [ \$(grep -c 'would keep a secret in the cache' err) -eq 5 ] && grep -q 'env(\"KOPT_MY_LLM_ACCESS\")' err"
check "the canary value appears in no message (*** stands for it)" \
	"! grep -q '$canary' err out && grep -qF \"cannot read source '***/m.py'\" err && grep -qF \"unknown compile mode '***'\" err"
# the defaults' public_env says a value is meant to be kept: env() reads
# each name it lists (the first and the last here) as any variable, and
# the dump shows their values; a secret-looking name it leaves out is
# still refused. (Under the sanitizers, a name of the list the loader
# does not free fails the run.)
export PUBLIC_TOKEN_DIR=models PUBLIC_SECRET_STEM=m
cat >proj/Koptfile <<'SPEC'
dir = env("PUBLIC_TOKEN_DIR")
stem = env("PUBLIC_SECRET_STEM")
defaults { public_env = ["PUBLIC_TOKEN_DIR", "DB_PASS", "PUBLIC_SECRET_STEM"] }
model m { source = "${dir}/${stem}.py" }
SPEC
run -t dump
check "public_env: env() reads the secret-looking names it lists, the first and the last, and the dump shows their values" \
	"[ $rc -eq 0 ] && grep -qF 'source = \"models/m.py\"' out && [ ! -s err ]"
printf 'dir = env("PUBLIC_TOKEN_DIR")\nstem = env("PUBLIC_SECRET_STEM")\ndefaults { public_env = ["PUBLIC_TOKEN_DIR"] }\nmodel m { source = "${dir}/${stem}.py" }\n' >proj/Koptfile
run -t dump
check "... a secret-looking name it does not list is refused" \
	"[ $rc -eq 2 ] && grep -q 'env(\"PUBLIC_SECRET_STEM\") would keep a secret in the cache' err && [ \$(grep -c 'would keep a secret' err) -eq 1 ]"
unset PUBLIC_TOKEN_DIR PUBLIC_SECRET_STEM

# a build with the canary in koptmake's environment: nowhere in what it
# writes (KOPT_MY_LLM_ACCESS is no secret to a spec whose key_env does not
# name it: the workers would get it)
unset KOPT_MY_LLM_ACCESS
cat >proj/Koptfile <<'SPEC'
device sim { gpus = 1  timeout = 30s }
agents default { budget = 2  hot = 0.05  seed = 1  backend = builtin }
defaults { device = sim  agents = default }
model m { source = "models/m.py" }
target all = [m]
SPEC
# workers are asked for them by name: the secret rule still keeps them out
KOPT_WORKER_ENV='DB_PASS MY_SERVICE_PWD SENTRY_DSN SESSION_COOKIE' run all
check "a build with secrets in its environment ends well" "[ $rc -eq 0 ] && [ -f proj/kopt-out/all/report.md ] && [ -s '$tmp/env.log' ]"
check "... and the canary is in none of its output, log, cache, reports or workers' logs" \
	"! grep -rq '$canary' out err proj/.kopt proj/kopt-out"
check "... nor in a worker's environment (*_PASS, *_PWD, *_DSN, *_COOKIE)" \
	"! grep -q '$canary' '$tmp/env.log' && ! grep -q '^DB_PASS=\\|^MY_SERVICE_PWD=\\|^SENTRY_DSN=' '$tmp/env.log'"
# the remote cache's secret, its password part (user:PASS), its bearer
# token or the whole of it (neither), shows nowhere, even where the
# cache's own URL holds it: the warning of a server that does not answer names the URL, with *** there
printf 'device sim { gpus = 1 }\nmodel m { source = "models/m.py" }\n' >proj/Koptfile
for auth in "kopt:pw-$canary" "Bearer tok-$canary" "key-$canary"; do
	secret=${auth#kopt:}
	secret=${secret#Bearer }
	rm -rf proj/.kopt proj/kopt-out
	KOPT_REMOTE_CACHE_AUTH=$auth
	export KOPT_REMOTE_CACHE_AUTH
	run --remote-cache="http://127.0.0.1:9/c-$secret" m
	unset KOPT_REMOTE_CACHE_AUTH
	check "remote cache auth '${auth%%-*}-...': its secret in the cache's URL shows as *** in the warning, and the build goes on" \
		"[ $rc -eq 0 ] && grep -q 'remote cache http://127.0.0.1:9/c-\\*\\*\\*: ' err && ! grep -rq '$canary' out err proj/.kopt proj/kopt-out" err
done
echo "1..$n"
