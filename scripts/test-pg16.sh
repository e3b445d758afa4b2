#!/usr/bin/env bash
# Every test suite on PostgreSQL 16, which no Debian suite ships: built from
# its source into a private prefix, outside the checkout and apart from the
# machine's PostgreSQL 15.  By hand, as root; not part of the test command.
#
#   bash scripts/test-pg16.sh [SOURCE]
#
# SOURCE: an unpacked PostgreSQL 16 source tree (a release tarball or a
# checkout of the REL_16 branch; docs/postgresql-versions.md names the one
# tested), built in place.  Needed only while $PG16_PREFIX (default /opt/postgresql-16) has
# no server: then it is configured with --enable-tap-tests (the TAP suite
# needs PostgreSQL's Perl test modules installed), built with `make -j2` and
# installed, with the two contrib modules the tests use; 15 minutes to an
# hour on 2 cores, by their load.  Later runs reuse the prefix as it is.
#
# Then the suites run with the prefix's bin first on PATH, so that
# pg_config, and with it the build, `make install`, pg_regress, isolation,
# TAP and the differential test, are 16's: the extension is built with
# warnings as errors and installed into the prefix, never into the machine's
# PostgreSQL 15 (so the 15 lock is not taken).  It ends like the test
# command, with "tests: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
PREFIX=${PG16_PREFIX:-/opt/postgresql-16}
SOURCE=${1:-}
CONTRIB="pg_prewarm pg_walinspect"   # the contrib modules the tests create

[ "$(id -u)" -eq 0 ] || { echo "test-pg16: run it as root (it installs into $PREFIX and runs the servers as postgres)" >&2; exit 1; }

if [ ! -x "$PREFIX/bin/postgres" ]; then
    if [ -z "$SOURCE" ] || [ ! -x "$SOURCE/configure" ]; then
        echo "test-pg16: $PREFIX has no PostgreSQL; give an unpacked PostgreSQL 16 source tree: bash $0 SOURCE" >&2
        exit 1
    fi
    version=$(sed -n "s/^PACKAGE_VERSION='\(.*\)'$/\1/p" "$SOURCE/configure")
    case $version in
        16.*) ;;
        *) echo "test-pg16: $SOURCE is PostgreSQL '$version', not 16" >&2; exit 1 ;;
    esac
    # without the parsers a release tarball ships generated (a git checkout,
    # or the tested source: docs/postgresql-versions.md), configure must
    # find bison and flex, or make stops at the first grammar
    if [ ! -f "$SOURCE/src/backend/parser/gram.c" ] && { ! command -v bison >/dev/null || ! command -v flex >/dev/null; }; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bison flex >/dev/null ||
            { echo "test-pg16: bison and flex are needed to build $SOURCE" >&2; exit 1; }
    fi
    echo "test-pg16: building PostgreSQL $version from $SOURCE into $PREFIX"
    logs=$(mktemp -d /tmp/pg16-build.XXXXXX) || exit 1
    if ! (cd "$SOURCE" && ./configure --prefix="$PREFIX" --enable-tap-tests >"$logs/configure.log" 2>&1 &&
          make -j2 -s >"$logs/build.log" 2>&1 && make -s install >"$logs/install.log" 2>&1 &&
          for module in $CONTRIB; do make -s -C "contrib/$module" install || exit 1; done >>"$logs/install.log" 2>&1); then
        tail -30 "$logs"/*.log
        echo "tests: 0 passed, 1 failed (PostgreSQL $version did not build; logs in $logs)"
        exit 1
    fi
    rm -rf "$logs"
fi

major=$("$PREFIX/bin/pg_config" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
if [ "$major" != 16 ]; then
    echo "tests: 0 passed, 1 failed ($PREFIX holds $("$PREFIX/bin/pg_config" --version), not 16)"
    exit 1
fi
echo "test-pg16: $("$PREFIX/bin/pg_config" --version) in $PREFIX"

export PATH="$PREFIX/bin:$PATH"
export PG_CONFIG="$PREFIX/bin/pg_config"
# the suites against the pg_config on PATH: test-suites.sh where the test
# command runs the majors' matrix, test-all.sh where it is the suites alone
if [ -f scripts/test-suites.sh ]; then
    exec bash scripts/test-suites.sh
fi
exec bash scripts/test-all.sh
