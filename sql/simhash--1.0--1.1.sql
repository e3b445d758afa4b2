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

-- ==== Aggregates with a bytea state ====
-- Citus computes an aggregate on its workers (each shard sends one partial
-- state, which the coordinator combines) only when the state is a type it
-- can send as text: not internal.  simhash_agg's 1 kB of running sums move
-- to a bytea state, updated in place, so a distributed simhash_agg reads
-- each shard's rows where they are stored; the local aggregate runs as fast
-- (docs/citus.md has both measurements).
--
-- ALTER AGGREGATE cannot change a state type: the aggregates are dropped
-- and created again, which a view or function that calls them forbids.
-- Rather than fail the whole update (or drop users' views), an aggregate
-- something else depends on keeps its 1.0 internal state, with a WARNING:
-- it gives the same answers, only not on Citus's workers.  Fresh installs
-- (which run 1.0, then this file) always get the bytea state.
--
-- simhash_idf_agg keeps its internal state: its state is a table of counts
-- that grows with the corpus and is kept in place across rows, which a
-- flat bytea would have to copy or re-sort per row.
CREATE FUNCTION @extschema@.simhash_agg_state_weighted_transfn(bytea, text, float8) RETURNS bytea
    AS 'MODULE_PATHNAME', 'simhash_agg_state_weighted_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_state_transfn(bytea, text) RETURNS bytea
    AS 'MODULE_PATHNAME', 'simhash_agg_state_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_state_combinefn(bytea, bytea) RETURNS bytea
    AS 'MODULE_PATHNAME', 'simhash_agg_state_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_state_finalfn(bytea) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_agg_state_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_agg_state_weighted_transfn(bytea, text, float8)
    IS 'simhash_agg(text, float8) transition: adds a weighted feature to the running sums (only in an aggregate)';
COMMENT ON FUNCTION @extschema@.simhash_agg_state_transfn(bytea, text)
    IS 'simhash_agg(text) transition: adds a feature to the running sums (only in an aggregate)';
COMMENT ON FUNCTION @extschema@.simhash_agg_state_combinefn(bytea, bytea)
    IS 'simhash_agg combine: adds another partial state''s sums (a parallel worker''s, a Citus shard''s)';
COMMENT ON FUNCTION @extschema@.simhash_agg_state_finalfn(bytea)
    IS 'simhash_agg final: the fingerprint of a state''s sums, NULL without features';

DO $aggregates$
DECLARE
    aggregate record; -- signature, arguments as 1.0 names them, transition function, comment
BEGIN
    FOR aggregate IN
        SELECT * FROM (VALUES
            ('simhash_agg(text, float8)', 'feature text, weight float8', 'simhash_agg_state_weighted_transfn',
             'SimHash of weighted features from rows (a feature in several rows adds its weights)'),
            ('simhash_agg(text)', 'feature text', 'simhash_agg_state_transfn',
             'SimHash of features from rows, each row voting once')) v(signature, arguments, transfn, comment)
    LOOP
        -- Anything but the extension itself that depends on the aggregate.
        IF EXISTS (SELECT FROM pg_catalog.pg_depend d
                    WHERE d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass
                      AND d.refobjid = pg_catalog.to_regprocedure('@extschema@.' || aggregate.signature)
                      AND d.deptype = 'n') THEN
            RAISE WARNING 'simhash_agg: % keeps the internal state of version 1.0', aggregate.signature
                USING DETAIL = 'A view or function calls it.  It gives the same answers, '
                               'but Citus cannot compute it on its workers.',
                      HINT = 'docs/citus.md shows how to move it to the bytea state.';
            CONTINUE;
        END IF;
        EXECUTE pg_catalog.format('DROP AGGREGATE @extschema@.%s', aggregate.signature);
        -- SSPACE: palloc rounds the 1072-byte state up to a chunk of 2048
        -- bytes, behind a 16-byte header (src/pg/aggregate.cpp).
        EXECUTE pg_catalog.format(
            'CREATE AGGREGATE @extschema@.simhash_agg(%s) (SFUNC = @extschema@.%I, STYPE = bytea, SSPACE = 2064, '
            'FINALFUNC = @extschema@.simhash_agg_state_finalfn, '
            'COMBINEFUNC = @extschema@.simhash_agg_state_combinefn, PARALLEL = SAFE)',
            aggregate.arguments, aggregate.transfn);
        EXECUTE pg_catalog.format('COMMENT ON AGGREGATE @extschema@.%s IS %L', aggregate.signature, aggregate.comment);
    END LOOP;
END
$aggregates$;
