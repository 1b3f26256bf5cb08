#!/bin/sh
# tests/e2e/seal.sh: the seals on kopt-out/ (engine/seal.h,
# runtime/python/kopt/seal.py), with the examples built by the simulated
# worker (a TEST DOUBLE). koptmake seals what kopt.backend loads with a key
# it makes on first use (mode 0600); Python's own HMAC checks koptmake's
# seals; a table whose kernel source or config is altered after the build,
# one without its seal and one sealed with another key are refused by
# kopt.backend before anything is compiled (the kernel loader is never
# called and the altered source's payload never runs), naming the file;
# so are another model's table and seal copied or linked into a model's
# folder (a seal names its folder below kopt-out/) and a version 1 seal;
# the next build restores the file and its seal, and seals anew under a
# new key; kopt.helion_config refuses an altered helion.json.
# Needs python3 (no torch: the check comes before any import of it).
set -eu
. "$top_srcdir/tests/e2e/sim-env.sh" seal

XDG_CONFIG_HOME=$tmp/config
export XDG_CONFIG_HOME
unset KOPT_SEAL_KEY 2>/dev/null || true
key=$XDG_CONFIG_HOME/koptmake/seal.key
mkdir -p ex
(cd "$top_srcdir/examples" && tar cf - --exclude=.kopt --exclude=kopt-out .) | (cd ex && tar xf -)
build() { rc=0; "$KOPTMAKE" -C ex -k all >build.out 2>build.err || rc=$?; }

build
check "the build makes the seal key, mode 0600" \
	"[ $rc -eq 0 ] && [ \"\$(stat -c %a '$key')\" = 600 ] && grep -qx '[0-9a-f]\\{64\\}' '$key'"
check "every model's folder has its seal.json" \
	"[ \$(ls ex/kopt-out/*/substitutions.json | wc -l) -eq \$(ls ex/kopt-out/*/seal.json | wc -l) ]"

# load DIR: what kopt.backend makes of kopt-out/DIR, with the kernel
# loader replaced by one that says it was called: "loaded N", or the error
load() {
	PYTHONPATH=$top_srcdir/runtime/python${PYTHONPATH:+:$PYTHONPATH} python3 - "ex/kopt-out/$1" <<'PY' 2>&1
import sys
import kopt
from kopt import kernels, seal
def called(*a, **k):
    print("the kernel loader was called")
    raise SystemExit(3)
kernels.load_kernel = called
try:
    b = kopt.backend(sys.argv[1])
    print("loaded", len(b.table.kernels))
except seal.SealError as e:
    print("SealError:", e)
PY
}
m=row_sum
check "koptmake's seal holds under Python's HMAC: kopt.backend loads the table" \
	"load $m | grep -q '^loaded [1-9]'"

# a kernel whose source is altered after the build: a payload that would
# leave a mark if it were ever compiled or run
cp ex/kopt-out/$m/substitutions.json good.json
python3 - ex/kopt-out/$m/substitutions.json "$tmp/ran" <<'PY'
import json, sys
p, mark = sys.argv[1], sys.argv[2]
d = json.load(open(p))
k = next(iter(d["kernels"].values()))
k["source"] = f"import os\nopen({mark!r}, 'w').write('ran')\n@triton.jit\ndef {k['kernel']}(in_ptr0): pass\n"
json.dump(d, open(p, "w"), indent=2, sort_keys=True)
PY
load $m >load.out
check "an altered kernel source is refused by kopt.backend, loudly, naming the file" \
	"grep -q '^SealError: kopt: ex/kopt-out/$m/substitutions.json does not match its seal' load.out && grep -q 'nothing from it is loaded' load.out"
check "... before anything is compiled or run" "! grep -q 'loader was called' load.out && [ ! -e '$tmp/ran' ]"
r=$(PYTHONPATH=$top_srcdir/runtime/python${PYTHONPATH:+:$PYTHONPATH} python3 -c 'import kopt, sys
try:
    kopt.backend_for({"dir": sys.argv[1]})
except Exception as e:
    print(type(e).__name__)' ex/kopt-out/$m)
check "... by backend=\"kopt\" too (options={'dir': ...})" "[ '$r' = SealError ]"

cp good.json ex/kopt-out/$m/substitutions.json
sed -i 's/"num_warps": \([0-9]*\)/"num_warps": 1\1/' ex/kopt-out/$m/substitutions.json
check "a launch config altered alone is refused" \
	"! cmp -s good.json ex/kopt-out/$m/substitutions.json && load $m | grep -q '^SealError: .*does not match its seal'"
cp good.json ex/kopt-out/$m/substitutions.json
KOPT_SEAL_KEY=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff load $m >load.out
check "under another key the table is refused, and the error says so" \
	"grep -q 'sealed with another key than this machine.s (\$KOPT_SEAL_KEY)' load.out"
KOPT_SEAL_KEY=$(cat "$key") load $m >load.out
check "KOPT_SEAL_KEY holding the build machine's key stands for its key file" "grep -q '^loaded' load.out"
chmod 644 "$key"
check "a key file others may read is refused" "load $m | grep -q 'not a file of this user.s that only they may read'"
chmod 600 "$key"

# a seal holds for its model's folder alone: another model's table and
# seal, each sound under the key, copied or linked into this folder
check "seal.json is version 2 and names the model's folder below kopt-out/" \
	"grep -q '\"version\": 2' ex/kopt-out/$m/seal.json && grep -q '\"folder\": \"$m\"' ex/kopt-out/$m/seal.json"
cp ex/kopt-out/$m/seal.json seal.mine
cp ex/kopt-out/softmax/substitutions.json ex/kopt-out/softmax/seal.json ex/kopt-out/$m/
load $m >load.out
check "another model's sealed table and seal copied into this folder are refused, naming the folder sealed for" \
	"grep -q '^SealError: kopt: ex/kopt-out/$m/substitutions.json was sealed for kopt-out/softmax, not for' load.out"
rm ex/kopt-out/$m/substitutions.json ex/kopt-out/$m/seal.json
ln -s ../softmax/substitutions.json ex/kopt-out/$m/substitutions.json
ln -s ../softmax/seal.json ex/kopt-out/$m/seal.json
check "... and linked into it" "load $m | grep -q '^SealError: .*was sealed for kopt-out/softmax'"
rm ex/kopt-out/$m/substitutions.json ex/kopt-out/$m/seal.json
cp good.json ex/kopt-out/$m/substitutions.json
cp seal.mine ex/kopt-out/$m/seal.json
mkdir -p copies/$m copies/prod
for c in $m prod; do
	cp good.json copies/$c/substitutions.json
	cp seal.mine copies/$c/seal.json
done
r=$(PYTHONPATH=$top_srcdir/runtime/python python3 -c 'import sys, kopt.seal as S
for d in sys.argv[1:]:
    try:
        S.read_sealed(d + "/substitutions.json"); print("ok", end=" ")
    except S.SealError:
        print("SealError", end=" ")' copies/$m copies/prod)
check "a copy of the folder under the model's name loads; under another name it is refused" "[ '$r' = 'ok SealError ' ]"
sed 's/"version": 2/"version": 1/' seal.mine >ex/kopt-out/$m/seal.json
check "a seal.json of version 1 (a seal of the file's name alone) is refused" \
	"load $m | grep -q '^SealError: .*is a seal of version 1, not 2'"
cp seal.mine ex/kopt-out/$m/seal.json
mv ex/kopt-out/$m/seal.json seal.keep
check "a table without its seal is refused" "load $m | grep -q '^SealError: .*has no seal in'"

# the next build writes the seal again, and the table from its cache
sed -i 's/"num_warps": \([0-9]*\)/"num_warps": 1\1/' ex/kopt-out/$m/substitutions.json
build
check "the next build restores the table and its seal: kopt.backend loads it" \
	"[ $rc -eq 0 ] && cmp -s good.json ex/kopt-out/$m/substitutions.json && cmp -s seal.keep ex/kopt-out/$m/seal.json && load $m | grep -q '^loaded'"
touch -d '2000-01-01' ex/kopt-out/$m/seal.json
build
check "a null build leaves a seal that holds as it is" \
	"[ \$(stat -c %Y ex/kopt-out/$m/seal.json) -eq \$(date -d 2000-01-01 +%s) ]"
mv "$key" old.key
build
check "a new key (the old one removed): the next build seals every table anew" \
	"[ $rc -eq 0 ] && ! cmp -s old.key '$key' && ! cmp -s seal.keep ex/kopt-out/$m/seal.json && load $m | grep -q '^loaded' && load softmax | grep -q '^loaded'"

# helion.json, which kopt.helion_config reads (made here, sealed as koptmake does)
mkdir -p ex/kopt-out/hk
printf '{"kernels": {"softmax": {"config": {"block_sizes": [4]}}}, "model": "hk"}\n' >ex/kopt-out/hk/helion.json
PYTHONPATH=$top_srcdir/runtime/python${PYTHONPATH:+:$PYTHONPATH} python3 - ex/kopt-out/hk >helion.out 2>&1 <<'PY' || true
import json, os, sys, types
import kopt
from kopt import seal
k, _ = seal.key()
seal.write(sys.argv[1], ["helion.json"], k)
sys.modules["helion"] = types.SimpleNamespace(Config=lambda **c: c)   # a stand-in: nothing of Helion's runs
print(kopt.helion_config(sys.argv[1], "softmax"))
p = os.path.join(sys.argv[1], "helion.json")
open(p, "w").write(open(p).read().replace("[4]", "[8]"))
try:
    kopt.helion_config(sys.argv[1], "softmax")
except seal.SealError as e:
    print("SealError:", e)
PY
check "kopt.helion_config reads a sealed helion.json, and refuses it altered" \
	"grep -q \"{'block_sizes': \\[4\\]}\" helion.out && grep -q 'SealError: kopt: .*helion.json does not match its seal' helion.out"
echo "1..$n"
