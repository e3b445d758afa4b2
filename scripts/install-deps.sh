#!/usr/bin/env bash
# Installs, with apt, whatever the build, the tests and the demo need and the
# machine lacks.  Needs root when something is missing; does nothing otherwise.
set -euo pipefail

packages=(
    g++ make                      # the C++17 compiler and make
    postgresql-15                 # the server the extension runs in (initdb, pg_ctl, postgres)
    postgresql-server-dev-15      # server headers and PGXS
    libxxhash-dev                 # xxhash.h (XXH3-64, the feature hash)
    libgtest-dev                  # GoogleTest, for the core unit tests
    libipc-run-perl               # IPC::Run, for the TAP tests
    unicode-data                  # UnicodeData.txt: the core unit tests check the character classes against it
    debootstrap                   # the Debian chroots in which the test command runs PostgreSQL 17 and 18 (scripts/chroot.sh)
)
packages+=("$@")                  # callers may ask for more (the evaluation harness does)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages: ${missing[*]}; run as root to have them installed (or apt-get install them)" >&2
    exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
