#!/bin/sh
# tests/conventions/emacs.sh: the Emacs major mode for .kopt
# (tools/editors/emacs/kopt-mode.el) in `emacs --batch`: it byte-compiles
# without warnings, *.kopt and Koptfile open in kopt-mode, every piece of
# sample.kopt gets the face sample.expect says (classes.py), and a block's
# fields indent by two. Skips without emacs. Prints TAP.
set -eu
if ! command -v emacs >/dev/null 2>&1; then
	echo "1..0 # SKIP no emacs here"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-emacs-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
el=$top_srcdir/tools/editors/emacs/kopt-mode.el
cp "$el" "$tmp/"
cp "$top_srcdir/tests/conventions/sample.kopt" "$tmp/Koptfile"
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$3" 2>/dev/null || true; fi; }
emacs -Q --batch --eval '(setq byte-compile-error-on-warn t)' -f batch-byte-compile "$tmp/kopt-mode.el" > "$tmp/compile" 2>&1 || true
check "kopt-mode.el byte-compiles without warnings" "[ -f $tmp/kopt-mode.elc ]" "$tmp/compile"
cat > "$tmp/dump.el" <<'ELISP'
(defun kopt-test-dump (file out)
  (with-current-buffer (find-file-noselect file)
    (font-lock-ensure)
    (let ((lines (list (format "filetype %s" major-mode))) (l 1))
      (goto-char (point-min))
      (while (not (eobp))
        (let ((c 1))
          (while (not (eolp))
            (let ((f (get-text-property (point) 'face)))
              (when (consp f) (setq f (car f)))
              (push (format "%d %d %s" l c (or f "")) lines))
            (forward-char 1) (setq c (1+ c))))
        (forward-line 1) (setq l (1+ l)))
      (with-temp-file out (insert (mapconcat #'identity (nreverse lines) "\n") "\n")))))
(defun kopt-test-indent (out)
  (with-temp-buffer
    (kopt-mode)
    (insert "model m {\nsource = \"m.py\"\nvariant v {\nmode = \"x\"\n}\n}\n")
    (indent-region (point-min) (point-max))
    (let ((text (buffer-string)))
      (with-temp-file out (insert text)))))
ELISP
emacs -Q --batch -l "$tmp/kopt-mode.el" -l "$tmp/dump.el" \
	--eval "(progn (kopt-test-dump \"$top_srcdir/tests/conventions/sample.kopt\" \"$tmp/out\") (kopt-test-dump \"$tmp/Koptfile\" \"$tmp/out2\") (kopt-test-indent \"$tmp/indent\"))" \
	> "$tmp/log" 2>&1 || true
check "a .kopt file opens in kopt-mode" "grep -qx 'filetype kopt-mode' $tmp/out" "$tmp/log"
check "a Koptfile opens in kopt-mode" "grep -qx 'filetype kopt-mode' $tmp/out2" "$tmp/log"
printf 'model m {\n  source = "m.py"\n  variant v {\n    mode = "x"\n  }\n}\n' > "$tmp/indent.want"
check "a block's fields indent by two, closing braces line up" "cmp -s $tmp/indent $tmp/indent.want" "$tmp/indent"
python3 "$top_srcdir/tests/conventions/classes.py" "$tmp/out" \
	"font-lock-comment-face=comment,font-lock-comment-delimiter-face=comment,font-lock-string-face=string,kopt-escape-face=escape,kopt-interpolation-face=interpolation,font-lock-keyword-face=keyword,font-lock-type-face=name,kopt-field-face=property,font-lock-builtin-face=function,font-lock-constant-face=boolean,kopt-number-face=number,kopt-unit-face=unit,=value,kopt-invalid-face=invalid" \
	$n > "$tmp/tap" || true
cat "$tmp/tap"
n=$((n + $(grep -c '^\(not \)\{0,1\}ok ' "$tmp/tap")))
echo "1..$n"
