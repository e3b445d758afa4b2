-- The effect of IDF weights on fingerprints of unrelated documents (README,
-- "Corpus weights (IDF)"): bit shares and pairwise distances of 300 English
-- man pages of 300 words or more, unweighted and weighted by counts over the
-- same 300.  In a database with the extension:
--   perl test/bench/corpus.pl > /tmp/corpus.tsv
--   psql -v corpus=/tmp/corpus.tsv -f test/eval/idf_effect.sql
\set ON_ERROR_STOP 1
BEGIN;
CREATE TEMP TABLE corpus_raw (lang text, kind text, source text, body text);
COPY corpus_raw FROM :'corpus';
SELECT setseed(0.42);
CREATE TEMP TABLE man AS
SELECT row_number() OVER () AS id, body FROM (
  SELECT body FROM corpus_raw WHERE lang = 'en' AND kind = 'man'
     AND array_length(regexp_split_to_array(body, '\s+'), 1) >= 300
   ORDER BY random() LIMIT 300) s;
CREATE TEMP TABLE man_idf AS SELECT simhash_idf_agg(body) AS idf FROM man;
SELECT idf FROM man_idf;
ALTER TABLE man ADD plain simhash, ADD weighted simhash;
UPDATE man SET plain = simhash(body), weighted = simhash(body, (SELECT idf FROM man_idf));

SELECT 'plain' AS method, round(min(s)::numeric, 2) AS min_share, round(max(s)::numeric, 2) AS max_share FROM (
  SELECT b, avg(((plain::bigint >> b) & 1)::float8) AS s FROM man, generate_series(0, 63) b GROUP BY b) x
UNION ALL
SELECT 'idf', round(min(s)::numeric, 2), round(max(s)::numeric, 2) FROM (
  SELECT b, avg(((weighted::bigint >> b) & 1)::float8) AS s FROM man, generate_series(0, 63) b GROUP BY b) x;

SELECT round(avg(a.plain <-> b.plain), 1) AS plain_mean, round(avg(a.weighted <-> b.weighted), 1) AS idf_mean,
       count(*) FILTER (WHERE a.plain <-> b.plain <= 10) AS plain_within_10,
       count(*) FILTER (WHERE a.weighted <-> b.weighted <= 10) AS idf_within_10,
       count(*) AS pairs
  FROM man a JOIN man b ON a.id < b.id;
ROLLBACK;
