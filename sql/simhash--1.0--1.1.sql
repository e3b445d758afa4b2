-- simhash 1.0 -> 1.1.
--
-- There is no sql/simhash--1.1.sql on purpose: CREATE EXTENSION simhash
-- (version 1.1) finds no direct script, so PostgreSQL runs simhash--1.0.sql
-- and then this file.  One definition of every 1.1 object, here, serves
-- fresh installs and upgrades alike: a full 1.1 script would repeat the 461
-- lines of 1.0 plus this file, and any object added here but forgotten there
-- (or defined differently there) would make an upgraded database differ from
-- a fresh one.  Every fresh install and every test run exercises this path.
-- simhash--1.0.sql is released and must not change; later versions add a
-- simhash--1.1--1.2.sql the same way.  test sql/upgrade.sql checks that an
-- upgraded 1.0 database has exactly the objects listed in its expected file.
\echo Use "ALTER EXTENSION simhash UPDATE TO '1.1'" to load this file. \quit

-- ==== simhash('literal') fingerprints the text ====
-- A one-argument call named like a type reads an undecorated literal as a
-- cast ('some text'::simhash, which parses hex) unless a function takes the
-- literal's own type, unknown, exactly.  This one does, and fingerprints
-- the text as simhash(text) does.  Typed values (text, varchar, char,
-- tsvector, text[] columns and parameters) still find their own overloads;
-- 'hex'::simhash and simhash 'hex' still parse.  An untyped parameter
-- (PREPARE p AS SELECT simhash($1)) now matches this function too and keeps
-- type unknown, which PostgreSQL refuses ("could not determine data type of
-- parameter $1"): give the parameter a type, simhash($1::text).
CREATE FUNCTION @extschema@.simhash(unknown) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_unknown' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(unknown)
    IS 'simhash(text) of a string literal: simhash(''some text'') fingerprints the text, it does not parse it';

-- Batch functions: simhash_pairs, simhash_clusters
-- Both read the pairs off a simhash index (one sequential walk of each
-- partition at radii below the number of blocks), see only the rows the
-- statement's snapshot sees, and need SELECT on the table.  STABLE: they
-- read the table.  PARALLEL SAFE: a worker may run them (they write
-- nothing and keep no state between calls); PostgreSQL runs a function in
-- FROM once, in one process.  Not STRICT: a NULL radius means
-- simhash.threshold, a NULL method 'connected'; a NULL index gives no rows.
CREATE FUNCTION @extschema@.simhash_pairs(index regclass, radius integer DEFAULT NULL)
    RETURNS TABLE(a tid, b tid, distance integer)
    AS 'MODULE_PATHNAME', 'simhash_pairs' LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION @extschema@.simhash_pairs(regclass, integer)
    IS 'every pair of rows (a < b, by ctid) of the index''s table within radius bits (default simhash.threshold), each once';
CREATE FUNCTION @extschema@.simhash_clusters(index regclass, radius integer DEFAULT NULL, method text DEFAULT 'connected')
    RETURNS TABLE(member tid, representative tid)
    AS 'MODULE_PATHNAME', 'simhash_clusters' LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION @extschema@.simhash_clusters(regclass, integer, text)
    IS 'each row with a neighbour within radius bits and its cluster''s representative: method ''connected'' (components) or ''keep_first'' (the exclusion-constraint recipe in ctid order)';
