-- simhash('some text'): a string literal is fingerprinted, as simhash(text)
-- fingerprints it, through simhash(unknown), the exact match for a literal
-- of no stated type (without it PostgreSQL reads the call as a cast).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;
\i sql/include/sqlstate_of.psql

-- How it is declared.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatile, p.proisstrict AS strict,
       p.proparallel AS parallel, p.prorettype::regtype AS returns
FROM pg_proc p WHERE p.proname = 'simhash' AND p.proargtypes = '705';

-- The same fingerprint as simhash(text), whatever the literal's form.
SELECT simhash('hello world') AS literal, simhash('hello world'::text) AS text;
SELECT simhash('The quick brown fox jumps over the lazy dog') AS readme_test_vector;
SELECT bool_and(fingerprinted) AS all_same, count(*) AS literals FROM (VALUES
    (simhash('我爱北京天安门') = simhash('我爱北京天安门'::text)),
    (simhash('PostgreSQL 数据库 is fast 😀') = simhash('PostgreSQL 数据库 is fast 😀'::text)),
    (simhash('it''s a test') = simhash('it''s a test'::text)),
    (simhash($$dollar quoted, it's$$) = simhash($$dollar quoted, it's$$::text)),
    (simhash(E'two\nlines\tand a tab') = simhash(E'two\nlines\tand a tab'::text)),
    (simhash(U&'caf\00e9 cr\00e8me') = simhash('café crème'::text)),
    (simhash('line one
line two') = simhash(E'line one\nline two'::text))
) t(fingerprinted);
-- A literal with no features has no fingerprint, as for simhash(text).
SELECT simhash('') IS NULL AS empty, simhash(' ,.; ') IS NULL AS punctuation,
       simhash(' ,.; '::text) IS NULL AS text_too;

-- The NULL literal is of type unknown too: the function is strict, so NULL
-- of type simhash, as the cast gave.
SELECT simhash(NULL) IS NULL AS is_null, pg_typeof(simhash(NULL)) AS type;

-- A literal of 16 hex or 64 binary digits is a text like any other now:
-- fingerprinted, not parsed.  The cast, CAST and the typed-literal syntax
-- still parse it.
SELECT simhash('0123456789abcdef') AS call, simhash('0123456789abcdef'::text) AS text_call,
       '0123456789abcdef'::simhash AS cast, simhash '0123456789abcdef' AS typed_literal,
       CAST('0123456789abcdef' AS simhash) AS cast_syntax;
SELECT simhash(repeat('01', 32)) = simhash(repeat('01', 32)::text) AS binary_text_fingerprinted,
       simhash(repeat('01', 32)) <> repeat('01', 32)::simhash AS not_parsed;
-- A literal given to a simhash column is still read as hex digits.
CREATE TABLE literal_fp (fp simhash);
INSERT INTO literal_fp VALUES ('0123456789abcdef');
SELECT fp FROM literal_fp;
DROP TABLE literal_fp;

-- Prepared statements.  A typed parameter finds its own overload, as before.
PREPARE typed_text(text) AS SELECT simhash($1);
PREPARE typed_varchar(varchar) AS SELECT simhash($1);
EXECUTE typed_text('hello world');
EXECUTE typed_varchar('hello world');
-- An untyped parameter matches simhash(unknown) too and keeps type unknown,
-- which PostgreSQL refuses: before 1.1 it resolved to simhash(text).  Drivers
-- that send parameters without a type (PQexecParams with no paramTypes)
-- must say simhash($1::text).
PREPARE untyped AS SELECT simhash($1);
SELECT pg_temp.sqlstate_of('PREPARE untyped AS SELECT simhash($1)') AS untyped_parameter;
PREPARE untyped_cast AS SELECT simhash($1::text);
EXECUTE untyped_cast('hello world');
SELECT name, parameter_types FROM pg_prepared_statements ORDER BY name;
DEALLOCATE ALL;

-- Client libraries that inline parameters (psycopg2) send plain quoted
-- literals: quotes doubled, backslashes as they are (standard_conforming_strings
-- on), or E'' with doubled backslashes (off), and NULL for None.
SELECT simhash('O''Reilly\path') = simhash(E'O\'Reilly\\path'::text) AS inlined,
       simhash(E'O''Reilly\\path') = simhash('O''Reilly\path'::text) AS inlined_escape_string,
       simhash(NULL) IS NULL AS inlined_none;

-- Typed values keep their own overloads.
CREATE TABLE literal_docs (id int PRIMARY KEY, body text, title varchar(80), code char(8),
                           tags text[], fp simhash);
CREATE TRIGGER literal_docs_fp BEFORE INSERT OR UPDATE ON literal_docs
    FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger(fp, body);
INSERT INTO literal_docs (id, body, title, code, tags) VALUES
    (1, 'hello world', 'hello world', 'hello', '{hello,world}'),
    (2, 'the quick brown fox jumps over the lazy dog', 'fox', 'fox', '{quick,fox}'),
    (3, 'an unrelated sentence about databases and indexes', 'db', 'db', '{db}');
SELECT id, fp = simhash('hello world') AS trigger_matches_literal,
       simhash(body) = fp AS text_column, simhash(title) = simhash(title::text) AS varchar_column,
       simhash(code) = simhash(code::text) AS char_column
FROM literal_docs ORDER BY id;
SELECT simhash(tags) = simhash(ARRAY['hello', 'world']) AS text_array,
       simhash('{hello,world}'::text[]) = simhash(ARRAY['hello', 'world']) AS text_array_literal,
       simhash('{hello,world}') = simhash('{hello,world}'::text) AS brace_literal_is_text
FROM literal_docs WHERE id = 1;
SELECT simhash(to_tsvector('simple', 'hello world')) = simhash('hello:1 world:2'::tsvector) AS tsvector,
       simhash('The quick brown fox jumps over the lazy dog', 'words', 2) AS two_arguments;
-- An unknown literal from a subquery is resolved to text first.
SELECT simhash(s.x) = simhash('hello world') AS subquery FROM (SELECT 'hello world' AS x) s;

-- The index serves a literal's fingerprint as it serves any constant.
CREATE INDEX literal_docs_fp_idx ON literal_docs USING simhash (fp);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM literal_docs WHERE fp % simhash('hello world');
SELECT id FROM literal_docs WHERE fp % simhash('hello world');
SELECT id FROM literal_docs ORDER BY fp <-> simhash('hello world'), id LIMIT 1;
RESET enable_seqscan;
DROP TABLE literal_docs;
