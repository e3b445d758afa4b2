-- Measures the tables heldout_prose.py loads: the default fingerprint,
-- algorithm version 5's (every occurrence voting 1, an English function
-- word occurring c times c^0.75 / c, at any length: simhash(text) itself
-- outside version 6's 51 to 2,499 features), version 4's (the same
-- features without the English function words, table ho_function_words,
-- which heldout_prose.py reads from src/core/stop_words.cpp; one vote per
-- occurrence), and the other tokenizers (and, for English, a text search
-- configuration).
CREATE TEMP TABLE ho_fp AS
    SELECT id, 'simhash(text)'::text AS method, simhash(body) AS fp FROM ho_docs
    UNION ALL
    SELECT id, 'version 5', (SELECT CASE WHEN count(*) FILTER (WHERE NOT fw) <= 50 OR count(*) FILTER (WHERE NOT fw) >= 2500
                                        THEN simhash(body)
                                        ELSE simhash(array_agg(f ORDER BY o),
                                                     array_agg(CASE WHEN fw THEN sqrt(c) * sqrt(sqrt(c)) / c ELSE 1 END ORDER BY o))
                                   END
                              FROM (SELECT f, o, f IN (SELECT w FROM ho_function_words) AS fw,
                                           count(*) OVER (PARTITION BY f)::float8 AS c
                                      FROM unnest(simhash_features(body)) WITH ORDINALITY x(f, o)) u)
      FROM ho_docs
    UNION ALL
    SELECT id, 'version 4', (SELECT simhash(array_agg(f)) FROM unnest(simhash_features(body)) f
                              WHERE f NOT IN (SELECT w FROM ho_function_words))
      FROM ho_docs
    UNION ALL
    SELECT id, 'words 1', simhash(body, 'words', 1) FROM ho_docs
    UNION ALL
    SELECT id, 'chars 3', simhash(body, 'chars', 3) FROM ho_docs
    UNION ALL
    SELECT id, 'tsvector english', simhash(to_tsvector('english', body)) FROM ho_docs WHERE lang = 'en';
CREATE INDEX ON ho_fp (id, method);
ANALYZE ho_fp;
\echo
\echo Recall of edited copies within 3 / 4 / 6 bits, by length (words, or Han and kana characters):
SELECT e.method, d.lang, d.rate AS edits, CASE WHEN d.len < 600 THEN '300-599' ELSE '600-' END AS length,
       count(*) / 4 AS documents,
       round(avg(((e.fp <-> o.fp) <= 3)::int), 3) AS within_3, round(avg(((e.fp <-> o.fp) <= 4)::int), 3) AS within_4,
       round(avg(((e.fp <-> o.fp) <= 6)::int), 3) AS within_6, round(avg(e.fp <-> o.fp), 2) AS mean_distance
  FROM ho_docs d JOIN ho_fp e ON e.id = d.id JOIN ho_fp o ON o.id = d.base AND o.method = e.method
 WHERE d.base IS NOT NULL
 GROUP BY GROUPING SETS ((1, 2, 3), (1, 2, 3, 4)) ORDER BY 2, 1, 3, 4 NULLS FIRST;
\echo Unrelated originals (3-shingle Jaccard < 0.1) within 3, 4 and 6 bits:
SELECT x.method, d.lang, count(*) AS pairs, sum(((x.fp <-> y.fp) <= 3)::int) AS within_3,
       sum(((x.fp <-> y.fp) <= 4)::int) AS within_4, sum(((x.fp <-> y.fp) <= 6)::int) AS within_6,
       round(avg(x.fp <-> y.fp), 1) AS mean_distance,
       percentile_disc(0.01) WITHIN GROUP (ORDER BY x.fp <-> y.fp) AS first_percentile
  FROM ho_unrelated u JOIN ho_docs d ON d.id = u.a JOIN ho_fp x ON x.id = u.a JOIN ho_fp y ON y.id = u.b AND y.method = x.method
 GROUP BY 1, 2 ORDER BY 2, 1;
SELECT count(*) FILTER (WHERE fp IS NULL) AS null_fingerprints, count(*) AS fingerprints FROM ho_fp;
