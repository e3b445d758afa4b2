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
# file there for root's pg_ctl to signal, or a symlink for its chown
# (helper-98).
source "$(dirname "${BASH_SOURCE[0]}")/pg-env.sh"

# Stops the cluster of directory $1 and removes the directory, if $1 is one
# that start_scratch_cluster made.
remove_scratch_dir() {
    case "$1" in /tmp/simhash-scratch.??????) ;; *) return 0 ;; esac
    [ -d "$1" ] && [ ! -L "$1" ] || return 0
    if [ -f "$1/data/postmaster.pid" ]; then
        as_cluster_owner pg_ctl -D "$1/data" -m immediate stop >/dev/null 2>&1 || true
    fi
    rm -rf "$1"
}

start_scratch_cluster() {
    SCRATCH_RECORD=$1
    mkdir -p "$(dirname "$SCRATCH_RECORD")"
    if [ -f "$SCRATCH_RECORD" ]; then remove_scratch_dir "$(cat "$SCRATCH_RECORD")"; fi
    SCRATCH_DIR=$(mktemp -d /tmp/simhash-scratch.XXXXXX)
    echo "$SCRATCH_DIR" > "$SCRATCH_RECORD"
    SCRATCH_PORT=$(free_port "${2:-5490}")
    owned_dir "$SCRATCH_DIR"
    if ! as_cluster_owner initdb -D "$SCRATCH_DIR/data" --encoding=UTF8 --no-locale -U postgres \
        >"$SCRATCH_DIR/initdb.log" 2>&1; then
        cat "$SCRATCH_DIR/initdb.log" >&2
        echo "initdb failed (its output is above)" >&2
        return 1
    fi
    if ! as_cluster_owner pg_ctl -D "$SCRATCH_DIR/data" -l "$SCRATCH_DIR/server.log" -w \
        -o "-p $SCRATCH_PORT -k '$SCRATCH_DIR' -c listen_addresses='' ${SCRATCH_SETTINGS:-}" start >/dev/null; then
        tail -20 "$SCRATCH_DIR/server.log" >&2
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

stop_scratch_cluster() {
    [ -n "${SCRATCH_DIR:-}" ] || return 0
    as_cluster_owner pg_ctl -D "$SCRATCH_DIR/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$SCRATCH_DIR"
    rm -f "$SCRATCH_RECORD"
}
