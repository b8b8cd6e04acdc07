#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# bench/setup_env.sh - what `make bench` needs beyond the compiler, best effort.
#
# valgrind (instruction counts), strace (sync cross-check), glog and spdlog
# (experiment 14) come from the distribution when we may install packages; matplotlib goes into a local
# virtualenv (.venv, git-ignored).  Nothing here is fatal: whatever is
# missing, the report is still produced and says what it could not measure.
cd "$(dirname "$0")/.."

apt_install() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "${apt_updated:-}" ]; then
    apt-get update -qq >/dev/null 2>&1 || true
    apt_updated=1
  fi
  apt-get install -y -qq "$@" >/dev/null 2>&1
}

for tool in valgrind strace python3; do
  command -v "$tool" >/dev/null || apt_install "$tool" ||
    echo "bench: $tool is not installed and could not be installed"
done

# Experiment 14 compares sk_pr_debug with glog's and spdlog's statements
# (bench/dyndbg_bench.py); without them those rows say why.
[ -e /usr/include/glog/logging.h ] || apt_install libgoogle-glog-dev ||
  echo "bench: glog (libgoogle-glog-dev) is not installed and could not be installed"
[ -e /usr/include/spdlog/spdlog.h ] || apt_install libspdlog-dev ||
  echo "bench: spdlog (libspdlog-dev) is not installed and could not be installed"

if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import matplotlib' 2>/dev/null; then
  if ! python3 -m venv .venv >/dev/null 2>&1; then
    apt_install python3-venv && python3 -m venv .venv >/dev/null 2>&1 ||
      echo "bench: cannot create .venv (python3-venv missing); no plots"
  fi
  if [ -x .venv/bin/pip ]; then
    .venv/bin/pip install -q matplotlib >/dev/null 2>&1 ||
      echo "bench: pip could not install matplotlib; no plots"
  fi
fi
exit 0
