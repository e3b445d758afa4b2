# Sourced by benchmarks and the demo-like scripts: start_scratch_cluster NAME
# starts a private server (socket in its directory, no TCP) and sets PSQL and
# SCRATCH_DIR; stop_scratch_cluster stops it.  Extra server settings come
# from $SCRATCH_SETTINGS.
source "$(dirname "${BASH_SOURCE[0]}")/pg-env.sh"

# NAME, a path, names the cluster; it lives in /tmp (scratch_dir_for), where
# the cluster owner can reach it whatever the checkout's parents allow.
scratch_dir_for() {
    printf '/tmp/simhash-%s-%s' "$(basename "$1")" "$(printf '%s' "$1" | md5sum | cut -c1-8)"
}

start_scratch_cluster() {
    SCRATCH_DIR=$(scratch_dir_for "$1")
    SCRATCH_PORT=$(free_port "${2:-5490}")
    if [ -f "$SCRATCH_DIR/data/postmaster.pid" ]; then
        as_cluster_owner pg_ctl -D "$SCRATCH_DIR/data" -m immediate stop >/dev/null 2>&1 || true
    fi
    rm -rf "$SCRATCH_DIR"
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

# Stops the server and removes its directory in /tmp.
stop_scratch_cluster() {
    [ -n "${SCRATCH_DIR:-}" ] || return 0
    as_cluster_owner pg_ctl -D "$SCRATCH_DIR/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$SCRATCH_DIR"
}
