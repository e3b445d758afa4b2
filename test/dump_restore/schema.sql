-- The database test/dump_restore/run.sh dumps on one PostgreSQL major and
-- restores into the others: texts fingerprinted by the trigger, planted
-- fingerprints, simhash indexes, an exclusion constraint.
CREATE EXTENSION simhash;

-- Texts and their near copies (a word added), fingerprinted by the trigger.
CREATE TABLE docs (id bigint PRIMARY KEY, body text, fp simhash);
CREATE TRIGGER docs_fp BEFORE INSERT OR UPDATE ON docs
  FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body');
-- (48 words of 4 hex digits each)
INSERT INTO docs (id, body)
  SELECT i, rtrim(regexp_replace(md5(i::text) || md5((i * 3)::text) || md5((i * 7)::text) || md5((i * 11)::text)
                                 || md5((i * 13)::text) || md5((i * 17)::text), '(....)', '\1 ', 'g'))
  FROM generate_series(1, 4000) i;
INSERT INTO docs (id, body)
  SELECT 10000 + id, body || ' revised' FROM docs WHERE id % 10 = 0;
CREATE INDEX docs_fp_idx ON docs USING simhash (fp);

-- Fingerprints planted at distances 1 to 12 from 0123456789abcdef (bit k
-- flipped for k < d), among random ones at distance about 32 from it.
CREATE TABLE marks (id int PRIMARY KEY, fp simhash);
INSERT INTO marks
  SELECT i, simhash_from_bigint(hashint8(i::bigint)::bigint # (hashint8(-i::bigint)::bigint << 32)) FROM generate_series(1, 20000) i;
INSERT INTO marks
  SELECT 100000 + d, simhash_from_bigint(x'0123456789abcdef'::bigint # ((1::bigint << d) - 1)) FROM generate_series(1, 12) d;
CREATE INDEX marks_fp_idx ON marks USING simhash (fp) WITH (blocks = 8);

-- At most one fingerprint per neighbourhood of the threshold.
CREATE TABLE unique_fps (id int PRIMARY KEY, fp simhash, EXCLUDE USING simhash (fp WITH %));
INSERT INTO unique_fps VALUES (1, '0123456789abcdef'), (2, 'fedcba9876543210');
