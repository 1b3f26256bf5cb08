#!/bin/sh
# tools/setup-debian.sh: installs what the build and the tests need on Debian
# or Ubuntu (run as root). The GPU worker needs, in addition, CUDA 12+ with
# CUPTI and a Python with torch and triton; configure finds them. nginx,
# curl, Slurm (slurmctld, slurmd, slurmdbd, the client), munge and MariaDB
# are for the tests of the remote cache and of workers through Slurm, which
# start instances of their own, on their own ports and sockets (the
# packages' services, where the system starts them, are left alone).
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	build-essential autoconf automake pkg-config flex bison \
	libjansson-dev libcurl4-openssl-dev libxxhash-dev python3 python3-dev \
	valgrind ca-certificates \
	nginx curl slurmctld slurmd slurmdbd slurm-client munge mariadb-server >/dev/null
