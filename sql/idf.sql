-- Corpus weights: the simhash_idf type, simhash_idf_agg and simhash(text, simhash_idf).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv abs_builddir PG_ABS_BUILDDIR
\set sqlstate_of :abs_srcdir '/sql/include/sqlstate_of.psql'
\i :sqlstate_of

CREATE TABLE idf_corpus (id int PRIMARY KEY, body text);
INSERT INTO idf_corpus VALUES
  (1, 'Old cat sat on old mat.'), (2, 'Old dog ate old bone, old dog slept.'),
  (3, 'Old sun rose over old hill'), (4, 'A bird sang in old tree'),
  (5, 'Old river ran to old sea; a cat watched'), (6, NULL), (7, '...');

-- The text form is a summary.  NULL documents are skipped; a document without
-- features still counts.  Only features in two or more documents are stored
-- (here: old, cat and a; the mixed tokenizer's features include English
-- function words such as "a" and "on").
SELECT simhash_idf_agg(body) FROM idf_corpus;
SELECT simhash_idf_agg(body, 'chars', 3) FROM idf_corpus;
SELECT simhash_idf_agg(body) IS NULL AS no_rows FROM idf_corpus WHERE false;
SELECT simhash_idf_agg(body) IS NULL AS only_nulls FROM idf_corpus WHERE body IS NULL;
SELECT simhash_idf_agg(body, NULL, 2) IS NULL AS null_tokenizer_skipped FROM idf_corpus;
SELECT simhash_idf_agg(body) FROM idf_corpus WHERE id = 1;
SELECT simhash_idf_agg(body) FROM idf_corpus GROUP BY id % 2 ORDER BY id % 2;

-- The text form cannot be read back.
SELECT 'simhash_idf(documents=6, features=3, tokenizer=mixed, n=2)'::simhash_idf;

CREATE TABLE idf_value AS
SELECT simhash_idf_agg(body) AS idf, count(body) AS documents FROM idf_corpus;

-- simhash(document, idf) is simhash(features, weights) with every occurrence
-- weighted ln(1 + N / df), df counted here by hand (df = 1 for a feature in
-- one document, or none).
CREATE TABLE idf_df AS
SELECT f AS feature, count(DISTINCT id) AS df FROM idf_corpus, unnest(simhash_features(body)) f GROUP BY f;
SELECT d.id, simhash(d.body, v.idf) AS idf_weighted,
       simhash(d.body, v.idf) IS NOT DISTINCT FROM
       (SELECT simhash(array_agg(u.f ORDER BY u.o),
                       array_agg(ln(1 + v.documents::float8 / coalesce(df.df, 1)) ORDER BY u.o))
          FROM unnest(simhash_features(d.body)) WITH ORDINALITY u(f, o)
          LEFT JOIN idf_df df ON df.feature = u.f) AS equals_by_hand
  FROM idf_corpus d, idf_value v ORDER BY d.id;
SELECT simhash('Old dog and old unicorn', v.idf) =
       (SELECT simhash(array_agg(u.f ORDER BY u.o),
                       array_agg(ln(1 + v.documents::float8 / coalesce(df.df, 1)) ORDER BY u.o))
          FROM unnest(simhash_features('Old dog and old unicorn')) WITH ORDINALITY u(f, o)
          LEFT JOIN idf_df df ON df.feature = u.f) AS new_document_equals_by_hand
  FROM idf_value v;

-- A word in (almost) every document weighs least: next to an unseen word it
-- no longer decides any bit, while unweighted the two tie and split the bits.
SELECT simhash('old zebra', v.idf) = simhash('zebra'::text) AS rare_word_decides,
       simhash('old zebra'::text) = simhash('zebra'::text) AS unweighted_decides
  FROM idf_value v;
-- Weighted through the published weighted-vote path: one weighted vote per occurrence.
SELECT simhash('cat cat old', v.idf) = simhash(ARRAY['cat', 'cat', 'old'],
                                              ARRAY[ln(1 + 6 / 2.0), ln(1 + 6 / 2.0), ln(1 + 6 / 5.0)]::float8[])
       AS term_frequency_times_idf
  FROM idf_value v;

-- NULLs and values without features.
SELECT simhash(NULL::text, v.idf) IS NULL AS null_text, simhash('x', NULL::simhash_idf) IS NULL AS null_idf,
       simhash('', v.idf) IS NULL AS empty, simhash('!?', v.idf, 'mixed', 1) IS NULL AS punctuation
  FROM idf_value v;

-- Tokenizer arguments: the errors of simhash(text, tokenizer, n), and the
-- tokenizer must be the one the counts were made with.
SELECT simhash('text', v.idf, 'sentences', 2) FROM idf_value v;
SELECT simhash('text', v.idf, 'mixed', 0) FROM idf_value v;
SELECT simhash('text', v.idf, 'words', 2) FROM idf_value v;
SELECT simhash('text', v.idf, 'mixed', 1) = simhash('text', v.idf) AS defaults_are_mixed_1 FROM idf_value v;
SELECT simhash('text', v.idf, 'mixed', 2) FROM idf_value v;
SELECT simhash('some text', simhash_idf_agg(body, 'words', 2), 'words', 2) IS NOT NULL AS words_2
  FROM idf_corpus;
-- Without a tokenizer, simhash(text, idf) tokenizes as the counts were made
-- (it used to insist on the default, mixed with n = 1, and fail here).
SELECT simhash('some text with words', idf, 'words', 2) = simhash('some text with words', idf) AS follows_counts,
       simhash('some text with words', idf) <> simhash('some text with words', simhash_idf_agg_default) AS not_default
  FROM (SELECT simhash_idf_agg(body, 'words', 2) AS idf, simhash_idf_agg(body) AS simhash_idf_agg_default
          FROM idf_corpus) c;
SELECT simhash_idf_agg(body, 'sentences', 2) FROM idf_corpus;
SELECT simhash_idf_agg(body, CASE WHEN id < 3 THEN 'mixed' ELSE 'chars' END, 2) FROM idf_corpus;
SELECT pg_temp.sqlstate_of($$SELECT 'x'::simhash_idf$$) AS text_input,
       pg_temp.sqlstate_of($$SELECT simhash('t', idf, 'sentences', 2) FROM idf_value$$) AS unknown_tokenizer,
       pg_temp.sqlstate_of($$SELECT simhash('t', idf, 'words', 33) FROM idf_value$$) AS bad_n,
       pg_temp.sqlstate_of($$SELECT simhash('t', idf, 'chars', 2) FROM idf_value$$) AS other_tokenizer,
       pg_temp.sqlstate_of($$SELECT simhash_idf_agg(body, 'words', 0) FROM idf_corpus$$) AS agg_bad_n;

-- The binary form carries the table and round-trips (COPY BINARY).
CREATE TABLE idf_copy (idf simhash_idf);
\set copy_file :abs_builddir '/results/idf_copy.bin'
COPY idf_value (idf) TO :'copy_file' WITH (FORMAT binary);
COPY idf_copy FROM :'copy_file' WITH (FORMAT binary);
SELECT c.idf::text, simhash_idf_send(c.idf) = simhash_idf_send(v.idf) AS binary_round_trip
  FROM idf_copy c, idf_value v;
-- A damaged binary value is refused (22P03), naming what it claims.  A
-- bytea column in binary COPY is the same bytes on the wire, so a send
-- result with a byte changed stands in for a damaged file.
CREATE TABLE idf_damaged (b bytea);
INSERT INTO idf_damaged SELECT set_byte(simhash_idf_send(idf), 1, 7) FROM idf_value;  -- tokenizer 7
\set damaged_file :abs_builddir '/results/idf_damaged.bin'
COPY idf_damaged TO :'damaged_file' WITH (FORMAT binary);
COPY idf_copy FROM :'damaged_file' WITH (FORMAT binary);
UPDATE idf_damaged SET b = set_byte(b, 1, 2);   -- mixed again; now the documents: 0
UPDATE idf_damaged SET b = overlay(b PLACING '\x0000000000000000'::bytea FROM 4 FOR 8);
COPY idf_damaged TO :'damaged_file' WITH (FORMAT binary);
COPY idf_copy FROM :'damaged_file' WITH (FORMAT binary);
-- a count past 2^63 - 1 (the wire's signed int64 read as -1) is refused too
UPDATE idf_damaged SET b = overlay(b PLACING '\xffffffffffffffff'::bytea FROM 4 FOR 8);
COPY idf_damaged TO :'damaged_file' WITH (FORMAT binary);
COPY idf_copy FROM :'damaged_file' WITH (FORMAT binary);
-- the detail names what is wrong: a df out of range, then hashes out of order
-- (bytes 20-27 are the first feature's hash, 28-35 its df, 36-43 the second's hash)
UPDATE idf_damaged SET b = overlay(s.b PLACING '\x0000000000000001'::bytea FROM 28 FOR 8)
  FROM (SELECT simhash_idf_send(idf) AS b FROM idf_value) s;
COPY idf_damaged TO :'damaged_file' WITH (FORMAT binary);
COPY idf_copy FROM :'damaged_file' WITH (FORMAT binary);
UPDATE idf_damaged SET b = overlay(s.b PLACING substr(s.b, 20, 8) FROM 36 FOR 8)
  FROM (SELECT simhash_idf_send(idf) AS b FROM idf_value) s;
COPY idf_damaged TO :'damaged_file' WITH (FORMAT binary);
COPY idf_copy FROM :'damaged_file' WITH (FORMAT binary);
-- a field cut inside the 19-byte header: 22P03 too, not the wire's 08P01
UPDATE idf_damaged SET b = substr(s.b, 1, 0) FROM (SELECT simhash_idf_send(idf) AS b FROM idf_value) s;
COPY idf_damaged TO :'damaged_file' WITH (FORMAT binary);
COPY idf_copy FROM :'damaged_file' WITH (FORMAT binary);
UPDATE idf_damaged SET b = substr(s.b, 1, 18) FROM (SELECT simhash_idf_send(idf) AS b FROM idf_value) s;
COPY idf_damaged TO :'damaged_file' WITH (FORMAT binary);
COPY idf_copy FROM :'damaged_file' WITH (FORMAT binary);
SELECT pg_temp.sqlstate_of(format('COPY idf_copy FROM %L WITH (FORMAT binary)', :'damaged_file')) AS cut_in_header;
SELECT count(*) AS rows_after_refusals FROM idf_copy;
DROP TABLE idf_damaged;

-- Documents sharing only common words (not function words, which the mixed
-- tokenizer drops anyway): IDF weighting pulls them apart.
CREATE TABLE idf_articles AS
SELECT g AS id,
       'data system user file value time number name list type form line text page note table report version update section '
       || 'topic' || g || ' subject' || g || ' item' || (g % 300) || ' part' || (g % 250) AS body
  FROM generate_series(1, 600) g;
CREATE TABLE idf_articles_value AS SELECT simhash_idf_agg(body) AS idf FROM idf_articles;
SELECT idf FROM idf_articles_value;
SELECT simhash(a.body, v.idf) <-> simhash(b.body, v.idf) > simhash(a.body) <-> simhash(b.body) AS farther_apart,
       simhash(a.body) <-> simhash(b.body) AS unweighted_distance
  FROM idf_articles a, idf_articles b, idf_articles_value v WHERE a.id = 1 AND b.id = 2;
SELECT avg(simhash(a.body, v.idf) <-> simhash(b.body, v.idf)) > avg(simhash(a.body) <-> simhash(b.body))
       AS farther_on_average
  FROM idf_articles a, idf_articles b, idf_articles_value v WHERE a.id < b.id AND a.id <= 30 AND b.id <= 30;

-- The value is TOASTed when large; the cache tells two idf arguments apart
-- (one stored out of line, one inline) even when they alternate from row to row.
SELECT pg_column_size(idf) < octet_length(simhash_idf_send(idf)) AS compressed,
       (SELECT pg_relation_size(reltoastrelid) > 0 FROM pg_class WHERE relname = 'idf_articles_value') AS out_of_line
  FROM idf_articles_value;
CREATE TABLE idf_two (name text, idf simhash_idf);
INSERT INTO idf_two SELECT 'small', idf FROM idf_value UNION ALL SELECT 'articles', idf FROM idf_articles_value;
SELECT count(*) AS rows, count(*) FILTER (WHERE fp IS DISTINCT FROM expected) AS mismatches
  FROM (SELECT a.id, t.name, simhash(a.body, t.idf) AS fp,
               CASE t.name WHEN 'small' THEN (SELECT simhash(a.body, idf) FROM idf_value)
                           ELSE (SELECT simhash(a.body, idf) FROM idf_articles_value) END AS expected
          FROM idf_articles a CROSS JOIN LATERAL (SELECT * FROM idf_two WHERE a.id IS NOT NULL) t
         WHERE a.id <= 50) s;

-- More features than the aggregate buffers (2^20) before merging them into its table.
SELECT simhash_idf_agg('w' || (g % 1000) || ' x' || g || ' y' || g || ' z' || (g % 77))
  FROM generate_series(1, 300000) g;

-- In parallel: partial states are serialized, combined and give the same value.
CREATE TABLE idf_serial AS SELECT simhash_idf_send(simhash_idf_agg(body)) AS bytes FROM idf_articles;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT simhash_idf_agg(body) FROM idf_articles;
SELECT simhash_idf_send(simhash_idf_agg(body)) = (SELECT bytes FROM idf_serial) AS parallel_equals_serial
  FROM idf_articles;
-- Combining workers' states by hash in little memory: the deserialized
-- states live per input row, as simhash_agg's do (theirs grew a hash
-- aggregation to 125 MB at a work_mem of 1 MB).
SET parallel_leader_participation = on;
CREATE TABLE idf_groups AS SELECT i % 20000 AS g, 'f' || (i % 97) || ' h' || (i % 1013) AS body
  FROM generate_series(1, 300000) i;
ANALYZE idf_groups;
SET work_mem = '1MB'; SET enable_sort = off;
\set peak_memory :abs_srcdir '/sql/include/peak_memory.psql'
\i :peak_memory
EXPLAIN (COSTS OFF) SELECT g, simhash_idf_agg(body) FROM idf_groups GROUP BY g;
SELECT pg_temp.peak_memory_kb('SELECT g, simhash_idf_agg(body) FROM idf_groups GROUP BY g') < 8192 AS within_a_few_mb;
CREATE TEMP TABLE idf_by_hash AS SELECT g, simhash_idf_send(simhash_idf_agg(body)) AS bytes FROM idf_groups GROUP BY g;
RESET enable_sort; SET enable_hashagg = off;
SELECT count(*) AS groups, count(*) FILTER (WHERE h.bytes IS DISTINCT FROM s.bytes) AS differ_from_sorted
  FROM idf_by_hash h JOIN (SELECT g, simhash_idf_send(simhash_idf_agg(body)) AS bytes FROM idf_groups GROUP BY g) s USING (g);
RESET work_mem; RESET enable_hashagg;
DROP TABLE idf_groups, idf_by_hash;
RESET parallel_leader_participation;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;

-- Keeping IDF fingerprints in step with their rows (README's recipe): a
-- trigger that reads the stored counts through a function gives, through
-- multi-row INSERT and UPDATE, what simhash(body, idf) gives.  (A function
-- call keeps the plpgsql expression simple, so simhash's cached copy of the
-- counts lives for the transaction; a subquery would detoast them per row.)
CREATE TABLE idf_docs (id int PRIMARY KEY, body text, fp simhash);
CREATE FUNCTION idf_articles_counts() RETURNS simhash_idf LANGUAGE sql STABLE PARALLEL SAFE
    AS 'SELECT idf FROM idf_articles_value';
CREATE FUNCTION idf_docs_fingerprint() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.fp := simhash(NEW.body, idf_articles_counts());
    RETURN NEW;
END $$;
CREATE TRIGGER idf_docs_fingerprint BEFORE INSERT OR UPDATE OF body ON idf_docs
    FOR EACH ROW EXECUTE FUNCTION idf_docs_fingerprint();
INSERT INTO idf_docs (id, body) SELECT id, body FROM idf_articles WHERE id <= 40;
INSERT INTO idf_docs (id, body) VALUES (41, '...'), (42, NULL);
UPDATE idf_docs SET body = body || ' appendix' WHERE id % 2 = 0;
SELECT count(*) AS rows, count(*) FILTER (WHERE d.fp IS DISTINCT FROM simhash(d.body, v.idf)) AS mismatches,
       count(*) FILTER (WHERE d.fp IS NULL) AS null_fingerprints,
       count(DISTINCT d.fp) AS distinct_fingerprints
  FROM idf_docs d, idf_articles_value v;
DROP TABLE idf_docs;
DROP FUNCTION idf_docs_fingerprint(), idf_articles_counts();

DROP TABLE idf_copy, idf_corpus, idf_value, idf_df, idf_articles, idf_articles_value, idf_two, idf_serial;
