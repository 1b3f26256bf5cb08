#!/bin/sh
# tests/e2e/progress.sh: what a build says while it runs and when it ends,
# with the simulated worker (a test double). Every step prints
# "[done/N] kind path": done counts up by one; N is the whole build, a
# guess marked '~' ("[3/~120]") until the profiles are in, then the steps
# known (it goes up no more), never behind done, and it ends equal to
# done (issue 44: it was the steps found stale so far, nearly always
# done + 1). On a terminal (a pty here)
# the one status line adds "(elapsed[, about T left])", the time left once
# a few steps have run. The build closes with
# "N steps ran in m:ss" and a line per target: its models' verdicts, the
# geomean (report.json's) and where the report is. -n says the steps known
# now and that more follow the profiles; the build then runs more than -n
# listed. After an interrupted build, -n of the target lists every stitch
# that -n of its models lists. Prints TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
KOPT_WORKER=$top_builddir/tests/sim-worker
export KOPT_WORKER
# its model files are "# sim:" lines, read by a TEST DOUBLE of the worker's Python
KOPT_PYTHON=$top_srcdir/tests/sim-python
export KOPT_PYTHON
unset KOPT_LAUNCHER KOPT_TRUST_ENV KOPT_SIM_DELAY_MS 2>/dev/null || true
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-progress-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$3" 2>/dev/null | head -20 || true; fi; }

spec() {
	mkdir -p "$1/models"
	for m in a b c; do printf '# model %s\nimport torch\n' "$m" > "$1/models/$m.py"; done
	cat > "$1/s.kopt" <<'EOF'
device sim { gpus = 1  timeout = 60s }
agents default { budget = 2  hot = 0.05  seed = 1 }
gates strict { seeds = 2  gamma = 1.03 }
defaults { device = sim  agents = default  gates = strict }
models m = glob("models/*.py") { }
target all = [m]
EOF
}
d=$tmp/p
spec "$d"
(cd "$d" && "$KOPTMAKE" -n > n.out 2>&1) || true
last=$(tail -n 1 "$d/n.out")
listed=$(grep -c -v 'would run' "$d/n.out" || true)
check "-n: the steps known now, and that more follow the profiles ($last)" \
	"echo '$last' | grep -q '^$listed steps would run, as known now; more follow once the 3 profile steps among them have run'" "$d/n.out"

(cd "$d" && KOPT_SIM_DELAY_MS=60 "$KOPTMAKE" > out 2> err) || true
grep '^\[' "$d/out" > "$tmp/lines" || true
# guessed: the lines whose N is a guess ('~'); once the profiles are in, N
# is the whole build: it never goes up again (up: how often it did)
awk '
	{ if (match($0, /^\[[0-9]+\/~?[0-9]+\] [a-z]+ [^ ]+$/) == 0) bad++
	  split(substr($1, 2), f, "/"); done = f[1] + 0; g = (substr(f[2], 1, 1) == "~"); sub(/^~/, "", f[2])
	  total = f[2] + 0
	  if (done != NR) bad++; if (done > total) over++
	  if (g) { guessed++; if (known) late++; first_guess = first_guess ? first_guess : total }
	  else { if (known && total > prev) up++; if (!known) { known = NR; known_n = total; known_done = done } }
	  if ($2 == "profile") last_profile = NR
	  prev = total }
	END { printf "%d %d %d %d %d %d %d %d %d %d %d\n", NR, bad + 0, over + 0, (done == total), guessed + 0, late + 0,
	      up + 0, known + 0, known_n + 0, known_done + 0, first_guess + 0 }' "$tmp/lines" > "$tmp/stats"
read -r nlines bad over ends guessed late up known known_n known_done first_guess < "$tmp/stats"
check "a log gets a line a step, [done/N] or [done/~N] kind path, as scripts read it ($bad malformed of $nlines)" "[ $nlines -gt 0 ] && [ $bad -eq 0 ]" "$tmp/lines"
check "N never falls behind done ($over)" "[ $over -eq 0 ]" "$tmp/lines"
check "the last line's done equals its N" "[ $ends -eq 1 ]" "$tmp/lines"
# issue 44: N was the steps found stale so far, nearly always done + 1
check "before the profiles are in, N is a guess ($guessed lines), marked '~', that counts the chains to come (first: ~$first_guess, more than the 10 captures, profiles, stitches and report)" \
	"[ $guessed -ge 6 ] && [ $first_guess -gt 10 ]" "$tmp/lines"
check "once they are in ($known_done done), N is the whole build: ${known_n}, against $nlines run, and never goes up again ($up times), never a guess again ($late)" \
	"[ $known -gt 0 ] && [ $known_n -ge $nlines ] && [ $known_n -gt \$((known_done + 1)) ] && [ $up -eq 0 ] && [ $late -eq 0 ]" "$tmp/lines"
# on a terminal: one status line, with the time so far and the time left
rm -rf "$d/.kopt" "$d/kopt-out"
python3 - "$KOPTMAKE" "$d" > "$tmp/tty" 2>&1 <<'PY' || true
import os, pty, re, subprocess, sys
m, s = pty.openpty()
# (a worker slow to start: more than a second has passed when the first
# steps end, so that only the count of steps done holds the guess back)
env = dict(os.environ, TERM="xterm", KOPT_SIM_DELAY_MS="60", KOPT_SIM_START_MS="1100")
# the output a terminal, the input not: the status line follows the output
p = subprocess.Popen([sys.argv[1]], cwd=sys.argv[2], stdin=subprocess.DEVNULL, stdout=s, stderr=s, env=env,
                     close_fds=True)
os.close(s)
out = b""
while True:
    try:
        data = os.read(m, 65536)
    except OSError:
        break
    if not data:
        break
    out += data
p.wait()
segs = [x.replace("\x1b[K", "") for x in re.split(r"[\r\n]+", out.decode())]
status = [x for x in segs if x.startswith("[")]
pat = re.compile(r"^\[\d+/~?\d+\] [a-z]+ \S+ \(\d+:\d\d(, about \d+:\d\d left)?\)$")
bad = [x for x in status if not pat.match(x)]
# the time left is a guess from the steps done: none before three
early = [x for x in status if ", about " in x and int(x[1:].split("/")[0]) < 3]
print("status", len(status), "bad", len(bad), "left", sum(", about " in x for x in status),
      "erased", out.count(b"\x1b[K"), "closing", sum(x.startswith("koptmake: all: ") for x in segs),
      "early", len(early))
for x in bad[:5]:
    print("# bad:", x)
PY
read -r _ tstatus _ tbad _ tleft _ tcr _ tclosing _ tearly < "$tmp/tty" || true
# (each state redrawn over the last: a carriage return and an erase to
# the line's end; the terminal's own carriage returns at each newline are
# not counted)
check "an output to a terminal (the input from /dev/null) gets one status line redrawn ($tstatus states, $tcr erased)" "[ \"\${tstatus:-0}\" -gt 10 ] && [ \"\${tcr:-0}\" -ge \"\${tstatus:-1}\" ]" "$tmp/tty"
check "... each [done/N] kind path (elapsed[, about T left]) ($tbad malformed)" "[ \"\${tbad:-1}\" -eq 0 ]" "$tmp/tty"
check "... the time left shows once steps have run ($tleft times)" "[ \"\${tleft:-0}\" -gt 0 ]" "$tmp/tty"
check "... never before three steps are done ($tearly times)" "[ \"\${tearly:-1}\" -eq 0 ]" "$tmp/tty"
check "... and the closing lines follow" "[ \"\${tclosing:-0}\" -eq 1 ]" "$tmp/tty"
check "the build runs more than -n listed before the profiles ($nlines > $listed)" "[ $nlines -gt $listed ]"
ran=$(sed -n 's/^koptmake: \([0-9]*\) steps ran in [0-9]*:[0-9][0-9]$/\1/p' "$d/out")
check "closing: 'N steps ran in m:ss', N the lines printed ($ran)" "[ \"$ran\" = $nlines ]" "$d/out"
geo=$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["geomean_speedup"])' "$d/kopt-out/all/report.json")
line=$(grep '^koptmake: all: ' "$d/out" || true)
check "closing: the target's verdicts, geomean and report ($line)" \
	"echo '$line' | grep -Eq '^koptmake: all: 3 models: [0-3] optimized, [0-3] baseline kept; geomean $geo""x over torch.compile; kopt-out/all/report.md\$' && [ -f $d/kopt-out/all/report.md ]" "$d/out"
opt=$(echo "$line" | sed -n 's/.*models: \([0-9]\) optimized, \([0-9]\) baseline.*/\1 \2/p')
check "closing: the verdicts add up to the models ($opt)" "[ \$(echo $opt | awk '{print \$1 + \$2}') -eq 3 ]"
(cd "$d" && "$KOPTMAKE" > out2 2>&1) || true
check "a null build: nothing to do, and no closing summary" "[ \"\$(cat $d/out2)\" = 'koptmake: nothing to do' ]" "$d/out2"
(cd "$d" && "$KOPTMAKE" -n > n2.out 2>&1) || true
check "-n after it: exactly '0 steps would run'" "[ \"\$(cat $d/n2.out)\" = '0 steps would run' ]" "$d/n2.out"

# half built: whatever point the interruption comes at, -n of the target
# lists the stitches -n of its models lists (it once left ready ones out)
d=$tmp/h
spec "$d"
(cd "$d" && KOPT_SIM_DELAY_MS=80 "$KOPTMAKE" > out 2>&1) &
pid=$!
for _ in $(seq 200); do [ "$(cat "$d/out" 2>/dev/null | grep -c '^\[' || true)" -ge 20 ] && break; sleep 0.05; done
kill -INT "$pid" 2>/dev/null || true
wait "$pid" || true
(cd "$d" && "$KOPTMAKE" -n all | grep '^stitch ' | sort > st_all; "$KOPTMAKE" -n m/a m/b m/c | grep '^stitch ' | sort > st_models) || true
check "half built ($(grep -c '^\[' "$d/out") steps done): -n all lists the stitches -n MODELS lists ($(wc -l < "$d/st_models"))" \
	"cmp -s $d/st_all $d/st_models" "$d/st_all"
echo "1..$n"
