#!/usr/bin/env bash
# Every test suite on the PostgreSQL 19 release candidate that Debian
# experimental ships, in a chroot of Debian sid with experimental added.  By
# hand, as root; not part of the test command (19 is not a supported major:
# docs/postgresql-versions.md records what compiles and passes).
#
#   bash scripts/test-pg19.sh
#
# The chroot is $SIMHASH_CHROOTS/experimental-19 (default
# /var/cache/simhash-chroots/experimental-19), made on first use by
# debootstrap (minbase, sid) and apt-get -t experimental (a few minutes),
# then reused as it is.  Experimental's Release file may be past its
# Valid-Until date on a mirror that is not refreshed: apt is told to accept
# it for that suite only.  The checkout (without .git) is copied into the
# chroot's /tmp and the suites run there as root, as the test command runs
# them; /proc is mounted for the run and unmounted after it.  It ends like the
# test command, with "tests: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CHROOTS=${SIMHASH_CHROOTS:-/var/cache/simhash-chroots}
DIR=$CHROOTS/experimental-19
MIRROR=${SIMHASH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
PACKAGES="make g++ libxxhash-dev libipc-run-perl libgtest-dev unicode-data python3"

[ "$(id -u)" -eq 0 ] || { echo "test-pg19: run it as root (debootstrap, chroot, mount)" >&2; exit 1; }

# one run at a time in this chroot
exec {lock_fd}>>"$CHROOTS/experimental-19.lock" || exit 1
flock "$lock_fd" || exit 1

if [ ! -x "$DIR/usr/lib/postgresql/19/bin/postgres" ]; then
    command -v debootstrap >/dev/null || { echo "test-pg19: apt-get install debootstrap first" >&2; exit 1; }
    echo "test-pg19: bootstrapping Debian sid + experimental into $DIR (a few minutes, once)"
    rm -rf "$DIR.partial"
    if ! debootstrap --variant=minbase --include="${PACKAGES// /,}" sid "$DIR.partial" "$MIRROR" \
        >"$CHROOTS/experimental-19.bootstrap.log" 2>&1; then
        tail -20 "$CHROOTS/experimental-19.bootstrap.log"
        echo "tests: 0 passed, 1 failed (debootstrap of sid failed)"
        exit 1
    fi
    echo "deb $MIRROR experimental main" >"$DIR.partial/etc/apt/sources.list.d/experimental.list"
    # the package's own cluster is made but not started (policy-rc.d); its
    # postinst needs /proc (systemd-tmpfiles)
    printf '#!/bin/sh\nexit 101\n' >"$DIR.partial/usr/sbin/policy-rc.d"
    chmod +x "$DIR.partial/usr/sbin/policy-rc.d"
    mount -t proc proc "$DIR.partial/proc" || exit 1
    chroot "$DIR.partial" env DEBIAN_FRONTEND=noninteractive sh -c \
        'apt-get -qq -o Acquire::Check-Valid-Until=false update &&
         apt-get install -y -qq --no-install-recommends -t experimental postgresql-19 postgresql-server-dev-19' \
        >>"$CHROOTS/experimental-19.bootstrap.log" 2>&1
    status=$?
    umount "$DIR.partial/proc"
    if [ "$status" -ne 0 ]; then
        tail -20 "$CHROOTS/experimental-19.bootstrap.log"
        echo "tests: 0 passed, 1 failed (postgresql-19 did not install from experimental)"
        exit 1
    fi
    mv "$DIR.partial" "$DIR"
fi
DIR=$(cd "$DIR" && pwd -P)

# processes whose root is the chroot: a server the package's own cluster or
# a killed run left there (only one run uses the chroot, under the lock)
chroot_processes() {
    local p
    for p in /proc/[0-9]*; do
        [ "$p/root" -ef "$DIR" ] && echo "${p#/proc/}"
    done
}
WORK=
cleanup() {
    local pids
    pids=$(chroot_processes)
    [ -n "$pids" ] && kill $pids 2>/dev/null
    sleep 1
    pids=$(chroot_processes)
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    mountpoint -q "$DIR/proc" && umount "$DIR/proc"
    [ -n "$WORK" ] && rm -rf "$DIR$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# the checkout lock's watcher and the sanitizers read /proc
mountpoint -q "$DIR/proc" || mount -t proc proc "$DIR/proc" || exit 1
work=$(mktemp -d "$DIR/tmp/simhash-run.XXXXXX") || exit 1
WORK=${work#"$DIR"}
tar -C "$ROOT" --exclude=./.git --exclude=./.scratch --exclude='*.o' --exclude='*.so' --exclude=./.deps \
    --exclude=./test/unit/build --exclude=./results --exclude=./tmp_check -cf - . | tar -C "$work" -xf - || exit 1

echo "test-pg19: $(chroot "$DIR" /usr/lib/postgresql/19/bin/pg_config --version) ($(chroot "$DIR" dpkg-query -W -f='${Version}' postgresql-19)), Debian sid + experimental"
if [ -f "$work/scripts/test-suites.sh" ]; then
    suites=scripts/test-suites.sh
else
    # test-all.sh is the suites alone here; its install-deps.sh wants the
    # host's PostgreSQL 15 packages, which sid lacks: the chroot got its
    # packages above, so the copy's install-deps.sh only succeeds
    printf '#!/bin/sh\nexit 0\n' >"$work/scripts/install-deps.sh"
    suites=scripts/test-all.sh
fi
chroot "$DIR" /usr/bin/env -i PATH=/usr/lib/postgresql/19/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LC_ALL=C.UTF-8 LANG=C.UTF-8 sh -c 'cd "$1" && exec bash "$2"' sh "$WORK" "$suites" {lock_fd}>&-
