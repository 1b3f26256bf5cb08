#!/bin/sh
# tests/conventions/vim.sh: the Vim syntax for .kopt
# (tools/editors/vim/{syntax,ftdetect}/kopt.vim) loaded in `vim -es`: the
# file type is detected for *.kopt and Koptfile, and every piece of
# sample.kopt gets the group sample.expect says (classes.py). Skips without
# vim. Prints TAP.
set -eu
if ! command -v vim >/dev/null 2>&1; then
	echo "1..0 # SKIP no vim here"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-vim-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
rtp=$top_srcdir/tools/editors/vim
cat > "$tmp/dump.vim" <<'VIM'
let s:out = ['filetype ' . &filetype]
for s:l in range(1, line('$'))
  for s:c in range(1, strlen(getline(s:l)))
    call add(s:out, s:l . ' ' . s:c . ' ' . synIDattr(synID(s:l, s:c, 1), 'name'))
  endfor
endfor
call writefile(s:out, $KOPT_VIM_OUT)
qa!
VIM
cp "$top_srcdir/tests/conventions/sample.kopt" "$tmp/Koptfile"
run() { # FILE OUT
	KOPT_VIM_OUT=$2 vim -u NONE -i NONE -N -es \
		-c "set rtp^=$rtp" -c 'filetype on' -c 'syntax on' -c "edit $1" -c "source $tmp/dump.vim" </dev/null >/dev/null 2>&1 || true
}
run "$top_srcdir/tests/conventions/sample.kopt" "$tmp/out"
run "$tmp/Koptfile" "$tmp/out2"
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }
check "vim detects the file type of a .kopt file" "grep -qx 'filetype kopt' $tmp/out"
check "vim detects the file type of a Koptfile" "grep -qx 'filetype kopt' $tmp/out2"
rc=0
python3 "$top_srcdir/tests/conventions/classes.py" "$tmp/out" \
	"koptComment=comment,koptString=string,koptEscape=escape,koptInterp=interpolation,koptDecl=keyword,koptInclude=keyword,koptDeclName=name,koptField=property,koptFunction=function,koptBoolean=boolean,koptNumber=number,koptUnit=unit,koptValue=value,koptBadNumber=invalid,koptBadString=invalid,koptBadEscape=invalid" \
	$n > "$tmp/tap" || rc=$?
cat "$tmp/tap"
n=$((n + $(grep -c '^\(not \)\{0,1\}ok ' "$tmp/tap")))
echo "1..$n"
