#!/bin/sh
# tests/e2e/modelcheck.sh: a broken model file is caught before anything
# runs (issue 44). `-t check`, `-n` and every build read each model file
# with the worker's Python's own parser (rules/modelcheck.py, no torch):
# a syntax error is said at its file, line and column in the interpreter's
# words, an empty file or one without Model, get_inputs or get_init_inputs
# (a Triton kernel file: launch, reference, get_inputs; a Helion file:
# reference, get_inputs, a @helion.kernel function, launch with several)
# is said at its file, each with a note at the declaration; the exit is 2,
# no worker starts and no .kopt/ is made. -t check says "ok: N models, N
# targets" when all is well. A missing interpreter is said as one
# (KOPT_PYTHON=/nonexistent: a build exits 1; -t check and -n warn). Then, against the simulated worker and
# tests/sim-python (TEST DOUBLES): a build reads only the files it has not
# read before with that interpreter, so a null build starts no Python; an
# interpreter that fails is said, exit 1. Prints TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
unset KOPT_PYTHON KOPT_LAUNCHER KOPT_TRUST_ENV KOPT_SIM_DELAY_MS 2>/dev/null || true
KOPT_WORKER=$top_builddir/tests/sim-worker
export KOPT_WORKER
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-modelcheck-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$3" 2>/dev/null | head -20 || true; fi; }
km() { rc=0; (cd "$d" && "$KOPTMAKE" "$@") > "$tmp/out" 2> "$tmp/err" || rc=$?; }

d=$tmp/p
mkdir -p "$d/models" "$d/kernels" "$d/helion"
good() {
	cat <<'EOF'
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return x * 2


def get_inputs():
    return [torch.randn(4)]


def get_init_inputs():
    return []
EOF
}
good > "$d/models/a.py"
good > "$d/models/b.py"
cat > "$d/kernels/k.py" <<'EOF'
import triton
from .common import launch  # an import defines a name too
def reference(x):
    return x
def get_inputs():
    return []
EOF
cat > "$d/helion/h.py" <<'EOF'
import helion
@helion.kernel(config=helion.Config(block_sizes=[4]))
def soft(x):
    return x
def reference(x):
    return x
def get_inputs():
    return []
EOF
cat > "$d/s.kopt" <<'EOF'
device sim { gpus = 1  timeout = 60s }
agents default { budget = 1  hot = 0.05  seed = 1 }
gates strict { seeds = 2 }
defaults { device = sim  agents = default  gates = strict }
models m = glob("models/*.py") { }
kernel k { source = "kernels/k.py" }
helion h { source = "helion/h.py" }
target all = [m, k, h]
target one = ["m/a"]
EOF

py=$(sed -n 's/^#define KOPT_PYTHON "\(.*\)"$/\1/p' "$top_builddir/config.h")
if [ -z "$py" ] || [ "$py" = : ] || ! command -v "$py" >/dev/null 2>&1; then
	n=$((n + 1)); echo "ok $n # SKIP configure found no Python to read the model files with"
else
	km -t check
	check "-t check on good files: exit 0, 'ok: 4 models, 2 targets'" \
		"[ $rc -eq 0 ] && grep -qx 'koptmake: check: ok: 4 models, 2 targets' $tmp/out" "$tmp/err"

	# a forward missing its colon, in the interpreter's words, at its place
	good | sed 's/    def forward(self, x):/    def forward(self, x)/' > "$d/models/b.py"
	for mode in "-t check" "-n" "all" "-k all"; do
		km $mode
		check "$mode: a missing colon: exit 2, at models/m/b's file, line 5, in Python's words" \
			"[ $rc -eq 2 ] && grep -q '^models/b.py:5:[0-9]*: error: syntax error: ' $tmp/err" "$tmp/err"
		check "$mode: the source line with a caret, and a note at the declaration" \
			"grep -qx '    def forward(self, x)' $tmp/err && grep -q '^s.kopt:5:1: note: model .m/b. reads it' $tmp/err" "$tmp/err"
		check "$mode: nothing ran, no .kopt/ made, no worker started" \
			"[ ! -e $d/.kopt ] && ! grep -q '^\\[' $tmp/out && ! grep -q 'would run' $tmp/out" "$tmp/out"
	done
	check "the closing count names the model files" "grep -qx 'koptmake: 1 error in the model files; nothing was run' $tmp/err" "$tmp/err"
	km one
	check "a build of a target without the broken file runs (exit $rc)" "[ $rc -eq 0 ] && [ -f $d/kopt-out/one/report.json ]" "$tmp/err"
	rm -rf "$d/.kopt" "$d/kopt-out"

	good | sed 's/^def get_inputs/  def get_inputs/' > "$d/models/b.py"
	km -t check
	check "an indentation error is said as one (exit $rc)" \
		"[ $rc -eq 2 ] && grep -q '^models/b.py:9:[0-9]*: error: indentation error: ' $tmp/err" "$tmp/err"
	: > "$d/models/b.py"
	km -t check
	check "an empty file: exit 2, said at the file with what it must define" \
		"[ $rc -eq 2 ] && grep -qx 'models/b.py: error: empty file (a KernelBench model file defines Model, get_inputs and get_init_inputs)' $tmp/err" "$tmp/err"
	good | sed 's/^def get_inputs/def get_inputz/' > "$d/models/b.py"
	km -t check
	check "a file without get_inputs: exit 2, named" \
		"[ $rc -eq 2 ] && grep -qx 'models/b.py: error: no get_inputs at the top level (a KernelBench model file defines Model, get_inputs and get_init_inputs)' $tmp/err" "$tmp/err"
	printf 'from common import *\n' > "$d/models/b.py"
	km -t check
	check "a star import may define them: no error (exit $rc)" "[ $rc -eq 0 ]" "$tmp/err"
	good > "$d/models/b.py"

	sed -i 's/^from .common import launch.*$/import triton.language as tl/' "$d/kernels/k.py"
	printf 'def soft2(x):\n    return x\n' >> "$d/helion/h.py"
	km -t check
	check "a Triton kernel file without launch: named, with what it must define" \
		"[ $rc -eq 2 ] && grep -qx 'kernels/k.py: error: no launch at the top level (a Triton kernel file defines launch, reference and get_inputs)' $tmp/err && grep -q \"note: kernel 'k' reads it\" $tmp/err" "$tmp/err"
	check "... and a Helion file with one kernel needs no launch (one error in all)" \
		"! grep -q helion/h.py $tmp/err && grep -qx 'koptmake: 1 error in the model files' $tmp/err" "$tmp/err"
	sed -i 's/^def soft2/@helion.kernel\ndef soft2/' "$d/helion/h.py"
	printf 'def launch(x):\n    return x\n' >> "$d/kernels/k.py"
	km -t check
	check "a Helion file with two kernels and no launch: named" \
		"[ $rc -eq 2 ] && grep -q '^helion/h.py: error: no launch (it has 2 kernels: soft, soft2) at the top level' $tmp/err" "$tmp/err"
	sed -i 's/@helion.kernel(config=.*/import os/; /^@helion.kernel$/d' "$d/helion/h.py"
	km -t check
	check "a Helion file without a @helion.kernel function: named" \
		"[ $rc -eq 2 ] && grep -q '^helion/h.py: error: no @helion.kernel function at the top level' $tmp/err" "$tmp/err"
fi

# a missing interpreter is said as one: a build stops before anything
# runs (no worker could run either), -t check and -n, which run nothing,
# say that the files go unread
good > "$d/models/b.py"
KOPT_PYTHON=/nonexistent
export KOPT_PYTHON
nopy="no Python at '/nonexistent' (KOPT_PYTHON names it): set KOPT_PYTHON to a Python with torch >= 2.6 and triton, or unset it for configure's ('$py')"
km all
check "KOPT_PYTHON=/nonexistent, a build: exit 1, 'no Python at' it, nothing made" \
	"[ $rc -eq 1 ] && grep -qx \"koptmake: error: $nopy\" $tmp/err && [ ! -e $d/.kopt ]" "$tmp/err"
check "... and nothing of torch or triton is said" "! grep -q 'no torch' $tmp/err" "$tmp/err"
for mode in "-t check" "-n"; do
	km $mode
	check "KOPT_PYTHON=/nonexistent, $mode: exit 0, a warning that the model files are not read, and why" \
		"[ $rc -eq 0 ] && grep -qx \"koptmake: warning: the model files are not read: $nopy\" $tmp/err" "$tmp/err"
done
check "... and -t check's ok says so" "km -t check; grep -qx 'koptmake: check: ok: 4 models, 2 targets (their files not read)' $tmp/out" "$tmp/out"

# what a build reads, with the TEST DOUBLE of the interpreter
KOPT_PYTHON=$top_srcdir/tests/sim-python
KOPT_SIM_PYLOG=$tmp/pylog
export KOPT_PYTHON KOPT_SIM_PYLOG
s=$tmp/s
mkdir -p "$s/models"
for m in a b c; do printf '# model %s\n# sim: kernels 1\n' "$m" > "$s/models/$m.py"; done
cp "$d/s.kopt" "$s/s.kopt"
sed -i 's/^kernel k.*$//; s/^helion h.*$//; s/^target all = .*/target all = [m]/' "$s/s.kopt"
d=$s
km all
check "a first build reads each model file once (exit $rc)" "[ $rc -eq 0 ] && [ \$(grep -c '^pycheck torch models/' $tmp/pylog) -eq 3 ]" "$tmp/err"
: > "$tmp/pylog"
km all
check "a null build reads none: no Python starts" "[ $rc -eq 0 ] && grep -q 'nothing to do' $tmp/out && [ ! -s $tmp/pylog ]" "$tmp/pylog"
printf '# changed\n' >> "$s/models/b.py"
km all
check "a changed file is read again, alone" "[ $rc -eq 0 ] && [ \"\$(cat $tmp/pylog)\" = 'pycheck torch models/b.py' ]" "$tmp/pylog"
printf '# sim: pyerror 7 3 expected an indented block\n' >> "$s/models/c.py"
: > "$tmp/pylog"
km all
check "a file the interpreter finds wrong: exit 2 at its place, before any step" \
	"[ $rc -eq 2 ] && grep -q '^models/c.py:7:3: error: expected an indented block' $tmp/err && ! grep -q '^\\[' $tmp/out" "$tmp/err"
sed -i 's/^# sim: pyerror.*/# sim: pyfail/' "$s/models/c.py"
km all
check "an interpreter that fails: exit 1, its last line said" \
	"[ $rc -eq 1 ] && grep -q \"cannot read the model files with '.*sim-python': sim-python: failing as asked by models/c.py\" $tmp/err" "$tmp/err"
# an interpreter that closes its output and only then fails: its status
# is waited for, not taken as a success
printf '#!/bin/sh\nexec >/dev/null 2>&1\nsleep 0.3\nexit 3\n' > "$tmp/lateexit"
chmod +x "$tmp/lateexit"
printf '# changed again\n' >> "$s/models/b.py"
py=$KOPT_PYTHON
KOPT_PYTHON=$tmp/lateexit
km all
KOPT_PYTHON=$py
check "an interpreter that closes its output, then exits 3: it failed, said" \
	"[ $rc -eq 1 ] && grep -q \"cannot read the model files with '.*lateexit': it failed\" $tmp/err" "$tmp/err"
# the interpreter's last line, empty lines after it aside, at most 200 bytes
x200=$(printf '%0200d' 0 | tr 0 x)
sed -i "s/^# sim: pyfail.*/# sim: pyfail y$x200/" "$s/models/c.py"
km all
check "an interpreter's last line of 201 bytes: its first 200 said" \
	"[ $rc -eq 1 ] && grep -q \"sim-python': y\${x200%x}\$\" $tmp/err" "$tmp/err"
sed -i "s/^# sim: pyfail.*/# sim: pyfail $x200/" "$s/models/c.py"
km all
check "... of 200 bytes: all of it" "[ $rc -eq 1 ] && grep -q \"sim-python': $x200\$\" $tmp/err" "$tmp/err"
# under 200 bytes, the line whole and nothing after it: the empty line the
# interpreter wrote after it is not said
for len in 100 101 150 199; do
	xs=$(printf "%0${len}d" 0 | tr 0 x)
	sed -i "s/^# sim: pyfail.*/# sim: pyfail $xs/" "$s/models/c.py"
	km all
	check "... of $len bytes, an empty line after it: that line alone, no empty line said" \
		"[ $rc -eq 1 ] && [ \"\$(grep -c \"sim-python': $xs\$\" $tmp/err)\" = 1 ] && ! grep -qx '' $tmp/err" "$tmp/err"
done
echo "1..$n"
