#!/bin/sh
# tests/conventions/completion.sh: the bash and zsh completions of koptmake
# (tools/completion/). Bash: the script registers with `complete -p`, and
# _koptmake, called as bash calls it (COMP_WORDS, COMP_CWORD), offers the
# options, the tools of `koptmake -t list`, the debug modes, folders after
# -C, spec files after -f, and the targets and models of the spec in the
# folder (or the one -f and -C name), filtered by the word typed. Zsh (when
# zsh is here): the script parses, and its functions, run with TEST DOUBLES
# of the completion system's _arguments and _describe that print what they
# are given, offer the same tools and targets and every option --help
# names. Prints TAP.
set -eu
: "${KOPTMAKE:=$top_builddir/koptmake}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-compl-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; echo "# got: $(cat "$tmp/got" 2>/dev/null | tr '\n' ' ')"; fi; }

# a spec with models from a glob, a kernel and targets, and a second spec
mkdir -p "$tmp/proj/models" "$tmp/proj/sub"
touch "$tmp/proj/models/alpha.py" "$tmp/proj/models/beta.py" "$tmp/proj/k.py"
cat > "$tmp/proj/Koptfile" <<'EOF'
device d { gpus = 1 }
defaults { device = d }
models grp = glob("models/*.py") { }
model solo { source = "models/alpha.py" }
kernel kern { source = "k.py" }
target all = [grp, solo, kern]
target few = [solo]
EOF
cat > "$tmp/proj/other.kopt" <<'EOF'
device d { gpus = 1 }
model zeta { source = "models/beta.py" device = d }
target zall = [zeta]
EOF
bin=$tmp/bin
mkdir "$bin"
ln -s "$KOPTMAKE" "$bin/koptmake"

# complete WORDS...: the last word is the one being completed; prints COMPREPLY
cat > "$tmp/complete.bash" <<'EOF'
set -u
. "$COMPLETION"
complete -p koptmake
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
_koptmake koptmake "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort
EOF
comp() { (cd "$tmp/proj" && PATH=$bin:$PATH COMPLETION=$top_srcdir/tools/completion/koptmake.bash bash "$tmp/complete.bash" "$@") > "$tmp/got" 2>&1; }
words() { printf '%s\n' "$@" | sort; }

comp koptmake ""
check "bash: complete -p shows koptmake completed by _koptmake" "head -n 1 $tmp/got | grep -qx 'complete -F _koptmake koptmake'"
sed -i 1d "$tmp/got"
check "bash: the targets and models of the spec here" "[ \"\$(cat $tmp/got)\" = \"\$(words all few grp/alpha grp/beta kern solo)\" ]"
comp koptmake g
sed -i 1d "$tmp/got"
check "bash: filtered by the word typed" "[ \"\$(cat $tmp/got)\" = \"\$(words grp/alpha grp/beta)\" ]"
comp koptmake -f other.kopt ""
sed -i 1d "$tmp/got"
check "bash: -f names another spec" "[ \"\$(cat $tmp/got)\" = \"\$(words zall zeta)\" ]"
(cd "$tmp" && PATH=$bin:$PATH COMPLETION=$top_srcdir/tools/completion/koptmake.bash bash "$tmp/complete.bash" koptmake -C proj -k so) > "$tmp/got" 2>&1
sed -i 1d "$tmp/got"
check "bash: -C names the folder of the spec" "[ \"\$(cat $tmp/got)\" = solo ]"
comp koptmake -t ""
sed -i 1d "$tmp/got"
tools=$("$KOPTMAKE" -t list | sed -n 's/^  \([a-z]*\) .*/\1/p' | sort)
check "bash: -t offers every tool of koptmake -t list ($(echo $tools))" "[ -n \"$tools\" ] && [ \"\$(cat $tmp/got)\" = \"$tools\" ]"
comp koptmake -t q
sed -i 1d "$tmp/got"
check "bash: -t q offers query" "[ \"\$(cat $tmp/got)\" = query ]"
comp koptmake -d ""
sed -i 1d "$tmp/got"
check "bash: -d offers the debug modes" "grep -qx explain $tmp/got && grep -qx list $tmp/got"
comp koptmake -C s
sed -i 1d "$tmp/got"
check "bash: -C offers folders" "[ \"\$(cat $tmp/got)\" = sub/ ]"
comp koptmake -f o
sed -i 1d "$tmp/got"
check "bash: -f offers spec files" "[ \"\$(cat $tmp/got)\" = other.kopt ]"
comp koptmake -
sed -i 1d "$tmp/got"
# every option --help names: -X, and --NAME of '-X, --NAME[=ARG]' and '--NAME[=ARG]' lines
"$KOPTMAKE" --help > "$tmp/help"
opts=$( (sed -n 's/^  \(-[A-Za-z]\)[ ,].*/\1/p' "$tmp/help"; sed -n 's/^  -[A-Za-z], \(--[a-z-]*\).*/\1/p' "$tmp/help"
	sed -n 's/^  \(--[a-z-]*\)[= ].*/\1/p' "$tmp/help") | sort -u)
missing=
for o in $opts --help --version; do grep -qx -- "$o" "$tmp/got" || missing="$missing $o"; done
check "the options --help names include long ones ($(echo $opts | wc -w) in all)" "echo '$opts' | grep -qx -- --remote-cache && echo '$opts' | grep -qx -- --dry-run"
check "bash: every option --help names (missing:${missing:- none})" "[ -n \"$opts\" ] && [ -z \"$missing\" ]"
(cd "$tmp" && PATH=$bin:$PATH COMPLETION=$top_srcdir/tools/completion/koptmake.bash bash "$tmp/complete.bash" koptmake "") > "$tmp/got" 2>&1
sed -i 1d "$tmp/got"
check "bash: no spec here: nothing offered, nothing said" "[ ! -s $tmp/got ]"

if ! command -v zsh >/dev/null 2>&1; then
	n=$((n + 1)); echo "ok $n # SKIP no zsh here"
else
	z=$top_srcdir/tools/completion/_koptmake
	check "zsh: the script parses (zsh -n)" "zsh -n $z"
	# the completion system's functions, as test doubles that print what they get
	cat > "$tmp/complete.zsh" <<'EOF'
_arguments() { print -l -- "$@" }
_describe() { print -l -- "${(@P)${@[-1]}}" }
_call_program() { shift; "$@" }
_files() { }
_directories() { }
words=("$@")
CURRENT=$#
source "$COMPLETION" > "$ARGS_OUT"
case $words[CURRENT-1] in
(-t) _koptmake_listed tool -t ;;
(-d) _koptmake_listed mode -d ;;
(*) _koptmake_targets ;;
esac
EOF
	zcomp() { (cd "$tmp/proj" && PATH=$bin:$PATH COMPLETION=$z ARGS_OUT=$tmp/args zsh -f "$tmp/complete.zsh" "$@") > "$tmp/got" 2>&1; }
	zcomp koptmake ""
	check "zsh: the targets and models of the spec here" "[ \"\$(sort $tmp/got)\" = \"\$(words all few grp/alpha grp/beta kern solo)\" ]"
	zcomp koptmake -f other.kopt ""
	check "zsh: -f names another spec" "[ \"\$(sort $tmp/got)\" = \"\$(words zall zeta)\" ]"
	zcomp koptmake -t ""
	what=$("$KOPTMAKE" -t list | sed -n 's/^  check  *//p')
	check "zsh: -t offers every tool, with what it does (check: $what)" "[ -n \"$what\" ] && [ \"\$(cut -d: -f1 $tmp/got | sort)\" = \"$tools\" ] && grep -qxF \"check:$what\" $tmp/got"
	missing=
	for o in $opts --help --version; do grep -q -- "^\\(([^)]*)\\)\\{0,1\\}\\**$o[+=]\\{0,1\\}\\[" "$tmp/args" || missing="$missing $o"; done
	check "zsh: _arguments gets every option --help names (missing:${missing:- none})" "[ -z \"$missing\" ]"
fi
echo "1..$n"
