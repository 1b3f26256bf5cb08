#!/bin/sh
# tools/setup-debian.sh: installs what the build and the tests need on Debian
# or Ubuntu (run as root). The GPU worker needs, in addition, CUDA 12+ with
# CUPTI and a Python with torch and triton; configure finds them.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	build-essential autoconf automake pkg-config flex bison \
	libjansson-dev libcurl4-openssl-dev libxxhash-dev python3 python3-dev \
	valgrind ca-certificates >/dev/null
