#!/usr/bin/env bash
# Tests of the scripts' own safeguards (scripts/pg-env.sh and
# scripts/scratch-cluster.sh), which the README's two commands rely on:
#   - one run at a time in a checkout (lock_checkout), and a server a run
#     leaves behind does not keep the checkout locked;
#   - remove_scratch_dir acts only on a directory start_scratch_cluster made;
#   - README's Contents and its links inside the file match its sections;
#   - README links every guide in docs/, and every link in README and the
#     guides names an existing file and heading;
#   - README's Layout lists every file under src/ and every top-level
#     directory, and nothing that does not exist;
#   - META.json is valid PGXN metadata of this tree, and make dist packs it.
# Prints "ok N - ..." or "not ok N - ..." per check, then "scripts: P passed,
# F failed"; exits non-zero when a check failed.  Run as root or as the
# cluster owner, from anywhere: bash test/scripts/run.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/scratch-cluster.sh

n=0
bad=0
check() {  # check DESCRIPTION COMMAND...
    n=$((n + 1))
    if "${@:2}"; then echo "ok $n - $1"; else echo "not ok $n - $1"; bad=$((bad + 1)); fi
}

T=$(mktemp -d /tmp/simhash-scripts-test.XXXXXX) || exit 1
LOCKS="$T/checkout/.scratch"
# also when stopped midway: the scratch server and the directories made
# for the checks below, which live outside $T
cleanup() {
    if [ -f "$LOCKS/kept" ]; then remove_scratch_dir "$(cat "$LOCKS/kept")"; fi
    rm -rf "$T" "${victim:-}" "${other:-}" "${target:-}"
    if [ -n "${link:-}" ]; then rm -f "$link"; fi
    if [ -n "${lingering:-}" ]; then kill "$lingering" 2>/dev/null; fi
    if [ -n "${orphan:-}" ]; then kill "$orphan" 2>/dev/null; fi
}
trap cleanup EXIT
lock_free() { flock -w 3 "$LOCKS/lock" true; }  # within a moment of the holder's end

# --- one run at a time
# a first run holds the lock for 2 s; a second one must say it waits, and
# get the lock only once the first has ended
(lock_checkout "$LOCKS" && touch "$T/first-holds" && sleep 2 && date +%s.%N >"$T/first-ended") &
first=$!
for _ in $(seq 50); do [ -f "$T/first-holds" ] && break; sleep 0.1; done
(lock_checkout "$LOCKS" && date +%s.%N >"$T/second-locked") 2>"$T/second-err"
wait "$first"
check "a second run in the checkout says it waits, and for which process" \
    grep -q "another run is using this checkout (process [0-9]" "$T/second-err"
check "a second run gets the lock only after the first ends" \
    awk -v a="$(cat "$T/first-ended" 2>/dev/null)" -v b="$(cat "$T/second-locked" 2>/dev/null)" \
    'BEGIN { exit !(a != "" && b != "" && b + 0 >= a + 0) }'
check "the lock is released once its holder has ended" lock_free
check "a run that is alone does not wait" bash -c "source scripts/pg-env.sh; lock_checkout '$LOCKS' 2>'$T/alone-err'; [ ! -s '$T/alone-err' ]"
lock_free
check "lock_checkout twice in one run does not wait for itself" \
    timeout 5 bash -c "source scripts/pg-env.sh; lock_checkout '$LOCKS' && lock_checkout '$LOCKS'"
lock_free
check "a script the run starts may lock the same checkout (a nested run)" \
    timeout 5 bash -c "source scripts/pg-env.sh; lock_checkout '$LOCKS' && bash -c 'source scripts/pg-env.sh; lock_checkout \"\$1\"' _ '$LOCKS'"
lock_free
# runs one after another: no message, though the last one's watcher may
# still be polling (9 of 10 said they waited)
for _ in 1 2 3 4 5; do bash -c "source scripts/pg-env.sh; lock_checkout '$LOCKS'" 2>>"$T/sequential-err"; done
check "runs one after another do not say they wait" [ ! -s "$T/sequential-err" ]
lock_free
# a run that has ended but that its parent has not reaped yet (a zombie)
# holds nothing: a parent may reap late (the next run waited)
perl -e 'my $pid = fork // die; if ($pid == 0) { exec "bash", "-c", "source scripts/pg-env.sh; lock_checkout \"$ARGV[0]\"" }
         sleep 4; waitpid($pid, 0)' "$LOCKS" &
reaper=$!
sleep 1.5
check "a run ended but not yet reaped does not keep the lock" \
    timeout 2 bash -c "source scripts/pg-env.sh; lock_checkout '$LOCKS'"
wait "$reaper"
lock_free
# a run killed while it waits: its watcher gives up instead of taking the
# lock later for a dead process
bash -c "source scripts/pg-env.sh; lock_checkout '$LOCKS' && touch '$T/holder-holds' && sleep 4" &
holder=$!
for _ in $(seq 50); do [ -f "$T/holder-holds" ] && break; sleep 0.1; done
bash -c "source scripts/pg-env.sh; lock_checkout '$LOCKS'" 2>/dev/null &
waiter=$!
sleep 1.5
kill -TERM "$waiter"
wait "$holder"
lock_free
check "a run killed while it waits leaves no watcher to take the lock" \
    bash -c '[ "$(cat "$1/lock.pid")" != "$2" ]' _ "$LOCKS" "$waiter"
check "a bare wait in the locking script returns" \
    timeout 5 bash -c "source scripts/pg-env.sh; lock_checkout '$LOCKS'; sleep 0.1 & wait"
lock_free
# a killed run's lock is released; so is the lock of a run whose child
# outlives it (every process the run starts inherits its descriptors)
bash -c "source scripts/pg-env.sh; lock_checkout '$LOCKS' && { sleep 60 & echo \$! >'$T/orphan'; wait; }" &
killed=$!
for _ in $(seq 50); do [ -s "$T/orphan" ] && break; sleep 0.1; done
{ kill -KILL "$killed"; wait "$killed"; } 2>/dev/null
orphan=$(cat "$T/orphan")
check "a run killed with SIGKILL does not keep the lock (its child lives on)" lock_free
kill "$orphan"
bash -c "source scripts/pg-env.sh; lock_checkout '$LOCKS' && { sleep 60 & echo \$! >'$T/lingering'; }"
lingering=$(cat "$T/lingering")
check "a process that outlives its run does not keep the lock" lock_free
kill "$lingering"

# a server the run leaves running (as KEEP=1 does) must not hold the lock:
# the next run would wait for it forever
owned_dir "$T/checkout"
(start_scratch_cluster "$LOCKS/kept" 5600 >/dev/null 2>"$T/start-err") || cat "$T/start-err"
kept=$(cat "$LOCKS/kept" 2>/dev/null)
check "the scratch server started" [ -f "$kept/data/postmaster.pid" ]
check "a server left running does not hold the checkout's lock" lock_free
remove_scratch_dir "$kept"
check "remove_scratch_dir stops and removes what start_scratch_cluster made" [ ! -e "$kept" ]

# --- remove_scratch_dir refuses anything else
# a directory of the right name shape, but not the cluster owner's mode 0700
# (made here by mktemp, then opened up): another user could have made it
victim=$(mktemp -d /tmp/simhash-scratch.XXXXXX)
owned_dir "$victim"
chmod 755 "$victim"
remove_scratch_dir "$victim"
check "a scratch-shaped directory of mode 0755 is left alone" [ -d "$victim" ]
rm -rf "$victim"
other=$(mktemp -d /tmp/simhash-scratch.XXXXXX)
if [ "$(id -u)" -eq 0 ]; then
    # root's own directory: not the cluster owner's
    remove_scratch_dir "$other"
    check "a scratch-shaped directory of another owner is left alone" [ -d "$other" ]
fi
rm -rf "$other"
# the cluster owner's, mode 0700: only its name refuses it
owned_dir "$T/not-scratch"
chmod 700 "$T/not-scratch"
remove_scratch_dir "$T/not-scratch"
check "a directory of another name shape is left alone" [ -d "$T/not-scratch" ]
target=$(mktemp -d /tmp/simhash-scratch.XXXXXX)
owned_dir "$target"
chmod 700 "$target"
link="/tmp/simhash-scratch.$(tr -dc 'A-Za-z0-9' </dev/urandom | head -c 6)"
ln -s "$target" "$link"
remove_scratch_dir "$link"
# (a symlink's own mode is 0777, so the mode test refuses it as well)
check "a symlink of the scratch shape is left alone, and its target too" bash -c '[ -L "$1" ] && [ -d "$2" ]' _ "$link" "$target"

# --- README: its Contents lists every section, and every link inside it
# names a section (one was left out once)
anchors() {  # the GitHub anchor of each ## and ### heading outside code blocks
    awk '/^```/ { code = !code } !code && /^###? / { sub(/^#+ /, ""); print }' README.md |
        tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g' | grep -vx contents | sort
}
contents() {  # the anchors README's Contents links to
    sed -n '/^## Contents/,/^## /p' README.md | sed -n 's/^ *- \[.*\](#\(.*\))$/\1/p' | sort
}
check "README's Contents lists every section, and only those" diff <(anchors) <(contents)
check "every link inside README names a section" \
    bash -c 'diff <(grep -o "](#[^)]*)" README.md | sed "s/^](#//; s/)$//" | sort -u | comm -23 - <(echo "$1" | sort)) /dev/null' _ "$(anchors)"

# --- docs/: README links every guide there, and every relative link in README
# or in a guide (to a guide, a results file, a source file) names an existing
# file and, with #anchor, one of its headings.  Images are left out.  Each
# failing check prints what is wrong.
prose() {  # the lines of a Markdown file outside ``` code blocks
    awk '/^ *```/ { code = !code; next } !code' "$1"
}
md_anchors() {  # the GitHub anchor of every heading of a Markdown file
    prose "$1" | sed -n 's/^#\{1,6\} \(.*\)$/\1/p' |
        tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g' | sort -u
}
md_links() {  # FILE: each relative link target (images left out), as "PATH#ANCHOR" from the checkout
    local dir
    dir=$(dirname "$1")
    prose "$1" | grep -o '!\?\[[^]]*\]([^)# ]\+\(#[^) ]*\)\?)' | grep -v '^!' |
        sed 's/^.*](//; s/)$//' | grep -v '^[a-z]\+:' |
        while IFS= read -r target; do
            local path=${target%%#*} anchor=
            [ "$path" != "$target" ] && anchor=${target#*#}
            path=$(realpath -m --relative-to=. "$dir/$path")
            echo "$path#$anchor"
        done
}
links_resolve() {  # FILE...: every relative link in them names an existing file, and a heading of it (.md)
    local f target path anchor bad=0
    for f in "$@"; do
        while IFS= read -r target; do
            path=${target%%#*}
            anchor=${target#*#}
            if [ ! -e "$path" ]; then
                echo "  $f links to $path, which does not exist"; bad=1
            elif [ -n "$anchor" ] && { [[ $path != *.md ]] || ! md_anchors "$path" | grep -qxF -- "$anchor"; }; then
                echo "  $f links to $path#$anchor, which names no heading of $path"; bad=1
            fi
        done < <(md_links "$f")
        while IFS= read -r anchor; do
            if ! md_anchors "$f" | grep -qxF -- "$anchor"; then
                echo "  $f links to #$anchor, which names no heading of $f"; bad=1
            fi
        done < <(prose "$f" | grep -o '](#[^) ]*)' | sed 's/^](#//; s/)$//' | sort -u)
    done
    return "$bad"
}
guides_linked() {  # every docs/*.md is linked from README
    local g bad=0 linked
    linked=$(md_links README.md | sed 's/#.*//' | sort -u)
    for g in docs/*.md; do
        [ -f "$g" ] || continue
        if ! grep -qxF -- "$g" <<<"$linked"; then echo "  README does not link to $g"; bad=1; fi
    done
    return "$bad"
}
check "every link from README to docs/ and other files names an existing file and heading" links_resolve README.md
check "every guide in docs/ is linked from README" guides_linked
guides_links_resolve() {  # links_resolve over every docs/*.md there is
    local guides=(docs/*.md)
    [ -e "${guides[0]}" ] || return 0
    links_resolve "${guides[@]}"
}
check "every link from a guide in docs/ names an existing file and heading" guides_links_resolve

# --- README's Layout is the one file map: one line per file under src/, one
# per directory elsewhere.  Every file under src/ and every top-level
# directory is listed, and every path listed exists; the check names each
# path that is missing on either side.
layout_paths() {  # the paths README's Layout lists: "  name  description", two spaces a level
    sed -n '/^## Layout/,/^## /p' README.md |
        awk '/^```/ { if (seen) exit; seen = 1; inblock = 1; next }
             inblock && NF {
                 match($0, /^ */); depth = RLENGTH / 2
                 path = (depth > 0 ? dir[depth - 1] : "") $1
                 if (path ~ /\/$/) dir[depth] = path
                 print path
             }'
}
tree_files() {  # files of the tree: git's view (ignored build files left out), else find's
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files --cached --others --exclude-standard -- "$@" 2>/dev/null
    else
        find "$@" -type f ! -name '*.o' ! -name '*.bc' ! -name '*.so' ! -path '*/.deps/*' \
            ! -path '*/__pycache__/*' 2>/dev/null | sed 's|^\./||'
    fi
}
layout_complete() {
    local listed expected p bad=0
    listed=$(layout_paths | sort -u)
    expected=$( { tree_files src; tree_files . | grep / | cut -d/ -f1 | sed 's|$|/|'; } |
                grep -v '^\(\.git\|\.scratch\|results\|tmp_check\|log\)/$' | sort -u)
    if [ -z "$listed" ]; then echo "  README has no Layout code block"; return 1; fi
    while IFS= read -r p; do
        [ -n "$p" ] || continue
        if ! grep -qxF -- "$p" <<<"$listed"; then echo "  README's Layout lacks $p"; bad=1; fi
    done <<<"$expected"
    while IFS= read -r p; do
        if [ ! -e "$p" ]; then echo "  README's Layout lists $p, which does not exist"; bad=1; fi
    done <<<"$listed"
    return "$bad"
}
check "README's Layout lists every file under src/ and every top-level directory, and only those that exist" \
    layout_complete

# --- the majors: every call whose signature or field differs between
# PostgreSQL majors goes through src/pg/pg_compat.h's macros.  A direct
# call builds on the host's 15 and breaks another major (the pair walk's
# table_index_fetch_begin(heap) broke the build on 19).
raw_version_calls() {
    grep -rnE '\b(vacuum_delay_point|table_index_fetch_begin|PageSetChecksumInplace|PageSetChecksum|TupleDescFinalize)\(|\b(rd_locator|rd_node|smgr_rlocator|smgr_rnode)\b' \
        src --include='*.c' --include='*.cpp' --include='*.h' --include='*.hpp' | grep -v '^src/pg/pg_compat.h:'
}
no_raw_version_calls() {
    local found
    found=$(raw_version_calls)
    [ -z "$found" ] || { printf '  %s\n' "$found"; return 1; }
}
check "outside src/pg/pg_compat.h, no direct call of an API that differs between majors" no_raw_version_calls

# --- packaging: META.json, PGXN's metadata, against the PGXN Meta Spec
# 1.0.0 and the tree; make dist's archive (test/scripts/check_meta.py)
meta() { python3 test/scripts/check_meta.py "$@"; }
check "META.json parses as JSON" python3 -m json.tool META.json /dev/null
check "META.json is valid PGXN Meta Spec 1.0.0 (required keys, shapes, SemVer)" meta spec
check "the spec check refuses META.json missing a required key or with a bad value" meta self-test
check "META.json's versions are simhash.control's default_version" meta version
check "META.json provides one extension per control file, no other" meta provides
check "every file META.json names exists" meta files
check "META.json's minimum PostgreSQL is the one src/pg/pg_compat.h enforces" meta prereqs
if git rev-parse --verify -q HEAD >/dev/null 2>&1; then
    check "make dist writes simhash-VERSION.zip of HEAD, META.json at its top" \
        bash -c 'make -s dist DIST="$1" >/dev/null && python3 test/scripts/check_meta.py zip "$1"' _ "$T/dist.zip"
fi

echo "scripts: $((n - bad)) passed, $bad failed"
[ "$bad" -eq 0 ]
