" koptmake spec files: *.kopt and Koptfile (kopt(5))
autocmd BufNewFile,BufRead *.kopt,Koptfile setfiletype kopt
