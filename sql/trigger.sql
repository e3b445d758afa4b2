-- simhash_fingerprint_trigger: fingerprints kept in step with their sources.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

CREATE TABLE docs (id serial PRIMARY KEY, title varchar(200), body text, fp simhash);
CREATE TRIGGER docs_fp BEFORE INSERT OR UPDATE ON docs
  FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body');

-- Single-row and multi-row INSERT.
INSERT INTO docs (body) VALUES ('The quick brown fox jumps over the lazy dog');
INSERT INTO docs (body) VALUES ('我爱北京天安门'), ('PostgreSQL 数据库 is fast 😀'), (NULL), ('...');
SELECT id, fp, fp = simhash(body) AS matches_function FROM docs ORDER BY id;

-- COPY goes through the trigger too.
COPY docs (body) FROM stdin;
copied row one
copied row two
\.
SELECT count(*) FILTER (WHERE fp = simhash(body)) AS copied_ok FROM docs WHERE body LIKE 'copied%';

-- UPDATE recomputes; a value written to the target directly is replaced.
UPDATE docs SET body = 'the quick brown fox jumped over the lazy dog' WHERE id = 1;
UPDATE docs SET fp = '0000000000000000' WHERE id = 2;
SELECT id, fp = simhash(body) AS matches_function FROM docs WHERE id IN (1, 2) ORDER BY id;
UPDATE docs SET body = NULL WHERE id = 3;
SELECT fp IS NULL AS null_source_null_fp FROM docs WHERE id = 3;

-- Several sources vote together: text sources equal simhash(concat_ws(' ', ...)).
CREATE TABLE pages (title varchar(100), body text, tags tsvector, fp simhash);
CREATE TRIGGER pages_fp BEFORE INSERT OR UPDATE ON pages
  FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'title', 'body');
-- English function words are counted over all of them, as in one text:
-- four "the" weigh 4^0.75 = 2.83 and lose to three "x" (counted column
-- by column, 2 x 2^0.75 = 3.36, they would win).
INSERT INTO pages (title, body) VALUES ('Near duplicates', 'found inside PostgreSQL'), (NULL, 'only a body'), (NULL, NULL),
  ('the the x', 'the the x x');
SELECT fp = simhash(concat_ws(' ', title, body)) AS concat_equivalent, fp IS NULL AS is_null FROM pages ORDER BY body NULLS LAST;
SELECT fp = simhash('x'::text) AS x_outvotes_the_over_both FROM pages WHERE title = 'the the x';
-- The features of all the text sources set the weights of version 6 (rule
-- 5): a title of "apple" 12 times and a body of 288 other words are one
-- text of 300 features, in which "apple" weighs 12 * 8^0.35 = 24.85, not two
-- texts, where it would weigh 12 (the title alone has too few features for
-- the boost).
CREATE FUNCTION pg_temp.weight(c float8, n bigint) RETURNS float8 LANGUAGE sql
RETURN c * power(least(c, 8), CASE WHEN n <= 50 OR n >= 2500 THEN 0
                                   ELSE '0.35'::float8 * CASE WHEN n < 300 THEN (n - 50)::float8 / 250
                                                              ELSE (2500 - n)::float8 / 2200 END END);
INSERT INTO pages (title, body)
  SELECT repeat('apple ', 12), string_agg('w' || i, ' ') FROM generate_series(1, 288) i;
SELECT fp = simhash(concat_ws(' ', title, body)) AS long_concat_equivalent,
       fp = (SELECT simhash(array_agg(f), array_agg(pg_temp.weight(c, 300)))
               FROM (SELECT f, count(*)::float8 AS c FROM unnest(simhash_features(title) || simhash_features(body)) f GROUP BY f) w)
         AS one_text_of_300,
       fp <> (SELECT simhash(array_agg(f), array_agg(w))
                FROM (SELECT f, pg_temp.weight(count(*), 12) AS w FROM unnest(simhash_features(title)) f GROUP BY f
                      UNION ALL
                      SELECT f, pg_temp.weight(count(*), 288) FROM unnest(simhash_features(body)) f GROUP BY f) w)
         AS not_column_by_column
  FROM pages WHERE title LIKE 'apple%';
-- Text and tsvector sources: the text's features weigh as in rule 5 (their
-- own count sets the boost), a tsvector's lexemes as simhash(tsvector)'s
-- (label A weighs 10 a position).  The body's 60 words used once leave its
-- sums near 0, so the lexemes' 40 votes change the fingerprint, and "apple"
-- 10 times (70 features) weighs 10 * 8^0.028.
CREATE TABLE mixed_sources (body text, tags tsvector, fp simhash);
CREATE TRIGGER mixed_sources_fp BEFORE INSERT ON mixed_sources
  FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body', 'tags');
INSERT INTO mixed_sources (body, tags)
  SELECT string_agg('w' || i, ' ') || repeat(' apple', 10), setweight(to_tsvector('simple', 'alpha beta beta gamma'), 'A')
    FROM generate_series(1, 60) i;
SELECT fp = (SELECT simhash(array_agg(f) || '{alpha,beta,gamma}'::text[], array_agg(pg_temp.weight(c, 70)) || '{10,20,10}'::float8[])
               FROM (SELECT f, count(*)::float8 AS c FROM unnest(simhash_features(body)) f GROUP BY f) w) AS text_weighted_tags_counted,
       fp <> simhash(body) AS tags_count
  FROM mixed_sources;
DROP TABLE mixed_sources;
-- tsvector sources vote as simhash(tsvector) does.
CREATE TABLE tagged (tags tsvector, fp simhash);
CREATE TRIGGER tagged_fp BEFORE INSERT ON tagged
  FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'tags');
INSERT INTO tagged (tags) VALUES (to_tsvector('english', 'Lexemes from a text search configuration')), (''::tsvector);
SELECT fp = simhash(tags) AS matches_function, fp IS NULL AS is_null FROM tagged ORDER BY is_null;
-- A domain over text is accepted as a source.
CREATE DOMAIN short_text AS text CHECK (length(VALUE) < 100);
CREATE TABLE notes (note short_text, fp simhash);
CREATE TRIGGER notes_fp BEFORE INSERT ON notes FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'note');
INSERT INTO notes VALUES ('a domain source');
SELECT fp = simhash('a domain source'::text) FROM notes;

-- Misconfiguration is reported at the first row.
CREATE TABLE bad (body text, n integer, fp simhash, t text);
INSERT INTO bad (body) VALUES ('inserted before any trigger');
CREATE TRIGGER bad_missing BEFORE INSERT ON bad FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'nope');
INSERT INTO bad (body) VALUES ('x');
DROP TRIGGER bad_missing ON bad;
CREATE TRIGGER bad_target BEFORE INSERT ON bad FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('nope', 'body');
INSERT INTO bad (body) VALUES ('x');
DROP TRIGGER bad_target ON bad;
CREATE TRIGGER bad_source_type BEFORE INSERT ON bad FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'n');
INSERT INTO bad (body) VALUES ('x');
DROP TRIGGER bad_source_type ON bad;
CREATE TRIGGER bad_target_type BEFORE INSERT ON bad FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('t', 'body');
INSERT INTO bad (body) VALUES ('x');
DROP TRIGGER bad_target_type ON bad;
CREATE TRIGGER bad_args BEFORE INSERT ON bad FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp');
INSERT INTO bad (body) VALUES ('x');
DROP TRIGGER bad_args ON bad;
CREATE TRIGGER bad_after AFTER INSERT ON bad FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body');
INSERT INTO bad (body) VALUES ('x');
DROP TRIGGER bad_after ON bad;
CREATE TRIGGER bad_statement BEFORE INSERT ON bad FOR EACH STATEMENT EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body');
INSERT INTO bad (body) VALUES ('x');
DROP TRIGGER bad_statement ON bad;
CREATE TRIGGER bad_delete BEFORE DELETE ON bad FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body');
DELETE FROM bad;
DROP TRIGGER bad_delete ON bad;
SELECT count(*) AS rows_left FROM bad;
-- The SQLSTATEs of those errors.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/sql/include/sqlstate_of.psql'
\i :sqlstate_of
CREATE TRIGGER bad_missing BEFORE INSERT ON bad FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'nope');
SELECT pg_temp.sqlstate_of($$INSERT INTO bad (body) VALUES ('x')$$) AS undefined_column;
DROP TRIGGER bad_missing ON bad;
CREATE TRIGGER bad_source_type BEFORE INSERT ON bad FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'n');
SELECT pg_temp.sqlstate_of($$INSERT INTO bad (body) VALUES ('x')$$) AS datatype_mismatch;
DROP TRIGGER bad_source_type ON bad;
CREATE TRIGGER bad_after AFTER INSERT ON bad FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body');
SELECT pg_temp.sqlstate_of($$INSERT INTO bad (body) VALUES ('x')$$) AS trigger_protocol_violated;
DROP TRIGGER bad_after ON bad;
SELECT pg_temp.sqlstate_of($$SELECT simhash_fingerprint_trigger()$$) AS not_called_as_trigger;
-- A column of another type named simhash: the message qualifies the names
-- (it used to say "of type simhash, not simhash").
CREATE SCHEMA shadow;
CREATE DOMAIN shadow.simhash AS bigint;
SET search_path = shadow, public;
CREATE TABLE public.shadowed (body text, fp shadow.simhash);
CREATE TRIGGER shadowed_fp BEFORE INSERT ON shadowed FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body');
INSERT INTO shadowed (body) VALUES ('x');
RESET search_path;
DROP TABLE shadowed;
DROP DOMAIN shadow.simhash;
DROP SCHEMA shadow;

-- A domain target keeps its constraints (the trigger used to store values
-- the domain forbids, NULL included).
CREATE DOMAIN low_fp AS simhash CHECK (VALUE < '8000000000000000');
CREATE DOMAIN required_fp AS simhash NOT NULL;
CREATE TABLE checked_fp (body text, fp low_fp, fp_required required_fp DEFAULT '0000000000000000');
CREATE TRIGGER low BEFORE INSERT OR UPDATE ON checked_fp
    FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body');
INSERT INTO checked_fp (body) VALUES ('postgres') RETURNING fp;   -- within the domain
INSERT INTO checked_fp (body) VALUES ('hello');                     -- 9555e8555c62dcfd is not
CREATE TRIGGER required BEFORE INSERT OR UPDATE ON checked_fp
    FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp_required', 'body');
INSERT INTO checked_fp (body) VALUES ('?!');              -- no feature: NULL
SELECT pg_temp.sqlstate_of($$INSERT INTO checked_fp (body) VALUES ('hello')$$) AS check_violation,
       pg_temp.sqlstate_of($$INSERT INTO checked_fp (body) VALUES ('?!')$$) AS not_null_violation;
DROP TABLE checked_fp;
DROP DOMAIN low_fp, required_fp;

-- min_features=N, the last argument, is simhash(text, ..., min_features)'s
-- floor: fewer features (occurrences, function words included, over all
-- the sources; a tsvector's lexemes once each) give NULL.
CREATE TABLE floored (title text, body text, tags tsvector, fp simhash);
CREATE TRIGGER floored_fp BEFORE INSERT OR UPDATE ON floored
    FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'title', 'body', 'min_features=5');
INSERT INTO floored (title, body) VALUES
  ('Server', 'is up'),                       -- 3 features
  ('Server', 'is up again now'),             -- 5
  ('the the', 'the the the'),                -- 5, all function words
  (NULL, 'a b c d e f g h'),                 -- 8 in one source
  ('x x x x x', NULL);                       -- a word repeated passes too
SELECT title, body, fp IS NULL AS below_floor,
       fp IS NOT DISTINCT FROM simhash(concat_ws(' ', title, body), 'mixed', 1, 5) AS as_function
  FROM floored ORDER BY title NULLS FIRST, body;
UPDATE floored SET body = 'is up and running' WHERE body = 'is up' RETURNING fp IS NULL AS below_floor;
CREATE TRIGGER floored_tags BEFORE INSERT ON floored
    FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body', 'tags', 'min_features=3');
INSERT INTO floored (body, tags) VALUES ('one', 'b:1 c:2,3'::tsvector), ('one', 'b:1'::tsvector);
SELECT body, tags, fp IS NULL AS below_floor FROM floored WHERE tags IS NOT NULL ORDER BY tags;
DROP TRIGGER floored_tags ON floored;
-- Bad options are errors at the first row, naming the argument.
CREATE FUNCTION pg_temp.first_row_error(args text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE message text;
BEGIN
    EXECUTE format('CREATE TRIGGER floored_bad BEFORE INSERT ON floored '
                   'FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger(%s)', args);
    BEGIN
        INSERT INTO floored (body) VALUES ('x');
        message := 'no error';
    EXCEPTION WHEN OTHERS THEN
        message := SQLSTATE || ': ' || SQLERRM;
    END;
    DROP TRIGGER floored_bad ON floored;
    RETURN message;
END $$;
CREATE TRIGGER floored_bad BEFORE INSERT ON floored
    FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body', 'min_features=2x');
INSERT INTO floored (body) VALUES ('x');
DROP TRIGGER floored_bad ON floored;
SELECT args, pg_temp.first_row_error(args) AS error FROM (VALUES
    ($$'fp', 'body', 'min_features=0'$$),
    ($$'fp', 'body', 'min_features=2x'$$),
    ($$'fp', 'body', 'min_features=99999999999'$$),
    ($$'fp', 'body', 'min_features= 5'$$),
    ($$'fp', 'min_features=2', 'body'$$),
    ($$'fp', 'body', 'min_features=2', 'min_features=3'$$),
    ($$'fp', 'min_features=2'$$)) v(args);
DROP TABLE floored;

-- The generated-column alternative computes the same value.
CREATE TABLE generated_docs (body text, fp simhash GENERATED ALWAYS AS (simhash(body)) STORED);
INSERT INTO generated_docs (body) VALUES ('The quick brown fox jumps over the lazy dog'), ('');
SELECT fp FROM generated_docs ORDER BY fp NULLS LAST;

-- A generated column is computed after BEFORE triggers: as a source the
-- trigger read NULL and stored a NULL fingerprint in every row; it is now
-- an error at the first row, as is a generated target.
CREATE TABLE shouted (body text, loud text GENERATED ALWAYS AS (upper(body)) STORED, fp simhash);
CREATE TRIGGER shouted_fp BEFORE INSERT OR UPDATE ON shouted
    FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'loud');
INSERT INTO shouted (body) VALUES ('Hello world');
DROP TRIGGER shouted_fp ON shouted;
CREATE TRIGGER shouted_fp BEFORE INSERT OR UPDATE ON shouted
    FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body');
INSERT INTO shouted (body) VALUES ('Hello world');
SELECT loud, fp = simhash('Hello world'::text) AS from_body FROM shouted;
ALTER TABLE generated_docs ADD COLUMN title text;
CREATE TRIGGER generated_docs_fp BEFORE INSERT ON generated_docs
    FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'title');
INSERT INTO generated_docs (body, title) VALUES ('body text', 'title text');
DROP TABLE docs, pages, tagged, notes, bad, generated_docs, shouted;
DROP DOMAIN short_text;
