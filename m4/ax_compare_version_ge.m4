# AX_COMPARE_VERSION_GE(A, B, [IF-GE], [IF-LT]): dotted numeric version compare
AC_DEFUN([AX_COMPARE_VERSION_GE], [
  AS_IF([printf '%s\n%s\n' "$2" "$1" | sort -t. -k1,1n -k2,2n -k3,3n -C], [$3], [$4])
])
