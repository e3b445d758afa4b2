-- Loads corpus.pl's rows (the psql variable corpus names the file) into
-- corpus, and into docs uncompressed.  Included by the benchmarks that
-- time functions over those rows (fingerprint_bench.sh, fingerprint_ab.sh).
--
-- Texts stay in line-sized chunks of one language.  docs stores them
-- uncompressed (EXTERNAL), which keeps decompression out of the
-- measurements: the functions' own costs.  body || '' makes each value
-- anew: corpus holds them compressed, and a compressed value copied as it
-- is stays compressed whatever the storage.
CREATE TABLE corpus (language text, kind text, source text, body text);
\set copy_corpus '\\copy corpus FROM ' :'corpus'
:copy_corpus
CREATE TABLE docs (language text, body text);
ALTER TABLE docs ALTER body SET STORAGE EXTERNAL;
INSERT INTO docs SELECT language, body || '' FROM corpus;
VACUUM ANALYZE docs;
DO $$ BEGIN
  IF EXISTS (SELECT FROM docs WHERE pg_column_compression(body) IS NOT NULL) THEN
    RAISE 'docs holds compressed values';
  END IF;
END $$;
