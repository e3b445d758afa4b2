-- The simhash type: text and binary I/O, casts, ordering, btree and hash opclasses.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

-- Text input: 16 hex digits in any case, or 64 binary digits (most significant first).
SELECT '0123456789abcdef'::simhash, '0123456789ABCDEF'::simhash, '  00000000000000ff  '::simhash;
SELECT '1000000000000000000000000000000000000000000000000000000000000001'::simhash;
SELECT '1111111111111111111111111111111111111111111111111111111111111111'::simhash;
-- Anything else is an error that names the value.
SELECT ''::simhash;
SELECT '0123456789abcde'::simhash;
SELECT '0123456789abcdef0'::simhash;
SELECT '0x23456789abcdef'::simhash;
SELECT '0123456789abcdeg'::simhash;
SELECT '111111111111111111111111111111111111111111111111111111111111111'::simhash;
SELECT '1111111111111111111111111111111111111111111111111111111111111112'::simhash;
-- Text that is no fingerprint: the hint says how to fingerprint it
-- (simhash('hello world') does: fingerprint_literal).
SELECT 'hello world'::simhash;
SELECT simhash('hello world'::text);

-- Binary send/receive round trip.
SELECT simhash_send('0123456789abcdef');
CREATE TEMP TABLE io_copy(fp simhash);
INSERT INTO io_copy VALUES ('0123456789abcdef'), ('ffffffffffffffff'), (NULL);
\getenv abs_builddir PG_ABS_BUILDDIR
\set io_file :abs_builddir '/results/simhash_io_copy.bin'
COPY io_copy TO :'io_file' WITH (FORMAT binary);
CREATE TEMP TABLE io_back(fp simhash);
COPY io_back FROM :'io_file' WITH (FORMAT binary);
SELECT fp FROM io_back ORDER BY fp;

-- Casts: the same 64 bits as bigint, and bit(64) in binary-text order.
SELECT 'ffffffffffffffff'::simhash::bigint, '7fffffffffffffff'::simhash::bigint, '8000000000000000'::simhash::bigint;
SELECT (-1)::bigint::simhash, 255::bigint::simhash, (-9223372036854775808)::bigint::simhash;
SELECT '8000000000000001'::simhash::bit(64);
SELECT B'1000000000000000000000000000000000000000000000000000000000000001'::simhash;
SELECT fp::bigint::simhash = fp AND fp::bit(64)::simhash = fp AS round_trips
  FROM (VALUES ('0123456789abcdef'::simhash), ('fedcba9876543210'), ('0000000000000000')) v(fp);
SELECT B'101'::simhash;
SELECT B'1'::bit(65)::simhash;

-- Fingerprints brought from application code: unsigned decimals through
-- numeric (Python's simhash values run to 2^64 - 1), 8 bytes through bytea,
-- both exact both ways; anything out of range is an error naming it, never
-- a wrapped value.
SELECT v, v::simhash AS fp, v::simhash::numeric = v AS round_trip
  FROM (VALUES (0::numeric), (1), (9223372036854775807), (9223372036854775808), (18446744073709551615),
               (12345678901234567890), (5.000)) t(v);
SELECT 18446744073709551616::numeric::simhash;
SELECT (-1)::numeric::simhash;
SELECT 1.5::numeric::simhash;
SELECT 'NaN'::numeric::simhash;
SELECT '\x8212868318d29267'::bytea::simhash, 'ffffffffffffff01'::simhash::bytea,
       '\x0000000000000001'::bytea::simhash::bytea = '\x0000000000000001'::bytea AS bytea_round_trip;
SELECT '\x0102'::bytea::simhash;
-- README's recipes ("Fingerprints computed elsewhere"): 8 bytes least
-- significant first, and a negative bigint literal, which needs parentheses.
SELECT (SELECT string_agg(substr(encode(fp, 'hex'), 2 * i + 1, 2), '' ORDER BY i DESC) FROM generate_series(0, 7) i)::simhash
           = '8212868318d29267' AS little_endian
  FROM (VALUES ('\x6792d21883861282'::bytea)) v(fp);
SELECT (-9074042401582837145)::bigint::simhash;
-- Text that is no simhash gets a hint for what it looks like.
SELECT '0x8212868318d29267'::simhash;
SELECT '8212868318d2926'::simhash;
SELECT '18446744073709551615'::simhash;
SELECT '-9074042401582837145'::simhash;  -- the signed form: cast from bigint
SELECT '\x8212868318d29267'::simhash;     -- a bytea's text form: cast the bytea

-- Ordering is unsigned, matching the hex text.
SELECT fp FROM (VALUES ('8000000000000000'::simhash), ('0000000000000001'), ('ffffffffffffffff'), ('7fffffffffffffff')) v(fp)
 ORDER BY fp;
SELECT '8000000000000000'::simhash > '7fffffffffffffff'::simhash AS unsigned_order,
       '0000000000000001'::simhash < '0000000000000002', '0000000000000001'::simhash <= '0000000000000001',
       '0000000000000002'::simhash >= '0000000000000001', '0000000000000001'::simhash <> '0000000000000002',
       '0000000000000001'::simhash = '0000000000000001';
SELECT simhash_cmp('0000000000000001', '0000000000000002'), simhash_cmp('ffffffffffffffff', '0000000000000002'),
       simhash_cmp('0000000000000002', '0000000000000002');

-- btree: UNIQUE, merge join; hash: GROUP BY, DISTINCT, hash join.
CREATE TEMP TABLE fps(id int, fp simhash UNIQUE);
INSERT INTO fps SELECT i, (i * 1000003)::bigint::simhash FROM generate_series(1, 1000) i;
INSERT INTO fps VALUES (0, (1000003)::bigint::simhash);
SELECT count(*) FROM fps WHERE fp = (500 * 1000003)::bigint::simhash;
CREATE INDEX fps_hash ON fps USING hash (fp);
SET enable_seqscan = off; SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM fps WHERE fp = '0000000000000001';
SELECT id FROM fps WHERE fp = (7 * 1000003)::bigint::simhash;
RESET enable_seqscan; RESET enable_bitmapscan;
SELECT count(DISTINCT fp), count(*) FROM (SELECT fp FROM fps UNION ALL SELECT fp FROM fps) t;
SELECT count(*) FROM (SELECT fp FROM fps UNION ALL SELECT fp FROM fps) t GROUP BY fp HAVING count(*) <> 2;
-- The joins are of two tables: from 18 the planner removes a self-join on
-- a unique key.
CREATE TEMP TABLE fps_copy(fp simhash UNIQUE);
INSERT INTO fps_copy SELECT fp FROM fps;
SET enable_hashjoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM fps a JOIN fps_copy b USING (fp);
SELECT count(*) FROM fps a JOIN fps_copy b USING (fp);
RESET enable_hashjoin; SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM fps a JOIN fps_copy b USING (fp);
SELECT count(*) FROM fps a JOIN fps_copy b USING (fp);
RESET enable_mergejoin; RESET enable_nestloop;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT fp, count(*) FROM fps GROUP BY fp;
RESET enable_sort;

-- Extended hashing: hash partitioning.
CREATE TABLE fps_parts (fp simhash) PARTITION BY HASH (fp);
CREATE TABLE fps_p0 PARTITION OF fps_parts FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE fps_p1 PARTITION OF fps_parts FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO fps_parts SELECT fp FROM fps;
SELECT (SELECT count(*) FROM fps_p0) > 0 AS p0_used, (SELECT count(*) FROM fps_p1) > 0 AS p1_used,
       (SELECT count(*) FROM fps_parts WHERE fp = (7 * 1000003)::bigint::simhash) AS found;
SELECT simhash_hash_extended('0123456789abcdef', 0) = simhash_hash_extended('0123456789abcdef', 0) AS stable,
       simhash_hash_extended('0123456789abcdef', 0) <> simhash_hash_extended('0123456789abcdef', 1) AS seeded,
       (simhash_hash('0123456789abcdef')::bigint & 4294967295) = (simhash_hash_extended('0123456789abcdef', 0) & 4294967295) AS low_bits_agree;
DROP TABLE fps_parts;

-- Casts from the string types read the text form, as the type's input does.
SELECT 'DEADBEEFDEADBEEF'::text::simhash AS from_text, ' deadbeefdeadbeef '::varchar::simhash AS from_varchar,
       'deadbeefdeadbeef'::char(18)::simhash AS from_char,
       repeat('01', 32)::text::simhash AS from_binary_digits;
SELECT 'not a fingerprint'::text::simhash;

-- A call named like the type, on a domain over text, varchar or char, is a
-- fingerprint, not a cast (it used to read the text as a simhash: a
-- 16-hex-digit text became that value, any other text an error).
CREATE DOMAIN body_text AS text;
CREATE DOMAIN body_varchar AS varchar(100);
CREATE DOMAIN body_char AS char(30);
CREATE TABLE domain_docs (body body_text, fp simhash GENERATED ALWAYS AS (simhash(body)) STORED);
INSERT INTO domain_docs VALUES ('deadbeefdeadbeef'), ('hello world');
SELECT body, fp, fp = simhash(body::text) AS fingerprinted FROM domain_docs ORDER BY body;
SELECT simhash('hello world'::body_varchar) = simhash('hello world'::text) AS varchar_domain,
       simhash('hello world'::body_char) = simhash('hello world'::text) AS char_domain,
       simhash('deadbeefdeadbeef'::body_text) <> 'deadbeefdeadbeef' AS not_a_cast;
-- Types without such a cast (name; citext likewise) are still read as a
-- cast, and the hint says what to write.
SELECT simhash('hello'::name);
DROP TABLE domain_docs;
DROP DOMAIN body_text, body_varchar, body_char;

-- NULLs: strict everywhere.
SELECT NULL::simhash = '0000000000000000', NULL::simhash::bigint, NULL::bigint::simhash;

-- SQLSTATEs of the errors above.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/sql/include/sqlstate_of.psql'
\i :sqlstate_of
SELECT pg_temp.sqlstate_of($$SELECT 'zz'::simhash$$) AS bad_text,
       pg_temp.sqlstate_of($$SELECT B'101'::simhash$$) AS bad_bit_length,
       pg_temp.sqlstate_of($$SELECT 'zz'::text::simhash$$) AS bad_text_cast;

-- Every object a user may call or name is described (\df+, \do+, \dT+);
-- what only PostgreSQL calls (internal or cstring arguments or results, the
-- types' send functions) need not be, nor the array types PostgreSQL makes
-- for each type (extension members from 17: their element types are).
SELECT pg_describe_object(d.classid, d.objid, 0) AS undescribed
FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'simhash'
WHERE d.deptype = 'e' AND obj_description(d.objid, d.classid::regclass::name) IS NULL
  AND NOT (d.classid = 'pg_proc'::regclass AND EXISTS (
        SELECT 1 FROM pg_proc p WHERE p.oid = d.objid AND
          (p.prorettype IN ('internal'::regtype, 'cstring'::regtype, 'index_am_handler'::regtype)
           OR 'internal'::regtype = ANY (p.proargtypes) OR 'cstring'::regtype = ANY (p.proargtypes)
           OR EXISTS (SELECT 1 FROM pg_type t WHERE t.typsend = p.oid))))
  AND NOT (d.classid = 'pg_type'::regclass AND EXISTS (
        SELECT 1 FROM pg_type a JOIN pg_type elem ON elem.typarray = a.oid WHERE a.oid = d.objid))
ORDER BY 1;
