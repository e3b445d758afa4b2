# Sourced by the scripts: where PostgreSQL 15 lives, and how to run a command
# as the user that owns scratch clusters (initdb refuses root).

# One locale every Debian 12 has: initdb (the TAP and isolation suites' too)
# fails on a LANG the machine has not generated, which ssh passes on from
# the client's machine.  LANG too, and no category of its own:
# PostgreSQL's TAP framework drops LC_ALL, and LANG then decided.
export LC_ALL=C.UTF-8 LANG=C.UTF-8
unset LANGUAGE LC_CTYPE LC_COLLATE LC_MESSAGES LC_MONETARY LC_NUMERIC LC_TIME
PG_BINDIR="$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)"
export PATH="$PG_BINDIR:$PATH"

as_cluster_owner() {
    if [ "$(id -u)" -ne 0 ]; then
        "$@"
        return
    fi
    # From a directory the cluster owner cannot enter (a checkout under
    # /root), its programs complain that they cannot change to it: start
    # them in / (a relative path could not serve them there anyway).
    if [ "${OWNER_CWD_CHECKED:-}" != "$PWD" ]; then
        OWNER_CWD_CHECKED=$PWD
        OWNER_CWD_OK=1
        runuser -u postgres -- test -x "$PWD" 2>/dev/null || OWNER_CWD_OK=0
    fi
    if [ "$OWNER_CWD_OK" = 1 ]; then
        runuser -u postgres -- env PATH="$PATH" "$@"
    else
        (cd / && runuser -u postgres -- env PATH="$PATH" "$@")
    fi
}

# A directory the cluster owner can write to.
owned_dir() {
    mkdir -p "$1"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$1"; fi
}

# A TCP port nobody listens on, from 5432 + an offset.
free_port() {
    local port
    for port in $(seq "$1" $(($1 + 200))); do
        if ! (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
            echo "$port"
            return
        fi
    done
    echo "$1"
}

# make install writes under /usr/lib/postgresql: what a failed one needs.
install_needs() {
    echo "it needs root (sudo), or write access to $(pg_config --pkglibdir 2>/dev/null || echo the PostgreSQL directories)"
}
fail_install() {
    echo "make install failed: $(install_needs)" >&2
    exit 1
}

# One run at a time in a checkout: demo.sh and test-all.sh build and install
# from it, and the scratch scripts stop the cluster their record names, which
# a second run of the same script would take from the first one.  A second
# run waits, and says which process it waits for.
#
# The lock is held by a watcher process, not by the script: a descriptor in
# the script would pass to everything it starts, and a server among them
# (a scratch cluster kept by KEEP=1, one that outlived a killed run, the
# cluster apt starts when it installs postgresql-15) would hold the lock
# for good.  The watcher holds it while the process that took
# it lives (a zombie counts as ended: a parent may reap late), so it is
# released within 0.2 s of that process's end, even when killed; a watcher
# still waiting gives up when its process ends.  It is
# disowned, so a bare `wait` in the script does not wait for it.  Scripts
# the run starts that lock the same directory (a nested run) go through, as
# SIMHASH_CHECKOUT_LOCKS lists what is held.
process_alive() {  # process_alive PID
    local stat
    read -r stat 2>/dev/null </proc/"$1"/stat || return 1
    [[ $stat != *") Z "* ]]
}
lock_checkout() {  # lock_checkout DIRECTORY (the checkout's .scratch)
    local dir=$1 owner=$BASHPID ready watcher
    if printf '%s\n' "${SIMHASH_CHECKOUT_LOCKS:-}" | grep -Fqx -- "$dir"; then return 0; fi
    mkdir -p "$dir" || return 1
    ready="$dir/lock.ready.$owner"
    rm -f "$ready"
    (
        trap 'rm -f "$ready"' EXIT
        exec 9>>"$dir/lock" </dev/null >/dev/null || exit 1
        # a holder that ended a moment ago (its watcher polls) is not worth a message
        if ! flock -w 1 9; then
            echo "another run is using this checkout (process $(cat "$dir/lock.pid" 2>/dev/null || echo unknown)" \
                 "holds $dir/lock); waiting for it to finish" >&2
            exec 2>/dev/null
            until flock -w 1 9; do process_alive "$owner" || exit 1; done
        fi
        exec 2>/dev/null
        echo "$owner" >"$dir/lock.pid"
        echo locked >"$ready"
        while process_alive "$owner"; do sleep 0.2; done
    ) &
    watcher=$!
    disown "$watcher"
    while [ ! -s "$ready" ] && process_alive "$watcher"; do sleep 0.1; done
    [ -s "$ready" ] || return 1
    export SIMHASH_CHECKOUT_LOCKS="${SIMHASH_CHECKOUT_LOCKS:+$SIMHASH_CHECKOUT_LOCKS
}$dir"
}
