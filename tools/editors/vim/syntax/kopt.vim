" Vim syntax file
" Language:   kopt, the spec files of koptmake (kopt(5))
" Files:      *.kopt, Koptfile (ftdetect/kopt.vim)
" Install:    copy syntax/ and ftdetect/ into ~/.vim (make install puts them
"             in $(datadir)/vim/vimfiles)
" Test:       tests/conventions/vim.sh checks every piece of a sample

if exists("b:current_syntax")
  finish
endif
let s:cpo_save = &cpo
set cpo&vim

" Where two items match at one place, the one defined last wins: the plain
" names first, then fields, calls and declarations over them.
syn match   koptValue       "\<\h[A-Za-z0-9_-]*"
syn match   koptField       "\<\h[A-Za-z0-9_-]*\ze\s*="
syn match   koptFunction    "\<\%(env\|glob\|llm\)\ze\s*("
syn match   koptBoolean     "\<\%(true\|false\)\>-\@!"

" declarations: the word and the name it declares
syn match   koptDeclName    contained "\h[A-Za-z0-9_-]*"
syn match   koptDecl        "\<\%(device\|agents\|gates\|model\|kernel\|helion\|variant\)\ze\s\+\h[A-Za-z0-9_-]*\s*{" nextgroup=koptDeclName skipwhite
syn match   koptDecl        "\<\%(models\|target\)\ze\s\+\h[A-Za-z0-9_-]*\s*=" nextgroup=koptDeclName skipwhite
syn match   koptDecl        "\<defaults\ze\s*{"
syn match   koptDecl        "^\s*\zsdefault\ze\s\+\h[A-Za-z0-9_-]*\s*\%(#.*\)\=$" nextgroup=koptDeclName skipwhite
syn match   koptInclude     "^\s*\zsinclude\>\ze\s*[^= \t]"

" numbers and their units (ms s m h, B KiB MiB GiB TiB, %); a number with
" another suffix is an error (10min)
syn match   koptBadNumber   "\%([A-Za-z0-9_.-]\)\@<!-\=\d[A-Za-z0-9_.%-]*"
syn match   koptNumber      "\%([A-Za-z0-9_.-]\)\@<!-\=\d\+\%(\.\d\+\)\=\%([eE][+-]\=\d\+\)\=\ze\%(ms\|s\|m\|h\|B\|KiB\|MiB\|GiB\|TiB\|%\)\=\%([^A-Za-z0-9_%.]\|$\)" nextgroup=koptUnit
syn match   koptUnit        contained "\%(ms\|s\|m\|h\|B\|KiB\|MiB\|GiB\|TiB\|%\)\ze\%([^A-Za-z0-9_%.]\|$\)"

" strings: escapes and ${VAR}; single quotes are an error
syn match   koptEscape      contained +\\[ntr"\\$]+
syn match   koptBadEscape   contained +\\[^ntr"\\$]+
syn match   koptInterp      contained "\${\h\w*}"
syn region  koptString      start=+"+ skip=+\\\\\|\\"+ end=+"+ end=+$+ contains=koptEscape,koptBadEscape,koptInterp
syn match   koptBadString   "'[^']*'\="
syn match   koptBadString   ":"

syn match   koptComment     "#.*$" contains=@Spell

hi def link koptComment     Comment
hi def link koptString      String
hi def link koptEscape      SpecialChar
hi def link koptBadEscape   Error
hi def link koptInterp      Identifier
hi def link koptDecl        Keyword
hi def link koptInclude     Include
hi def link koptDeclName    Type
hi def link koptField       Identifier
hi def link koptFunction    Function
hi def link koptBoolean     Boolean
hi def link koptNumber      Number
hi def link koptUnit        Special
hi def link koptBadNumber   Error
hi def link koptBadString   Error

let b:current_syntax = "kopt"
let &cpo = s:cpo_save
unlet s:cpo_save
