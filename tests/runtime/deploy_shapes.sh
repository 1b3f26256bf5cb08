#!/bin/sh
# tests/runtime/deploy_shapes.sh: kopt.backend's dispatch by shape against a torch test double
exec python3 "${top_srcdir:-.}/tests/runtime/test_deploy_shapes.py" "$@"
