-- simhash 1.0: SimHash fingerprints and near-duplicate search.
\echo Use "CREATE EXTENSION simhash" to load this file. \quit

-- ==== the simhash type ====

CREATE TYPE @extschema@.simhash;

CREATE FUNCTION @extschema@.simhash_in(cstring) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_out(@extschema@.simhash) RETURNS cstring
    AS 'MODULE_PATHNAME', 'simhash_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_recv(internal) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_send(@extschema@.simhash) RETURNS bytea
    AS 'MODULE_PATHNAME', 'simhash_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.simhash (
    INPUT = @extschema@.simhash_in,
    OUTPUT = @extschema@.simhash_out,
    RECEIVE = @extschema@.simhash_recv,
    SEND = @extschema@.simhash_send,
    INTERNALLENGTH = 8,
    PASSEDBYVALUE,
    ALIGNMENT = double,
    STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash IS '64-bit SimHash fingerprint';

-- ==== casts ====

CREATE FUNCTION @extschema@.simhash_to_bigint(@extschema@.simhash) RETURNS bigint
    AS 'MODULE_PATHNAME', 'simhash_to_bigint' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_from_bigint(bigint) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_from_bigint' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_to_bit(@extschema@.simhash) RETURNS bit
    AS 'MODULE_PATHNAME', 'simhash_to_bit' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_from_bit(bit) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_from_bit' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE CAST (@extschema@.simhash AS bigint) WITH FUNCTION @extschema@.simhash_to_bigint(@extschema@.simhash);
CREATE CAST (bigint AS @extschema@.simhash) WITH FUNCTION @extschema@.simhash_from_bigint(bigint);
CREATE CAST (@extschema@.simhash AS bit) WITH FUNCTION @extschema@.simhash_to_bit(@extschema@.simhash);
CREATE CAST (bit AS @extschema@.simhash) WITH FUNCTION @extschema@.simhash_from_bit(bit);

-- For fingerprints brought from application code: numeric holds them as
-- unsigned decimals (Python's simhash values, unsigned 64-bit columns),
-- bytea as 8 bytes, most significant first.
CREATE FUNCTION @extschema@.simhash_to_numeric(@extschema@.simhash) RETURNS numeric
    AS 'MODULE_PATHNAME', 'simhash_to_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_from_numeric(numeric) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_from_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_to_bytea(@extschema@.simhash) RETURNS bytea
    AS 'MODULE_PATHNAME', 'simhash_to_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_from_bytea(bytea) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (@extschema@.simhash AS numeric) WITH FUNCTION @extschema@.simhash_to_numeric(@extschema@.simhash);
CREATE CAST (numeric AS @extschema@.simhash) WITH FUNCTION @extschema@.simhash_from_numeric(numeric);
CREATE CAST (@extschema@.simhash AS bytea) WITH FUNCTION @extschema@.simhash_to_bytea(@extschema@.simhash);
CREATE CAST (bytea AS @extschema@.simhash) WITH FUNCTION @extschema@.simhash_from_bytea(bytea);

-- From the string types: the text form, read as simhash_in reads it (what
-- PostgreSQL's automatic I/O cast did).  Casts with a function make
-- simhash(x) for x of a domain over text, varchar or char a call of the
-- fingerprint function simhash(text); without them PostgreSQL reads a call
-- named like a type, with no exact match, as a cast.
CREATE FUNCTION @extschema@.simhash_from_text(text) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_from_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_from_text(bpchar) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_from_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (text AS @extschema@.simhash) WITH FUNCTION @extschema@.simhash_from_text(text);
CREATE CAST (varchar AS @extschema@.simhash) WITH FUNCTION @extschema@.simhash_from_text(text);
CREATE CAST (bpchar AS @extschema@.simhash) WITH FUNCTION @extschema@.simhash_from_text(bpchar);

-- ==== comparison, btree and hash operator classes ====

CREATE FUNCTION @extschema@.simhash_eq(@extschema@.simhash, @extschema@.simhash) RETURNS boolean
    AS 'MODULE_PATHNAME', 'simhash_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_ne(@extschema@.simhash, @extschema@.simhash) RETURNS boolean
    AS 'MODULE_PATHNAME', 'simhash_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_lt(@extschema@.simhash, @extschema@.simhash) RETURNS boolean
    AS 'MODULE_PATHNAME', 'simhash_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_le(@extschema@.simhash, @extschema@.simhash) RETURNS boolean
    AS 'MODULE_PATHNAME', 'simhash_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_gt(@extschema@.simhash, @extschema@.simhash) RETURNS boolean
    AS 'MODULE_PATHNAME', 'simhash_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_ge(@extschema@.simhash, @extschema@.simhash) RETURNS boolean
    AS 'MODULE_PATHNAME', 'simhash_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_cmp(@extschema@.simhash, @extschema@.simhash) RETURNS integer
    AS 'MODULE_PATHNAME', 'simhash_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_sortsupport(internal) RETURNS void
    AS 'MODULE_PATHNAME', 'simhash_sortsupport' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_hash(@extschema@.simhash) RETURNS integer
    AS 'MODULE_PATHNAME', 'simhash_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_hash_extended(@extschema@.simhash, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'simhash_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash, PROCEDURE = @extschema@.simhash_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash, PROCEDURE = @extschema@.simhash_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash, PROCEDURE = @extschema@.simhash_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash, PROCEDURE = @extschema@.simhash_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash, PROCEDURE = @extschema@.simhash_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash, PROCEDURE = @extschema@.simhash_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel
);

COMMENT ON OPERATOR @extschema@.=(@extschema@.simhash, @extschema@.simhash) IS 'equal';
COMMENT ON OPERATOR @extschema@.<>(@extschema@.simhash, @extschema@.simhash) IS 'not equal';
COMMENT ON OPERATOR @extschema@.<(@extschema@.simhash, @extschema@.simhash) IS 'less than, comparing fingerprints as unsigned 64-bit integers';
COMMENT ON OPERATOR @extschema@.<=(@extschema@.simhash, @extschema@.simhash) IS 'less than or equal, comparing fingerprints as unsigned 64-bit integers';
COMMENT ON OPERATOR @extschema@.>(@extschema@.simhash, @extschema@.simhash) IS 'greater than, comparing fingerprints as unsigned 64-bit integers';
COMMENT ON OPERATOR @extschema@.>=(@extschema@.simhash, @extschema@.simhash) IS 'greater than or equal, comparing fingerprints as unsigned 64-bit integers';

CREATE OPERATOR CLASS @extschema@.simhash_btree_ops
    DEFAULT FOR TYPE @extschema@.simhash USING btree AS
        OPERATOR 1 @extschema@.< ,
        OPERATOR 2 @extschema@.<= ,
        OPERATOR 3 @extschema@.= ,
        OPERATOR 4 @extschema@.>= ,
        OPERATOR 5 @extschema@.> ,
        FUNCTION 1 @extschema@.simhash_cmp(@extschema@.simhash, @extschema@.simhash),
        FUNCTION 2 @extschema@.simhash_sortsupport(internal);

CREATE OPERATOR CLASS @extschema@.simhash_hash_ops
    DEFAULT FOR TYPE @extschema@.simhash USING hash AS
        OPERATOR 1 @extschema@.= ,
        FUNCTION 1 @extschema@.simhash_hash(@extschema@.simhash),
        FUNCTION 2 @extschema@.simhash_hash_extended(@extschema@.simhash, bigint);

-- ==== Hamming distance and similarity ====

CREATE FUNCTION @extschema@.hamming_distance(a @extschema@.simhash, b @extschema@.simhash) RETURNS integer
    AS 'MODULE_PATHNAME', 'simhash_hamming' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.hamming_distance(@extschema@.simhash, @extschema@.simhash)
    IS 'number of bits in which two simhashes differ';

CREATE OPERATOR @extschema@.<-> (
    LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash,
    PROCEDURE = @extschema@.hamming_distance, COMMUTATOR = OPERATOR(@extschema@.<->)
);
COMMENT ON OPERATOR @extschema@.<->(@extschema@.simhash, @extschema@.simhash) IS 'Hamming distance';

-- Reads simhash.threshold, hence STABLE (as pg_trgm's % reads pg_trgm.similarity_threshold).
-- LEAKPROOF (it cannot fail) so that under row-level security fp % q can still be an index condition.
CREATE FUNCTION @extschema@.simhash_similar_op(@extschema@.simhash, @extschema@.simhash) RETURNS boolean
    AS 'MODULE_PATHNAME', 'simhash_similar_op' LANGUAGE C STABLE STRICT PARALLEL SAFE LEAKPROOF;

-- Row estimates of %: the share of random fingerprints within simhash.threshold (so STABLE).
CREATE FUNCTION @extschema@.simhash_similar_sel(internal, oid, internal, integer) RETURNS float8
    AS 'MODULE_PATHNAME', 'simhash_similar_sel' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_similar_joinsel(internal, oid, internal, smallint, internal) RETURNS float8
    AS 'MODULE_PATHNAME', 'simhash_similar_joinsel' LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.% (
    LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash,
    PROCEDURE = @extschema@.simhash_similar_op, COMMUTATOR = OPERATOR(@extschema@.%),
    RESTRICT = @extschema@.simhash_similar_sel, JOIN = @extschema@.simhash_similar_joinsel
);
COMMENT ON OPERATOR @extschema@.%(@extschema@.simhash, @extschema@.simhash)
    IS 'true when the Hamming distance is at most simhash.threshold';

CREATE FUNCTION @extschema@.simhash_within(a @extschema@.simhash, b @extschema@.simhash, radius integer) RETURNS boolean
    AS 'MODULE_PATHNAME', 'simhash_within' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_within(@extschema@.simhash, @extschema@.simhash, integer)
    IS 'true when the Hamming distance is at most radius (0 to 64)';

CREATE FUNCTION @extschema@.simhash_similarity(a @extschema@.simhash, b @extschema@.simhash) RETURNS float8
    AS 'MODULE_PATHNAME', 'simhash_similarity' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.simhash_similarity(@extschema@.simhash, @extschema@.simhash)
    IS '1 - Hamming distance / 64';

CREATE FUNCTION @extschema@.simhash_blocks(fp @extschema@.simhash, n integer) RETURNS bigint[]
    AS 'MODULE_PATHNAME', 'simhash_blocks' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_blocks(@extschema@.simhash, integer)
    IS 'the n pigeonhole blocks of a simhash, most significant first';

-- ==== fingerprints ====

CREATE FUNCTION @extschema@.simhash(text) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(text)
    IS 'SimHash of a text: words (English function words weighed down), single ideographs, and bigrams of kana and other non-ideographic CJK characters';

-- STABLE, not IMMUTABLE: a new library may bring a new version.
CREATE FUNCTION @extschema@.simhash_algorithm_version() RETURNS integer
    AS 'MODULE_PATHNAME', 'simhash_algorithm_version' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_algorithm_version()
    IS 'version of the rules simhash(text) and simhash_features follow; a change changes fingerprints';

-- A one-argument call named like a type is read as a cast unless an exact
-- match exists, so varchar and char columns get their own overloads.
CREATE FUNCTION @extschema@.simhash(varchar) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash(bpchar) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(varchar) IS 'simhash(text) of a varchar';
COMMENT ON FUNCTION @extschema@.simhash(bpchar) IS 'simhash(text) of a char(n)';

-- One function with defaults, not one per arity: a two-argument call
-- simhash(body, 'words') must not resolve to simhash(text, simhash_idf) and
-- read 'words' as an IDF table, and min_features => may be named alone.
-- tokenizer has no default, which would make simhash(body) ambiguous.
CREATE FUNCTION @extschema@.simhash(text, tokenizer text, n integer DEFAULT 1, min_features integer DEFAULT 1)
    RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_text_min_features' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(text, text, integer, integer)
    IS 'SimHash of a text with the words, chars or mixed tokenizer and n-gram size n; NULL below min_features features';

CREATE FUNCTION @extschema@.simhash(tsvector) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_tsvector' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(tsvector)
    IS 'SimHash of the lexemes of a tsvector, weighted by occurrences and A/B/C/D labels';

CREATE FUNCTION @extschema@.simhash(features text[]) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_feature_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(text[]) IS 'SimHash of features of equal weight';

CREATE FUNCTION @extschema@.simhash(features text[], weights float8[]) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_weighted_feature_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(text[], float8[]) IS 'SimHash of weighted features';

CREATE FUNCTION @extschema@.simhash_features(text, tokenizer text DEFAULT 'mixed', n integer DEFAULT 1)
    RETURNS text[]
    AS 'MODULE_PATHNAME', 'simhash_features' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_features(text, text, integer)
    IS 'the features simhash(text, tokenizer, n) votes with, in text order';

-- ==== aggregate ====

CREATE FUNCTION @extschema@.simhash_agg_weighted_transfn(internal, text, float8) RETURNS internal
    AS 'MODULE_PATHNAME', 'simhash_agg_weighted_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_transfn(internal, text) RETURNS internal
    AS 'MODULE_PATHNAME', 'simhash_agg_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_combinefn(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'simhash_agg_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_finalfn(internal) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_agg_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_serializefn(internal) RETURNS bytea
    AS 'MODULE_PATHNAME', 'simhash_agg_serializefn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_deserializefn(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'simhash_agg_deserializefn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE @extschema@.simhash_agg(feature text, weight float8) (
    SFUNC = @extschema@.simhash_agg_weighted_transfn,
    STYPE = internal,
    SSPACE = 2064,
    FINALFUNC = @extschema@.simhash_agg_finalfn,
    COMBINEFUNC = @extschema@.simhash_agg_combinefn,
    SERIALFUNC = @extschema@.simhash_agg_serializefn,
    DESERIALFUNC = @extschema@.simhash_agg_deserializefn,
    PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.simhash_agg(feature text) (
    SFUNC = @extschema@.simhash_agg_transfn,
    STYPE = internal,
    SSPACE = 2064,
    FINALFUNC = @extschema@.simhash_agg_finalfn,
    COMBINEFUNC = @extschema@.simhash_agg_combinefn,
    SERIALFUNC = @extschema@.simhash_agg_serializefn,
    DESERIALFUNC = @extschema@.simhash_agg_deserializefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash_agg(text, float8)
    IS 'SimHash of weighted features from rows (a feature in several rows adds its weights)';
COMMENT ON AGGREGATE @extschema@.simhash_agg(text)
    IS 'SimHash of features from rows, each row voting once';

-- ==== fingerprinting trigger ====

CREATE FUNCTION @extschema@.simhash_fingerprint_trigger() RETURNS trigger
    AS 'MODULE_PATHNAME', 'simhash_fingerprint_trigger' LANGUAGE C;
COMMENT ON FUNCTION @extschema@.simhash_fingerprint_trigger()
    IS 'BEFORE INSERT OR UPDATE row trigger: simhash_fingerprint_trigger(target_column, source_column [, ...] [, ''min_features=N''])';

-- ==== corpus weights (IDF) ====

CREATE TYPE @extschema@.simhash_idf;

CREATE FUNCTION @extschema@.simhash_idf_in(cstring) RETURNS @extschema@.simhash_idf
    AS 'MODULE_PATHNAME', 'simhash_idf_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_idf_out(@extschema@.simhash_idf) RETURNS cstring
    AS 'MODULE_PATHNAME', 'simhash_idf_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_idf_recv(internal) RETURNS @extschema@.simhash_idf
    AS 'MODULE_PATHNAME', 'simhash_idf_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_idf_send(@extschema@.simhash_idf) RETURNS bytea
    AS 'MODULE_PATHNAME', 'simhash_idf_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.simhash_idf (
    INPUT = @extschema@.simhash_idf_in,
    OUTPUT = @extschema@.simhash_idf_out,
    RECEIVE = @extschema@.simhash_idf_recv,
    SEND = @extschema@.simhash_idf_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = double,
    STORAGE = extended
);
COMMENT ON TYPE @extschema@.simhash_idf
    IS 'corpus document frequencies of features, built by simhash_idf_agg, for IDF-weighted fingerprints';

CREATE FUNCTION @extschema@.simhash_idf_agg_transfn(internal, text) RETURNS internal
    AS 'MODULE_PATHNAME', 'simhash_idf_agg_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_idf_agg_tokenized_transfn(internal, text, text, integer) RETURNS internal
    AS 'MODULE_PATHNAME', 'simhash_idf_agg_tokenized_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_idf_agg_combinefn(internal, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'simhash_idf_agg_combinefn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_idf_agg_finalfn(internal) RETURNS @extschema@.simhash_idf
    AS 'MODULE_PATHNAME', 'simhash_idf_agg_finalfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_idf_agg_serializefn(internal) RETURNS bytea
    AS 'MODULE_PATHNAME', 'simhash_idf_agg_serializefn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_idf_agg_deserializefn(bytea, internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'simhash_idf_agg_deserializefn' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE @extschema@.simhash_idf_agg(document text) (
    SFUNC = @extschema@.simhash_idf_agg_transfn,
    STYPE = internal,
    FINALFUNC = @extschema@.simhash_idf_agg_finalfn,
    COMBINEFUNC = @extschema@.simhash_idf_agg_combinefn,
    SERIALFUNC = @extschema@.simhash_idf_agg_serializefn,
    DESERIALFUNC = @extschema@.simhash_idf_agg_deserializefn,
    PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.simhash_idf_agg(document text, tokenizer text, n integer) (
    SFUNC = @extschema@.simhash_idf_agg_tokenized_transfn,
    STYPE = internal,
    FINALFUNC = @extschema@.simhash_idf_agg_finalfn,
    COMBINEFUNC = @extschema@.simhash_idf_agg_combinefn,
    SERIALFUNC = @extschema@.simhash_idf_agg_serializefn,
    DESERIALFUNC = @extschema@.simhash_idf_agg_deserializefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash_idf_agg(text)
    IS 'document frequencies of the features of simhash(text), for simhash(text, simhash_idf)';
COMMENT ON AGGREGATE @extschema@.simhash_idf_agg(text, text, integer)
    IS 'document frequencies of the features of simhash(text, tokenizer, n), for simhash(text, simhash_idf)';

CREATE FUNCTION @extschema@.simhash(document text, idf @extschema@.simhash_idf) RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_text_idf' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(text, @extschema@.simhash_idf)
    IS 'SimHash of a text, tokenized as the corpus counts were, every occurrence of a feature weighted ln(1 + N / df) by them';

CREATE FUNCTION @extschema@.simhash(document text, idf @extschema@.simhash_idf, tokenizer text, n integer)
    RETURNS @extschema@.simhash
    AS 'MODULE_PATHNAME', 'simhash_text_idf_tokenized' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash(text, @extschema@.simhash_idf, text, integer)
    IS 'IDF-weighted SimHash of a text with an explicit tokenizer, which must be the one the simhash_idf was counted with';

-- ==== index access method (src/index) ====

CREATE FUNCTION @extschema@.simhash_index_handler(internal) RETURNS index_am_handler
    AS 'MODULE_PATHNAME', 'simhash_index_handler' LANGUAGE C;
CREATE ACCESS METHOD simhash TYPE INDEX HANDLER @extschema@.simhash_index_handler;
COMMENT ON ACCESS METHOD simhash IS 'exact Hamming-radius and nearest-neighbour search on simhash block partitions';

-- The right-hand side of the index condition simhash_within(fp, q, r) becomes: fp %<= ROW(q, r).
CREATE TYPE @extschema@.simhash_radius AS (query @extschema@.simhash, radius integer);
COMMENT ON TYPE @extschema@.simhash_radius IS '(query, radius): right operand of %<=, the index condition of simhash_within';
CREATE FUNCTION @extschema@.simhash_within_radius(@extschema@.simhash, @extschema@.simhash_radius) RETURNS boolean
    AS 'MODULE_PATHNAME', 'simhash_within_radius' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- Row estimates of %<= written by hand (simhash_within brings its own).
CREATE FUNCTION @extschema@.simhash_within_radius_sel(internal, oid, internal, integer) RETURNS float8
    AS 'MODULE_PATHNAME', 'simhash_within_radius_sel' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_within_radius_joinsel(internal, oid, internal, smallint, internal) RETURNS float8
    AS 'MODULE_PATHNAME', 'simhash_within_radius_joinsel' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OPERATOR @extschema@.%<= (
    LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash_radius,
    PROCEDURE = @extschema@.simhash_within_radius,
    RESTRICT = @extschema@.simhash_within_radius_sel, JOIN = @extschema@.simhash_within_radius_joinsel
);
COMMENT ON OPERATOR @extschema@.%<=(@extschema@.simhash, @extschema@.simhash_radius)
    IS 'true when the Hamming distance to (query, radius).query is at most radius (index condition of simhash_within)';

CREATE FUNCTION @extschema@.simhash_within_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'simhash_within_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
ALTER FUNCTION @extschema@.simhash_within(@extschema@.simhash, @extschema@.simhash, integer)
    SUPPORT @extschema@.simhash_within_support;

CREATE OPERATOR CLASS @extschema@.simhash_ops
    DEFAULT FOR TYPE @extschema@.simhash USING simhash AS
        OPERATOR 1 @extschema@.= (@extschema@.simhash, @extschema@.simhash),
        OPERATOR 2 @extschema@.% (@extschema@.simhash, @extschema@.simhash),
        OPERATOR 3 @extschema@.%<= (@extschema@.simhash, @extschema@.simhash_radius),
        OPERATOR 4 @extschema@.<-> (@extschema@.simhash, @extschema@.simhash) FOR ORDER BY pg_catalog.integer_ops;

CREATE FUNCTION @extschema@.simhash_index_check(index regclass, heapallindexed boolean DEFAULT false) RETURNS void
    AS 'MODULE_PATHNAME', 'simhash_index_check' LANGUAGE C STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.simhash_index_check(regclass, boolean)
    IS 'verifies a simhash index (and with heapallindexed that every heap row is in it); raises an error on corruption';

CREATE FUNCTION @extschema@.simhash_index_stats(index regclass,
        OUT partition integer, OUT block_bits integer, OUT entries bigint, OUT leaf_pages bigint,
        OUT distinct_blocks bigint, OUT largest_bucket bigint, OUT avg_bucket float8,
        OUT empty_leaf_pages bigint, OUT tail_entries bigint)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'simhash_index_stats' LANGUAGE C STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.simhash_index_stats(regclass)
    IS 'per partition: entries, leaf pages, distinct block values, largest and average bucket (rows per block value), empty leaf pages, entries in leaf tails (appended since their page was last written sorted; VACUUM merges them)';
-- As amcheck's: the check holds off the table's writers and both read any
-- index, so only roles granted them (superusers) run them.
REVOKE ALL ON FUNCTION @extschema@.simhash_index_check(regclass, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.simhash_index_stats(regclass) FROM PUBLIC;

-- ==== descriptions of the support objects (\df+, \do+, \dC+) ====
COMMENT ON FUNCTION @extschema@.simhash_to_bigint(@extschema@.simhash) IS 'cast simhash to bigint: the same 64 bits, signed';
COMMENT ON FUNCTION @extschema@.simhash_from_bigint(bigint) IS 'cast bigint to simhash: the same 64 bits';
COMMENT ON FUNCTION @extschema@.simhash_to_bit(@extschema@.simhash) IS 'cast simhash to bit(64), most significant bit first';
COMMENT ON FUNCTION @extschema@.simhash_from_bit(bit) IS 'cast bit(64) to simhash, most significant bit first';
COMMENT ON FUNCTION @extschema@.simhash_to_numeric(@extschema@.simhash) IS 'cast simhash to numeric: the 64 bits unsigned';
COMMENT ON FUNCTION @extschema@.simhash_from_numeric(numeric) IS 'cast a whole number 0 .. 2^64 - 1 to simhash (the 64 bits unsigned)';
COMMENT ON FUNCTION @extschema@.simhash_to_bytea(@extschema@.simhash) IS 'cast simhash to 8 bytes, most significant first';
COMMENT ON FUNCTION @extschema@.simhash_from_bytea(bytea) IS 'cast 8 bytes, most significant first, to simhash';
COMMENT ON FUNCTION @extschema@.simhash_from_text(text) IS 'cast text or varchar to simhash: parses the text form, does not fingerprint';
COMMENT ON FUNCTION @extschema@.simhash_from_text(bpchar) IS 'cast char(n) to simhash: parses the text form, does not fingerprint';
COMMENT ON FUNCTION @extschema@.simhash_eq(@extschema@.simhash, @extschema@.simhash) IS 'implementation of = for simhash';
COMMENT ON FUNCTION @extschema@.simhash_ne(@extschema@.simhash, @extschema@.simhash) IS 'implementation of <> for simhash';
COMMENT ON FUNCTION @extschema@.simhash_lt(@extschema@.simhash, @extschema@.simhash) IS 'implementation of < for simhash';
COMMENT ON FUNCTION @extschema@.simhash_le(@extschema@.simhash, @extschema@.simhash) IS 'implementation of <= for simhash';
COMMENT ON FUNCTION @extschema@.simhash_gt(@extschema@.simhash, @extschema@.simhash) IS 'implementation of > for simhash';
COMMENT ON FUNCTION @extschema@.simhash_ge(@extschema@.simhash, @extschema@.simhash) IS 'implementation of >= for simhash';
COMMENT ON FUNCTION @extschema@.simhash_cmp(@extschema@.simhash, @extschema@.simhash) IS 'btree comparison of simhash values as unsigned 64-bit integers';
COMMENT ON FUNCTION @extschema@.simhash_hash(@extschema@.simhash) IS 'hash of a simhash, for hash indexes and hash joins';
COMMENT ON FUNCTION @extschema@.simhash_hash_extended(@extschema@.simhash, bigint) IS 'seeded 64-bit hash of a simhash, for hash partitioning';
COMMENT ON FUNCTION @extschema@.simhash_similar_op(@extschema@.simhash, @extschema@.simhash) IS 'implementation of %: Hamming distance at most simhash.threshold';
COMMENT ON FUNCTION @extschema@.simhash_within_radius(@extschema@.simhash, @extschema@.simhash_radius) IS 'implementation of %<=, the index condition of simhash_within';
COMMENT ON OPERATOR CLASS @extschema@.simhash_btree_ops USING btree IS 'default btree operator class for simhash (unsigned order)';
COMMENT ON OPERATOR FAMILY @extschema@.simhash_btree_ops USING btree IS 'btree operators of simhash';
COMMENT ON OPERATOR CLASS @extschema@.simhash_hash_ops USING hash IS 'default hash operator class for simhash';
COMMENT ON OPERATOR FAMILY @extschema@.simhash_hash_ops USING hash IS 'hash operators of simhash';
COMMENT ON OPERATOR CLASS @extschema@.simhash_ops USING simhash IS 'default simhash index operator class: =, %, %<= and ORDER BY <->';
COMMENT ON OPERATOR FAMILY @extschema@.simhash_ops USING simhash IS 'operators of the simhash index';
COMMENT ON CAST (@extschema@.simhash AS bigint) IS 'the same 64 bits, signed';
COMMENT ON CAST (bigint AS @extschema@.simhash) IS 'the same 64 bits';
COMMENT ON CAST (@extschema@.simhash AS bit) IS 'most significant bit first';
COMMENT ON CAST (bit AS @extschema@.simhash) IS 'from bit(64), most significant bit first';
COMMENT ON CAST (@extschema@.simhash AS numeric) IS 'the 64 bits as an unsigned integer';
COMMENT ON CAST (numeric AS @extschema@.simhash) IS 'from a whole number 0 .. 2^64 - 1 (the 64 bits unsigned)';
COMMENT ON CAST (@extschema@.simhash AS bytea) IS '8 bytes, most significant first';
COMMENT ON CAST (bytea AS @extschema@.simhash) IS 'from 8 bytes, most significant first';
COMMENT ON CAST (text AS @extschema@.simhash) IS 'parses the text form; simhash(text) fingerprints';
COMMENT ON CAST (varchar AS @extschema@.simhash) IS 'parses the text form; simhash(varchar) fingerprints';
COMMENT ON CAST (bpchar AS @extschema@.simhash) IS 'parses the text form; simhash(char) fingerprints';
