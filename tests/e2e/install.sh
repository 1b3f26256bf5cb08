#!/bin/sh
# tests/e2e/install.sh: `make install DESTDIR=...` puts koptmake, the kopt
# package with its dist-info (the torch_dynamo_backends entry point), the
# bash and zsh completions and the Vim, Emacs and VS Code files where their
# tools look, under the configured prefix; the installed kopt imports in a
# plain interpreter and its RECORD matches its files; `make uninstall`
# leaves no file behind. Prints TAP.
set -eu
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset MAKEFLAGS MFLAGS MAKELEVEL 2>/dev/null || true
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$3" 2>/dev/null || true; fi; }
root=$tmp/root
rc=0
make -s -C "$top_builddir" install DESTDIR="$root" > "$tmp/log" 2>&1 || rc=$?
check "make install DESTDIR=... succeeds" "[ $rc -eq 0 ]" "$tmp/log"
var() { sed -n "s/^$1 = //p" "$top_builddir/Makefile" | head -n 1; }
prefix=$(var prefix)
datadir=$prefix/share
check "koptmake is in \$prefix/bin" "[ -x $root$prefix/bin/koptmake ]"
check "bash completion: \$datadir/bash-completion/completions/koptmake.bash" \
	"[ -f $root$datadir/bash-completion/completions/koptmake.bash ] && bash -c '. $root$datadir/bash-completion/completions/koptmake.bash && complete -p koptmake' >/dev/null"
check "zsh completion: \$datadir/zsh/site-functions/_koptmake" "[ -f $root$datadir/zsh/site-functions/_koptmake ]"
check "Vim: syntax and ftdetect under \$datadir/vim/vimfiles" \
	"[ -f $root$datadir/vim/vimfiles/syntax/kopt.vim ] && [ -f $root$datadir/vim/vimfiles/ftdetect/kopt.vim ]"
check "Emacs: \$datadir/emacs/site-lisp/kopt-mode.el" "[ -f $root$datadir/emacs/site-lisp/kopt-mode.el ]"
check "VS Code: the extension folder under \$pkgdatadir/editors/vscode" \
	"[ -f $root$datadir/koptmake/editors/vscode/package.json ] && [ -f $root$datadir/koptmake/editors/vscode/syntaxes/kopt.tmLanguage.json ] && [ -f $root$datadir/koptmake/editors/vscode/language-configuration.json ]"

init=$(find "$root" -path '*/kopt/__init__.py' | head -n 1)
if [ -z "$init" ]; then
	n=$((n + 1)); echo "ok $n # SKIP the kopt package is not installed (configure found no Python)"
else
	site=$(dirname "$(dirname "$init")")
	check "kopt goes to configure's pythondir, under the prefix ($site)" "case $site in $root$prefix/*) true ;; *) false ;; esac"
	python3 -S -c '
import sys
sys.path.insert(0, sys.argv[1])
import importlib.metadata as m, kopt, base64, hashlib, os
assert kopt.__file__.startswith(sys.argv[1]), kopt.__file__
assert "torch" not in sys.modules
eps = m.entry_points(group="torch_dynamo_backends")
assert eps["kopt"].load() is kopt.dynamo_backend
d = m.distribution("kopt")
assert d.version == kopt.__version__, d.version
assert d.read_text("INSTALLER").strip() == "koptmake"
bad = []
for f in d.files:
    if f.hash is None:
        continue
    data = f.locate().read_bytes()
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    if h != f.hash.value or len(data) != f.size:
        bad.append(str(f))
assert not bad, bad
assert any(str(f) == "kopt/preflight.py" for f in d.files)
print("ok")' "$site" > "$tmp/py" 2>&1 || true
	check "the installed kopt imports without torch; its entry point and RECORD are right" "grep -qx ok $tmp/py" "$tmp/py"
fi
rc=0
make -s -C "$top_builddir" uninstall DESTDIR="$root" > "$tmp/log" 2>&1 || rc=$?
find "$root" -type f > "$tmp/left"
check "make uninstall leaves no file ($(wc -l < "$tmp/left") left)" "[ $rc -eq 0 ] && [ ! -s $tmp/left ]" "$tmp/left"
echo "1..$n"
