-- What single CJK characters (the default since algorithm version 2) cost in
-- bit balance against character bigrams (README, "Choosing a threshold"):
-- bit shares over 6,000 random texts of 4 to 300 characters drawn evenly
-- from 3,500 common Han characters.  Single characters are a small shared
-- vocabulary, so every fingerprint leans the same way on some bits even when
-- the texts are unrelated.  In a database with the extension:
--   psql -f test/eval/han_unigram_balance.sql
\set ON_ERROR_STOP 1
BEGIN;
SELECT setseed(0.2026);
CREATE TEMP TABLE han AS
SELECT d, (SELECT string_agg(chr(19968 + (random() * 3499)::int), '')
             FROM generate_series(1, 4 + (d * 7919) % 297) WHERE d > 0) AS body
  FROM generate_series(1, 6000) d;
SELECT method, round(min(share)::numeric, 3) AS min_bit_share, round(max(share)::numeric, 3) AS max_bit_share
  FROM (SELECT method, i, avg(((fp::bigint >> i) & 1)::float8) AS share
          FROM (SELECT 'mixed 2: character bigrams' AS method, simhash(body, 'mixed', 2) AS fp FROM han
                UNION ALL
                SELECT 'mixed 1 (default): single characters', simhash(body) FROM han) x,
               generate_series(0, 63) i
         GROUP BY 1, 2) s
 GROUP BY 1 ORDER BY 1;
ROLLBACK;
