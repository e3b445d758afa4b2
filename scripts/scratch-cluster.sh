# Sourced by benchmarks and the demo-like scripts: start_scratch_cluster
# RECORD starts a private server (socket in its directory, no TCP) and sets
# PSQL and SCRATCH_DIR; stop_scratch_cluster stops it and removes its
# directory.  Extra server settings come from $SCRATCH_SETTINGS.
#
# The cluster lives in a new directory in /tmp (mktemp), where the cluster
# owner can reach it whatever the checkout's parents allow (a checkout under
# /root, mode 0700, failed).  Its path is kept in RECORD, a file in the
# checkout, so that the next run stops a cluster an earlier one left
# running.  Never a name another user could guess: one could plant a pid
# file there for root's pg_ctl to signal, or a symlink for its chown.
source "$(dirname "${BASH_SOURCE[0]}")/pg-env.sh"

# Stops the cluster of directory $1 and removes the directory, if $1 is one
# that start_scratch_cluster made: its name's shape, and a directory of the
# cluster owner's of mode 0700, which no other user can make.  A record that
# outlived its directory (a reboot empties /tmp) named a path another user
# could create, with a pid file for root's pg_ctl to signal.
remove_scratch_dir() {
    [[ $1 =~ ^/tmp/simhash-scratch\.[A-Za-z0-9]{6}$ ]] || return 0
    [ -d "$1" ] && [ ! -L "$1" ] || return 0
    local owner
    if [ "$(id -u)" -eq 0 ]; then owner=postgres; else owner=$(id -un); fi
    [ "$(stat -c %U:%a "$1")" = "$owner:700" ] || return 0
    if [ -f "$1/data/postmaster.pid" ]; then
        as_cluster_owner pg_ctl -D "$1/data" -m immediate stop >/dev/null 2>&1 || true
    fi
    rm -rf "$1"
}

start_scratch_cluster() {
    SCRATCH_RECORD=$1
    lock_checkout "$(dirname "$SCRATCH_RECORD")" || return 1
    if [ -f "$SCRATCH_RECORD" ]; then remove_scratch_dir "$(cat "$SCRATCH_RECORD")"; fi
    SCRATCH_DIR=$(mktemp -d /tmp/simhash-scratch.XXXXXX) || return 1
    echo "$SCRATCH_DIR" > "$SCRATCH_RECORD"
    SCRATCH_PORT=$(free_port "${2:-5490}")
    owned_dir "$SCRATCH_DIR"
    # initdb's output goes to a file of the caller's, not into the cluster
    # owner's directory, where root's redirect would follow a symlink
    local initdb_log
    initdb_log=$(mktemp) || return 1
    if ! as_cluster_owner initdb -D "$SCRATCH_DIR/data" --encoding=UTF8 --no-locale -U postgres >"$initdb_log" 2>&1; then
        cat "$initdb_log" >&2
        rm -f "$initdb_log"
        echo "initdb failed (its output is above)" >&2
        return 1
    fi
    rm -f "$initdb_log"
    if ! as_cluster_owner pg_ctl -D "$SCRATCH_DIR/data" -l "$SCRATCH_DIR/server.log" -w \
        -o "-p $SCRATCH_PORT -k '$SCRATCH_DIR' -c listen_addresses='' ${SCRATCH_SETTINGS:-}" start >/dev/null; then
        as_cluster_owner tail -20 "$SCRATCH_DIR/server.log" >&2
        echo "the scratch server did not start (the end of $SCRATCH_DIR/server.log is above)" >&2
        return 1
    fi
    PSQL=(as_cluster_owner psql -h "$SCRATCH_DIR" -p "$SCRATCH_PORT" -U postgres -X -q -v ON_ERROR_STOP=1)
    # The same connection as a plain command line, for programs that run psql themselves.
    if [ "$(id -u)" -eq 0 ]; then
        PSQL_COMMAND=(runuser -u postgres -- psql -h "$SCRATCH_DIR" -p "$SCRATCH_PORT" -U postgres)
    else
        PSQL_COMMAND=(psql -h "$SCRATCH_DIR" -p "$SCRATCH_PORT" -U postgres)
    fi
}

# A server that does not stop fast is stopped at once; one that stops
# neither way keeps its directory and record for the next run.
stop_scratch_cluster() {
    [ -n "${SCRATCH_DIR:-}" ] || return 0
    as_cluster_owner pg_ctl -D "$SCRATCH_DIR/data" -m fast stop >/dev/null 2>&1 ||
        as_cluster_owner pg_ctl -D "$SCRATCH_DIR/data" -m immediate stop >/dev/null 2>&1 ||
        ! as_cluster_owner pg_ctl -D "$SCRATCH_DIR/data" status >/dev/null 2>&1 || return 0
    rm -rf "$SCRATCH_DIR"
    rm -f "$SCRATCH_RECORD"
}

# Writes standard input to file $1 in the cluster's directory as the cluster
# owner, readable by all: root writing there would follow a symlink the
# owner planted.
write_scratch_file() {
    as_cluster_owner sh -c 'umask 022; cat > "$1"' sh "$1"
}

# One line on the machine a benchmark runs on, for the results file it writes.
describe_machine() {
    local cpu
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
    echo "$(nproc) CPUs (${cpu:-model unknown}), $(awk '/^MemTotal:/ {printf "%.1f", $2 / 1048576}' /proc/meminfo) GiB memory," \
         "$(. /etc/os-release && echo "$PRETTY_NAME"), $("$PG_BINDIR/postgres" --version | sed 's/.*(PostgreSQL) /PostgreSQL /')"
}

# The commit a benchmark measured, for the results file it writes: HEAD of
# the checkout $1, marked when its src/ has changes not committed.
measured_commit() {
    local commit
    commit=$(git -C "$1" rev-parse --short HEAD)
    git -C "$1" diff --quiet HEAD -- src || commit="$commit with uncommitted changes to src"
    echo "$commit"
}
