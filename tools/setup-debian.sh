#!/bin/sh
# tools/setup-debian.sh: installs what the build and the tests need on Debian
# or Ubuntu. It asks dpkg-query first and calls apt-get (through sudo when
# not root) only for the packages that are missing: where everything is
# installed it needs neither root nor the network, and says so. The GPU
# worker needs, in addition, CUDA 12+ with CUPTI and a Python with torch
# >= 2.6 and triton; configure finds them and its summary says what is
# missing. nginx, curl, Slurm (slurmctld, slurmd, slurmdbd, the client),
# munge and MariaDB are for the tests of the remote cache and of workers
# through Slurm, which start instances of their own, on their own ports and
# sockets (the packages' services, where the system starts them, are left
# alone). clang and its runtime libraries build the fuzz target (libFuzzer)
# that CI runs. Exit status: 0 when everything is there at the end, 1 when
# packages are missing and cannot be installed from here, else apt-get's.
set -eu
PACKAGES="build-essential autoconf automake pkg-config flex bison
	libjansson-dev libcurl4-openssl-dev libxxhash-dev python3 python3-dev
	valgrind clang libclang-rt-dev ca-certificates
	nginx curl slurmctld slurmd slurmdbd slurm-client munge mariadb-server"

missing=
for p in $PACKAGES; do
	case $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true) in
	ii*) ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -z "$missing" ]; then
	echo "setup-debian: every package the build and the tests need is installed"
	exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
	as=
elif command -v sudo >/dev/null 2>&1; then
	as=sudo
else
	echo "setup-debian: missing:$missing; install them as root: apt-get install$missing" >&2
	exit 1
fi
echo "setup-debian: installing$missing"
$as env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$as env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
