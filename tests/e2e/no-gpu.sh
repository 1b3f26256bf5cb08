#!/bin/sh
# tests/e2e/no-gpu.sh: the README's run command on a machine that cannot
# run the GPU path (no driver, no GPU, or no torch): the worker says why in
# one line, and `koptmake -C examples all` prints at most 5 lines that name
# the missing pieces and exits 1, with -k too, and when no probe runs first
# (KOPT_TRUST_ENV=1); such a run leaves no .kopt/; a copy whose softmax
# model lost a colon exits 2 naming its file and line, before any worker
# starts. First with a TEST DOUBLE of the worker (a shell script
# that says the line kopt-worker says, among other stderr lines, and exits
# 2), then with the real kopt-worker built here; that part skips where it is
# not built or where it starts (a GPU machine). Prints TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
W=$top_builddir/kopt-worker
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-nogpu-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset KOPT_WORKER KOPT_LAUNCHER KOPT_TRUST_ENV KOPT_PYTHON 2>/dev/null || true
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$3" 2>/dev/null || true; fi; }

# the README's command, on a copy of examples/ (the source tree stays clean)
mkdir "$tmp/examples"
cp -R "$top_srcdir/examples/examples.kopt" "$top_srcdir/examples/models" "$top_srcdir/examples/kernels" "$tmp/examples/"
{
	echo '#!/bin/sh'
	echo '# a test double of kopt-worker on a machine without a GPU'
	echo 'echo "kopt-worker: warning: something before" >&2'
	echo "echo \"kopt-worker: cannot start: no NVIDIA GPU (the driver sees none): the GPU path needs an NVIDIA GPU with its driver, and torch >= 2.6 with triton (pip install 'torch>=2.6' triton)\" >&2"
	echo 'echo "a line after" >&2'
	echo 'exit 2'
} > "$tmp/double"
chmod +x "$tmp/double"

# runs the README's command three ways, and once without the probe; $1 names the worker
run_readme() {
	for mode in "all" "-k all" "-j2 -k all"; do
		rc=0
		(cd "$top_builddir" && rm -rf "$tmp/examples/.kopt" && ./koptmake -C "$tmp/examples" $mode) > "$tmp/out" 2>&1 || rc=$?
		lines=$(wc -l < "$tmp/out")
		once=$(grep -c "worker of device 'h200' cannot start: " "$tmp/out" || true)
		check "$1: koptmake -C examples $mode: exit 1 (exit $rc)" "[ $rc -eq 1 ]" "$tmp/out"
		check "$1: koptmake -C examples $mode: at most 5 lines ($lines)" "[ $lines -ge 1 ] && [ $lines -le 5 ]" "$tmp/out"
		check "$1: koptmake -C examples $mode: names the missing pieces and how to get them, once" \
			"[ $once -eq 1 ] && grep -q torch $tmp/out && grep -q NVIDIA $tmp/out && grep -q 'pip install' $tmp/out" "$tmp/out"
		[ "$1" != "a worker double" ] ||
			check "$1: koptmake -C examples $mode: the worker's sentence whole, from its first word" \
				"grep -q \"worker of device 'h200' cannot start: no NVIDIA GPU (the driver sees none): \" $tmp/out" "$tmp/out"
		check "$1: koptmake -C examples $mode: it ran nothing and leaves no .kopt/" "[ ! -e $tmp/examples/.kopt ]" "$tmp/out"
		check "$1: koptmake -C examples $mode: no traceback, no other worker line" \
			"! grep -q -e Traceback -e 'last stderr lines' -e '  | ' -e warning -e 'a line after' $tmp/out" "$tmp/out"
	done
	# no probe first: the first step's worker says it, once, and the build stops, -k or not
	rc=0
	(cd "$top_builddir" && rm -rf "$tmp/examples/.kopt" && KOPT_TRUST_ENV=1 ./koptmake -C "$tmp/examples" -k all) > "$tmp/out" 2>&1 || rc=$?
	lines=$(wc -l < "$tmp/out")
	once=$(grep -c "worker of device 'h200' cannot start: " "$tmp/out" || true)
	check "$1: without the probe (KOPT_TRUST_ENV=1) -k: exit 1, at most 5 lines ($lines), said once, with the device ($once)" \
		"[ $rc -eq 1 ] && [ $lines -le 5 ] && [ $once -eq 1 ]" "$tmp/out"
	check "$1: a run that runs nothing leaves no .kopt/" "[ ! -e $tmp/examples/.kopt ]" "$tmp/out"
	# a broken model file: said at its file and line before any worker
	# starts (the model files are read with the worker's Python's parser)
	if [ -n "$py" ]; then
		rm -rf "$tmp/broken"
		cp -R "$tmp/examples" "$tmp/broken"
		sed -i 's/^    def forward(self, x):$/    def forward(self, x)/' "$tmp/broken/models/softmax.py"
		line=$(grep -n '    def forward(self, x)$' "$tmp/broken/models/softmax.py" | cut -d: -f1)
		rc=0
		(cd "$top_builddir" && ./koptmake -C "$tmp/broken" all) > "$tmp/out" 2>&1 || rc=$?
		check "$1: a model file with a syntax error: exit 2 ($rc), its file and line $line named, nothing run" \
			"[ $rc -eq 2 ] && grep -q '^models/softmax.py:$line:[0-9]*: error: syntax error: ' $tmp/out && ! grep -q 'cannot start' $tmp/out && [ ! -e $tmp/broken/.kopt ]" "$tmp/out"
	else
		n=$((n + 1)); echo "ok $n # SKIP configure found no Python to read the model files with"
	fi
}
py=$(sed -n 's/^#define KOPT_PYTHON "\(.*\)"$/\1/p' "$top_builddir/config.h")
{ [ -n "$py" ] && [ "$py" != : ] && command -v "$py" >/dev/null 2>&1; } || py=

KOPT_WORKER=$tmp/double
export KOPT_WORKER
run_readme "a worker double"
unset KOPT_WORKER

rc=0
if [ -x "$W" ]; then TMPDIR=$tmp "$W" < /dev/null > "$tmp/w.out" 2> "$tmp/w.err" || rc=$?; fi # its scratch folder goes to $tmp
if [ ! -x "$W" ]; then
	n=$((n + 1)); echo "ok $n # SKIP kopt-worker is not built here (configure's summary says why)"
elif ! grep -q '^kopt-worker: cannot start: ' "$tmp/w.err"; then
	n=$((n + 1)); echo "ok $n # SKIP kopt-worker starts here (exit $rc): this machine can run the GPU path"
else
	check "kopt-worker: exits 2 and says nothing on the protocol's stdout" "[ $rc -eq 2 ] && [ ! -s $tmp/w.out ]" "$tmp/w.err"
	check "kopt-worker: its last line names what is missing and how to get it" \
		"tail -n 1 $tmp/w.err | grep -q 'cannot start: .*: the GPU path needs an NVIDIA GPU .*torch >= 2.6 with triton'" "$tmp/w.err"
	check "kopt-worker: no traceback" "! grep -q Traceback $tmp/w.err" "$tmp/w.err"
	# an interpreter that is not there is said as one, not as one without torch (issue 44)
	rc=0
	TMPDIR=$tmp KOPT_PYTHON=/nonexistent "$W" < /dev/null > "$tmp/w.out" 2> "$tmp/w.err" || rc=$?
	check "kopt-worker, KOPT_PYTHON=/nonexistent: exit 2, 'cannot start: no Python at' it, nothing of torch" \
		"[ $rc -eq 2 ] && tail -n 1 $tmp/w.err | grep -q \"^kopt-worker: cannot start: no Python at '/nonexistent' (KOPT_PYTHON names it)\" && ! grep -q 'no torch' $tmp/w.err" "$tmp/w.err"
	# the README's command exactly: the worker beside koptmake
	run_readme "kopt-worker"
fi
echo "1..$n"
