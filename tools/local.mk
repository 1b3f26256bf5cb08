## tools/local.mk: the shell completions and editor grammars, installed
## where bash-completion, zsh, Vim, Emacs and VS Code look (README: "Shell
## and editor support"), and their tests.

bashcompletiondir = $(datadir)/bash-completion/completions
dist_bashcompletion_DATA = tools/completion/koptmake.bash
zshcompletiondir = $(datadir)/zsh/site-functions
dist_zshcompletion_DATA = tools/completion/_koptmake
vimsyntaxdir = $(datadir)/vim/vimfiles/syntax
dist_vimsyntax_DATA = tools/editors/vim/syntax/kopt.vim
vimftdetectdir = $(datadir)/vim/vimfiles/ftdetect
dist_vimftdetect_DATA = tools/editors/vim/ftdetect/kopt.vim
emacslispdir = $(datadir)/emacs/site-lisp
dist_emacslisp_DATA = tools/editors/emacs/kopt-mode.el
vscodedir = $(pkgdatadir)/editors/vscode
dist_vscode_DATA = tools/editors/vscode/package.json tools/editors/vscode/language-configuration.json
vscodesyntaxdir = $(pkgdatadir)/editors/vscode/syntaxes
dist_vscodesyntax_DATA = tools/editors/vscode/syntaxes/kopt.tmLanguage.json

TESTS += tests/conventions/completion.sh tests/conventions/textmate.sh tests/conventions/vim.sh \
	tests/conventions/emacs.sh
EXTRA_DIST += tests/conventions/completion.sh tests/conventions/textmate.sh tests/conventions/textmate.py \
	tests/conventions/vim.sh tests/conventions/emacs.sh tests/conventions/classes.py \
	tests/conventions/sample.kopt tests/conventions/sample.expect
