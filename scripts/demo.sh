#!/usr/bin/env bash
# The main job (`bash scripts/demo.sh`, or `make demo`): installs what is
# missing, builds and installs the extension, starts a scratch cluster,
# fingerprints the license and copyright texts every Debian system ships
# (through the trigger), and prints the near-duplicate groups it finds with
# their distances.
#   KEEP=1 bash scripts/demo.sh   leaves the cluster running and prints how to connect.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
source scripts/scratch-cluster.sh
lock_checkout "$ROOT/.scratch"

# make itself may be missing: a fresh Debian 12 has no make
bash scripts/install-deps.sh
make -s -j2
make -s install >/dev/null || fail_install

# The cluster lives in a new directory in /tmp (scratch-cluster.sh): the
# cluster owner cannot reach a checkout under /root or another home of mode
# 0700, where initdb failed.  A cluster kept by KEEP=1 is stopped
# by the next run.
start_scratch_cluster "$ROOT/.scratch/demo" 5488
DIR=$SCRATCH_DIR
PORT=$SCRATCH_PORT
stop_cluster() {
    if [ "${KEEP:-0}" = 1 ]; then
        echo
        echo "The cluster is still running: psql -h $DIR -p $PORT -U postgres"
        echo "  (as root: cd / && runuser -u postgres -- psql -h $DIR -p $PORT -U postgres)"
        echo "Stop it with: cd / && runuser -u postgres -- $PG_BINDIR/pg_ctl -D $DIR/data stop"
        echo "  (or run the demo again, which stops it first)"
    else
        stop_scratch_cluster
    fi
}
trap stop_cluster EXIT

# The texts: every license in /usr/share/common-licenses and every package's
# copyright file (many embed a license, some are mirrors of each other).
FILES="$DIR/files.txt"
ls -1 /usr/share/common-licenses/* /usr/share/doc/*/copyright 2>/dev/null | while read -r f; do
    [ -f "$f" ] && [ -r "$f" ] && echo "$f"
done | write_scratch_file "$FILES"

psql_demo() { as_cluster_owner psql -h "$DIR" -p "$PORT" -U postgres -X -q -v ON_ERROR_STOP=1 "$@"; }
psql_demo -v files="$FILES" <<'SQL'
CREATE EXTENSION simhash;

CREATE TABLE docs (
    id     bigserial PRIMARY KEY,
    source text NOT NULL,
    body   text,
    fp     simhash
);
-- The fingerprint follows the body on every INSERT and UPDATE.
CREATE TRIGGER docs_fingerprint BEFORE INSERT OR UPDATE ON docs
    FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body');

-- Files that are not valid UTF-8 are read as Latin-1 rather than dropped.
CREATE FUNCTION read_text(path text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    RETURN convert_from(pg_read_binary_file(path), 'UTF8');
EXCEPTION WHEN character_not_in_repertoire OR untranslatable_character THEN
    RETURN convert_from(pg_read_binary_file(path), 'LATIN1');
END $$;

CREATE TEMP TABLE files (path text);
\set copy_files '\\copy files FROM ' :'files'
:copy_files
INSERT INTO docs (source, body)
SELECT regexp_replace(path, '^/usr/share/(doc/|common-licenses/)', ''), read_text(path) FROM files;

-- The index, when this build has the simhash access method.
SELECT EXISTS (SELECT 1 FROM pg_am WHERE amname = 'simhash') AS have_index \gset
\if :have_index
CREATE INDEX docs_fp_idx ON docs USING simhash (fp);
\endif
ANALYZE docs;

\echo
\echo '== Loaded'
SELECT count(*) AS documents, count(fp) AS fingerprinted,
       pg_size_pretty(sum(length(body))) AS text FROM docs;

\echo
\echo '== Near-duplicate groups (Hamming distance <= simhash.threshold = 3)'
-- Pairs of different texts within the threshold, then groups: the documents
-- linked by chains of such pairs (single link), each group named by its
-- smallest id.  A chain a ~ b ~ c puts all three in one group even when a
-- and c are farther apart; a group took only one hop before, which split
-- such a chain and showed a group without its first member.
CREATE TEMP TABLE pairs AS
SELECT a.id AS a, b.id AS b, a.fp <-> b.fp AS distance
  FROM docs a JOIN docs b ON a.fp % b.fp AND a.id < b.id AND a.body IS DISTINCT FROM b.body;
-- Each document starts as its own group and takes the smallest group of its
-- pairs until none changes: a pass per link of the longest chain, each in
-- time linear in the pairs (a recursive CTE of every member a member
-- reaches took the cube of a group's size: 17 s for 400 near copies).
CREATE TEMP TABLE groups AS SELECT a AS id, a AS grp FROM pairs UNION SELECT b, b FROM pairs;
CREATE TEMP TABLE links AS SELECT a AS x, b AS y FROM pairs UNION ALL SELECT b, a FROM pairs;
DO $$
BEGIN
    LOOP
        UPDATE groups g SET grp = n.grp
          FROM (SELECT l.x AS id, min(o.grp) AS grp FROM links l JOIN groups o ON o.id = l.y GROUP BY l.x) n
         WHERE n.id = g.id AND n.grp < g.grp;
        EXIT WHEN NOT FOUND;
    END LOOP;
END $$;
SELECT count(DISTINCT grp) AS groups, count(*) AS documents_in_groups,
       (SELECT count(*) FROM pairs) AS near_duplicate_pairs,
       (SELECT count(*) - count(DISTINCT body) FROM docs) AS exact_repeats_left_out
  FROM groups;
\echo 'A group is the documents linked by chains of such pairs, so a member can lie farther from the first.'
SELECT g.grp AS "group", count(*) AS members, max(d.fp <-> f.fp) AS "max distance to first",
       left(string_agg(d.source, ', ' ORDER BY d.source), 110) AS "members"
  FROM groups g JOIN docs d ON d.id = g.id JOIN docs f ON f.id = g.grp
 GROUP BY g.grp ORDER BY count(*) DESC, g.grp LIMIT 15;

\echo
\echo '== Pairs at distance 1 to 3 (different text), with the share of 3-word shingles they have in common'
-- Share of distinct 3-word shingles the two texts have in common.
CREATE FUNCTION pg_temp.shingle_jaccard(a text, b text) RETURNS numeric LANGUAGE sql AS $$
    WITH x AS (SELECT DISTINCT unnest(simhash_features(a, 'words', 3)) AS f),
         y AS (SELECT DISTINCT unnest(simhash_features(b, 'words', 3)) AS f)
    SELECT round((SELECT count(*) FROM x JOIN y USING (f))::numeric
                 / nullif((SELECT count(*) FROM (SELECT f FROM x UNION SELECT f FROM y) u), 0), 2) $$;
SELECT a.source, b.source, p.distance, pg_temp.shingle_jaccard(a.body, b.body) AS "shared shingles"
  FROM pairs p JOIN docs a ON a.id = p.a JOIN docs b ON b.id = p.b
 WHERE p.distance > 0 ORDER BY p.distance, a.source LIMIT 12;
\echo 'Files that only embed the same license text come out close with plain term counts;'
\echo 'the IDF section at the end weighs that boilerplate down.'

\echo
\echo '== Nearest neighbours of GPL-3 (ORDER BY fp <-> query LIMIT 5)'
SELECT source, fp <-> (SELECT fp FROM docs WHERE source = 'GPL-3') AS distance
  FROM docs WHERE source <> 'GPL-3'
 ORDER BY fp <-> (SELECT fp FROM docs WHERE source = 'GPL-3'), source LIMIT 5;

\echo
\echo '== Stopping a near-duplicate at the door'
-- A reposted copy of Apache-2.0 with a changed header is caught on insert.
WITH incoming AS (
    SELECT simhash('Reposted from our wiki. ' || body) AS fp FROM docs WHERE source = 'Apache-2.0'
)
SELECT d.source AS already_stored, d.fp <-> i.fp AS distance
  FROM docs d, incoming i WHERE d.fp % i.fp ORDER BY distance, d.source LIMIT 5;

\echo
\echo '== Refusing near-duplicates with a constraint (EXCLUDE USING simhash (fp WITH %))'
-- A table that keeps one copy of each text: loading every document with
-- ON CONFLICT DO NOTHING keeps the first of each near-duplicate group.
CREATE TABLE library (
    source text NOT NULL,
    body   text,
    fp     simhash GENERATED ALWAYS AS (simhash(body)) STORED,
    EXCLUDE USING simhash (fp WITH %)
);
INSERT INTO library (source, body) SELECT source, body FROM docs ORDER BY id ON CONFLICT DO NOTHING;
SELECT (SELECT count(*) FROM docs) AS offered, count(*) AS kept,
       (SELECT count(*) - count(DISTINCT body) FROM docs) AS "refused: exact copies",
       (SELECT count(DISTINCT body) FROM docs) - count(*) AS "refused: near-duplicates"
  FROM library;
-- Without ON CONFLICT the repost is an error naming the stored copy.
DO $$
BEGIN
    INSERT INTO library (source, body)
    SELECT 'repost', 'Reposted from our wiki. ' || body FROM docs WHERE source = 'Apache-2.0';
EXCEPTION WHEN exclusion_violation THEN
    RAISE NOTICE '% (the stored copy: %)', SQLERRM, (SELECT source FROM library
                                    WHERE fp % simhash('Reposted from our wiki. ' ||
                                          (SELECT body FROM docs WHERE source = 'Apache-2.0')) LIMIT 1);
END $$;

\echo
\echo '== The same corpus with IDF weights (one genre: shared license boilerplate stops counting)'
-- Copyright files share whole license texts, so plain term counts pull
-- files together that only embed the same license.  Corpus document
-- frequencies (simhash_idf_agg) down-weight what every file says.
CREATE MATERIALIZED VIEW corpus_idf AS SELECT simhash_idf_agg(body) AS idf FROM docs;
ALTER TABLE docs ADD COLUMN fp_idf simhash;
UPDATE docs SET fp_idf = simhash(body, (SELECT idf FROM corpus_idf));
CREATE TEMP TABLE pairs_idf AS
SELECT a.id AS a, b.id AS b, a.fp <-> b.fp AS distance, a.fp_idf <-> b.fp_idf AS distance_idf
  FROM docs a JOIN docs b ON a.id < b.id AND a.body IS DISTINCT FROM b.body
 WHERE a.fp <-> b.fp <= 3 OR a.fp_idf <-> b.fp_idf <= 3;
SELECT count(*) FILTER (WHERE distance <= 3) AS "pairs within 3, term counts",
       count(*) FILTER (WHERE distance_idf <= 3) AS "pairs within 3, IDF"
  FROM pairs_idf;
\echo 'Pairs within 3 with IDF, and how much text they share:'
SELECT a.source, b.source, p.distance_idf AS "distance (IDF)", p.distance AS "(counts)",
       pg_temp.shingle_jaccard(a.body, b.body) AS "shared shingles"
  FROM pairs_idf p JOIN docs a ON a.id = p.a JOIN docs b ON b.id = p.b
 WHERE p.distance_idf <= 3 ORDER BY p.distance_idf, a.source, b.source LIMIT 8;
\echo 'Pairs within 3 by term counts only:'
SELECT a.source, b.source, p.distance AS "distance (counts)", p.distance_idf AS "(IDF)",
       pg_temp.shingle_jaccard(a.body, b.body) AS "shared shingles"
  FROM pairs_idf p JOIN docs a ON a.id = p.a JOIN docs b ON b.id = p.b
 WHERE p.distance_idf > 3 ORDER BY pg_temp.shingle_jaccard(a.body, b.body), a.source, b.source LIMIT 8;
SQL
