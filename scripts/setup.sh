#!/usr/bin/env bash
# Installs the Debian 12 packages flysim builds with, when any is missing (and the tools
# of its measurements: pidstat from sysstat, matplotlib for bench/watch.sh's picture,
# Brian2 for bench/bench_brian2.sh; pytest runs the Python module's tests).
# Runs as root (or through sudo when it is there); does nothing when all are present.
set -euo pipefail
packages=(build-essential cmake libcaf-dev libspdlog-dev libfmt-dev libcereal-dev
          libgtest-dev librandom123-dev libxxhash-dev libssl-dev libcpp-httplib-dev nlohmann-json3-dev python3
          pybind11-dev python3-pandas python3-numpy python3-pytest \
          sysstat python3-matplotlib curl python3-brian \
          chromium chromium-driver python3-selenium)  # the last three: the live page's browser test
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "setup: all packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
sudo=""
if [[ $(id -u) != 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: run as root or install sudo to install ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
