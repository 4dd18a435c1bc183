#!/usr/bin/env bash
# Installs pwave's build, test and plotting dependencies from Debian/Ubuntu packages.
# Idempotent: does nothing when everything is already installed.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config
          libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
          libyaml-cpp-dev libopenmpi-dev openmpi-bin libsegyio-dev libgtest-dev
          python3 python3-numpy python3-matplotlib)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "ci/install_deps.sh: all dependencies present"
  exit 0
fi
sudo_cmd=""
[ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
echo "ci/install_deps.sh: installing ${missing[*]}"
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
