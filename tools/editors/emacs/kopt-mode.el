;;; kopt-mode.el --- major mode for koptmake spec files  -*- lexical-binding: t -*-

;; Keywords: languages
;; Version: 0.2.0

;;; Commentary:

;; Highlighting, comments and indentation for the spec files of koptmake
;; (*.kopt and Koptfile; the language is kopt(5)).  `make install' puts
;; this file in $(datadir)/emacs/site-lisp; add that folder to `load-path'
;; and (require 'kopt-mode), or load the file.
;; tests/conventions/emacs.sh checks the highlighting of a sample.

;;; Code:

(defgroup kopt nil
  "Editing koptmake spec files."
  :group 'languages)

(defface kopt-field-face '((t :inherit font-lock-variable-name-face))
  "Face for a field name before `='."
  :group 'kopt)
(defface kopt-number-face '((t :inherit font-lock-constant-face))
  "Face for numbers."
  :group 'kopt)
(defface kopt-unit-face '((t :inherit font-lock-preprocessor-face))
  "Face for a number's unit (ms s m h, B KiB MiB GiB TiB, %)."
  :group 'kopt)
(defface kopt-escape-face '((t :inherit font-lock-regexp-grouping-backslash))
  "Face for escapes in strings."
  :group 'kopt)
(defface kopt-interpolation-face '((t :inherit font-lock-variable-name-face))
  "Face for ${VAR} in strings."
  :group 'kopt)
(defface kopt-invalid-face '((t :inherit font-lock-warning-face))
  "Face for text koptmake rejects: single quotes, unknown units, `:'."
  :group 'kopt)

(defcustom kopt-indent-offset 2
  "Indentation of a block's fields."
  :type 'integer
  :group 'kopt)

(defconst kopt--name "[A-Za-z_][A-Za-z0-9_-]*")
(defconst kopt--units "\\(ms\\|s\\|m\\|h\\|B\\|KiB\\|MiB\\|GiB\\|TiB\\|%\\)")

(defvar kopt-mode-syntax-table
  (let ((st (make-syntax-table)))
    (modify-syntax-entry ?# "<" st)
    (modify-syntax-entry ?\n ">" st)
    (modify-syntax-entry ?\" "\"" st)
    (modify-syntax-entry ?\\ "\\" st)
    (modify-syntax-entry ?' "." st)
    (modify-syntax-entry ?_ "_" st)
    (modify-syntax-entry ?- "_" st)
    (modify-syntax-entry ?% "." st)
    (modify-syntax-entry ?. "." st)
    st)
  "Syntax table of `kopt-mode'.")

(defun kopt--in-string (re)
  "A font-lock matcher for RE inside strings."
  (lambda (limit)
    (let (found)
      (while (and (not found) (re-search-forward re limit t))
        (setq found (nth 3 (save-excursion (syntax-ppss (match-beginning 0))))))
      found)))

(defvar kopt-font-lock-keywords
  `((,(kopt--in-string "\\\\[ntr\"\\\\$]") 0 'kopt-escape-face t)
    (,(kopt--in-string "\\${[A-Za-z_][A-Za-z0-9_]*}") 0 'kopt-interpolation-face t)
    ;; declarations: the word and the name it declares
    (,(concat "\\_<\\(models\\|target\\)\\s-+\\(" kopt--name "\\)\\s-*=")
     (1 font-lock-keyword-face) (2 font-lock-type-face))
    (,(concat "\\_<\\(device\\|agents\\|gates\\|model\\|kernel\\|helion\\|variant\\)\\s-+\\("
              kopt--name "\\)\\s-*{")
     (1 font-lock-keyword-face) (2 font-lock-type-face))
    ("\\_<\\(defaults\\)\\s-*{" 1 font-lock-keyword-face)
    (,(concat "^\\s-*\\(default\\)\\s-+\\(" kopt--name "\\)\\s-*\\(?:#.*\\)?$")
     (1 font-lock-keyword-face) (2 font-lock-type-face))
    ("^\\s-*\\(include\\)\\_>\\s-*\"" 1 font-lock-keyword-face)
    (,(concat "\\_<\\(" kopt--name "\\)\\s-*=") 1 'kopt-field-face)
    ("\\_<\\(env\\|glob\\|llm\\)\\s-*(" 1 font-lock-builtin-face)
    ("\\_<\\(true\\|false\\)\\_>" 1 font-lock-constant-face)
    ;; a number and its unit; a number with another suffix is an error (10min)
    (,(concat "\\_<\\(-?[0-9]+\\(?:\\.[0-9]+\\)?\\(?:[eE][+-]?[0-9]+\\)?\\)" kopt--units
              "?\\(?:[^A-Za-z0-9_%.]\\|$\\)")
     (1 'kopt-number-face) (2 'kopt-unit-face nil t))
    ("\\_<-?[0-9][A-Za-z0-9_.%-]*" 0 'kopt-invalid-face)
    ("'[^'\n]*'?" 0 'kopt-invalid-face)
    (":" 0 'kopt-invalid-face))
  "Highlighting in `kopt-mode'.")

(defun kopt-indent-line ()
  "Indent the line by the depth of its braces and brackets."
  (interactive)
  (let* ((depth (save-excursion (car (syntax-ppss (line-beginning-position)))))
         (closing (save-excursion (back-to-indentation) (looking-at-p "[]})]")))
         (col (* kopt-indent-offset (max 0 (- depth (if closing 1 0))))))
    (if (<= (current-column) (current-indentation))
        (indent-line-to col)
      (save-excursion (indent-line-to col)))))

;;;###autoload
(define-derived-mode kopt-mode prog-mode "kopt"
  "Major mode for koptmake spec files (kopt(5))."
  :syntax-table kopt-mode-syntax-table
  (setq-local comment-start "# ")
  (setq-local comment-start-skip "#+\\s-*")
  (setq-local indent-line-function #'kopt-indent-line)
  (setq-local font-lock-defaults '(kopt-font-lock-keywords)))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.kopt\\'" . kopt-mode))
;;;###autoload
(add-to-list 'auto-mode-alist '("/Koptfile\\'" . kopt-mode))

(provide 'kopt-mode)

;;; kopt-mode.el ends here
