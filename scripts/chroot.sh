# Sourced by test-all.sh and the benchmarks that run on another
# PostgreSQL major: a Debian chroot that ships it, made once with debootstrap
# and kept outside the checkout, in $SIMHASH_CHROOTS (default
# /var/cache/simhash-chroots), so that later runs use it as it is.
#
#   chroot_open MAJOR    bootstraps the chroot when missing (or installs what
#                        it lacks), takes its lock, mounts its /proc, copies
#                        the checkout into a new directory of its /tmp; sets
#                        CHROOT_DIR and CHROOT_WORK (the copy, as the chroot
#                        sees it)
#   chroot_run CMD...    runs CMD as root inside, in the copy, with a clean
#                        environment (PATH, locale, and the SIMHASH_* and
#                        DIFF_* variables the caller set)
#   chroot_close         stops what the run left running inside, unmounts
#                        /proc, removes the copy, releases the lock
# The caller traps EXIT, INT and TERM to chroot_close, so that /proc is
# unmounted however the run ends.  All of it needs root.

CHROOTS=${SIMHASH_CHROOTS:-/var/cache/simhash-chroots}
CHROOT_MIRROR=${SIMHASH_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# The Debian suite that ships a PostgreSQL major (Debian 12, bookworm, the
# host, ships 15; no suite ships 16).
chroot_suite() {  # chroot_suite MAJOR
    case $1 in
        17) echo trixie ;;
        18) echo sid ;;
        *) return 1 ;;
    esac
}

# What the build and every suite need inside (scripts/install-deps.sh's list
# for that major).
chroot_packages() {  # chroot_packages MAJOR
    echo "postgresql-$1 postgresql-server-dev-$1 libxxhash-dev make g++ libipc-run-perl libgtest-dev unicode-data python3"
}

# Makes $CHROOTS/SUITE when missing: debootstrap into a directory of its own
# first, renamed when complete, so that a bootstrap cut short is redone
# rather than used.  An existing chroot gets what it lacks from apt.
chroot_ensure() {  # chroot_ensure MAJOR
    local major=$1 suite dir packages missing p
    suite=$(chroot_suite "$major") || { echo "no Debian suite ships PostgreSQL $major" >&2; return 1; }
    dir=$CHROOTS/$suite
    packages=$(chroot_packages "$major")
    if [ ! -x "$dir/usr/lib/postgresql/$major/bin/postgres" ]; then
        command -v debootstrap >/dev/null || { echo "debootstrap is missing (scripts/install-deps.sh installs it)" >&2; return 1; }
        echo "bootstrapping Debian $suite for PostgreSQL $major into $dir (a few minutes, once)"
        mkdir -p "$CHROOTS"
        rm -rf "$dir.partial"
        if ! debootstrap --variant=minbase --include="${packages// /,}" "$suite" "$dir.partial" "$CHROOT_MIRROR" \
            >"$CHROOTS/$suite.bootstrap.log" 2>&1; then
            tail -20 "$CHROOTS/$suite.bootstrap.log" >&2
            echo "debootstrap of $suite failed (the end of $CHROOTS/$suite.bootstrap.log is above)" >&2
            return 1
        fi
        rm -rf "$dir"
        mv "$dir.partial" "$dir"
        return 0
    fi
    missing=()
    for p in $packages; do
        chroot "$dir" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing into the $suite chroot: ${missing[*]}"
    chroot "$dir" env DEBIAN_FRONTEND=noninteractive sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"' \
        sh "${missing[@]}" >/dev/null
}

# The processes whose root is the chroot: what a run started there (servers
# a killed suite left behind).  Only one run uses a chroot at a time (its
# lock), so they are this run's.
chroot_processes() {  # chroot_processes DIR
    local p
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"
    done
}

chroot_open() {  # chroot_open MAJOR
    local suite
    CHROOT_DIR= CHROOT_WORK= CHROOT_PROC_MOUNTED=
    [ "$(id -u)" -eq 0 ] || { echo "running the suites in a chroot needs root" >&2; return 1; }
    suite=$(chroot_suite "$1") || { echo "no Debian suite ships PostgreSQL $1" >&2; return 1; }
    mkdir -p "$CHROOTS" || return 1
    # one run per chroot, across checkouts: bootstrap and suites alike; the
    # descriptor is closed for what runs inside (chroot_run), or a server
    # left running would hold the lock
    exec {CHROOT_LOCK_FD}>>"$CHROOTS/$suite.lock" || return 1
    if ! flock -n "$CHROOT_LOCK_FD"; then
        echo "another run uses the $suite chroot; waiting for it"
        flock "$CHROOT_LOCK_FD" || return 1
    fi
    chroot_ensure "$1" || return 1
    CHROOT_DIR=$(cd "$CHROOTS/$suite" && pwd -P)
    # /proc: the checkout lock's watcher reads it, and so do the sanitizers
    # (one a killed run left mounted is unmounted at the end too)
    if ! mountpoint -q "$CHROOT_DIR/proc"; then
        mount -t proc proc "$CHROOT_DIR/proc" || return 1
    fi
    CHROOT_PROC_MOUNTED=1
    local work
    work=$(mktemp -d "$CHROOT_DIR/tmp/simhash-run.XXXXXX") || return 1
    CHROOT_WORK=${work#"$CHROOT_DIR"}
    # the checkout without git's data and without build products
    tar -C "$ROOT" --exclude=./.git --exclude=./.scratch --exclude='*.o' --exclude='*.so' \
        --exclude=./.deps --exclude=./test/unit/build --exclude=./results --exclude=./tmp_check -cf - . |
        tar -C "$work" -xf - || return 1
}

chroot_run() {  # chroot_run CMD...
    local vars
    mapfile -t vars < <(env | grep -E '^(SIMHASH_[A-Z_]+|DIFF_[A-Z_]+|CI)=' | grep -v '^SIMHASH_CHECKOUT_LOCKS=')
    chroot "$CHROOT_DIR" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LC_ALL=C.UTF-8 LANG=C.UTF-8 "${vars[@]}" \
        sh -c 'cd "$1" && shift && exec "$@"' sh "$CHROOT_WORK" "$@" {CHROOT_LOCK_FD}>&-
}

chroot_close() {
    [ -n "${CHROOT_LOCK_FD:-}" ] || return 0
    if [ -n "${CHROOT_DIR:-}" ]; then
        local pids
        pids=$(chroot_processes "$CHROOT_DIR")
        if [ -n "$pids" ]; then
            # shellcheck disable=SC2086
            kill -TERM $pids 2>/dev/null
            sleep 2
            pids=$(chroot_processes "$CHROOT_DIR")
            # shellcheck disable=SC2086
            [ -z "$pids" ] || kill -KILL $pids 2>/dev/null
        fi
        if [ -n "${CHROOT_WORK:-}" ]; then rm -rf "${CHROOT_DIR:?}$CHROOT_WORK"; fi
        if [ -n "${CHROOT_PROC_MOUNTED:-}" ]; then
            umount "$CHROOT_DIR/proc" 2>/dev/null || umount -l "$CHROOT_DIR/proc"
        fi
    fi
    exec {CHROOT_LOCK_FD}>&-
    CHROOT_LOCK_FD= CHROOT_DIR= CHROOT_WORK= CHROOT_PROC_MOUNTED=
}
