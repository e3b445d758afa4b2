-- Hamming distance, %, simhash_within, simhash_similarity and simhash_blocks.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

SELECT '0000000000000000'::simhash <-> 'ffffffffffffffff' AS all_bits,
       '0000000000000000'::simhash <-> '0000000000000000' AS none,
       '00000000000000ff'::simhash <-> '0000000000000f0f' AS four,
       hamming_distance('8000000000000000', '0000000000000001') AS two;
SELECT pg_typeof('0000000000000000'::simhash <-> '0000000000000000');

-- % follows simhash.threshold (default 3).
SHOW simhash.threshold;
SELECT '0000000000000000'::simhash % '0000000000000007' AS d3, '0000000000000000'::simhash % '000000000000000f' AS d4;
SET simhash.threshold = 4;
SELECT '0000000000000000'::simhash % '000000000000000f' AS d4;
SET simhash.threshold = 0;
SELECT '0000000000000000'::simhash % '0000000000000001' AS d1, 'abcdef0123456789'::simhash % 'abcdef0123456789' AS d0;
SET simhash.threshold = 64;
SELECT '0000000000000000'::simhash % 'ffffffffffffffff' AS d64;
SET simhash.threshold = 65;
SET simhash.threshold = -1;
SET simhash.threshold = 'three';
RESET simhash.threshold;
SET simhash.no_such_setting = 1;

-- simhash_within: explicit radius 0..64.
SELECT simhash_within('0000000000000000', '0000000000000007', 3), simhash_within('0000000000000000', '0000000000000007', 2),
       simhash_within('0000000000000000', 'ffffffffffffffff', 64), simhash_within('0123456789abcdef', '0123456789abcdef', 0);
SELECT simhash_within('0000000000000000', '0000000000000007', -1);
SELECT simhash_within('0000000000000000', '0000000000000007', 65);
SELECT simhash_within('0000000000000000', '0000000000000007', NULL) IS NULL;

SELECT simhash_similarity('0000000000000000', '0000000000000000'), simhash_similarity('0000000000000000', 'ffffffffffffffff'),
       simhash_similarity('0000000000000000', '00000000000000ff');

-- Blocks, most significant first; widths differ by at most one bit.
SELECT simhash_blocks('0123456789abcdef', 4);
SELECT simhash_blocks('ffffffffffffffff', 2), simhash_blocks('ffffffffffffffff', 5);
SELECT array_length(simhash_blocks('0123456789abcdef', 64), 1), (simhash_blocks('8000000000000001', 64))[1:2];
SELECT simhash_blocks('0123456789abcdef', 1);
SELECT simhash_blocks('0123456789abcdef', 65);
-- The pigeonhole property: within distance k, some block of k+1 agrees exactly.
SELECT count(*) AS pairs_within_3,
       count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM generate_series(1, 4) k
                                          WHERE (simhash_blocks(a, 4))[k] = (simhash_blocks(b, 4))[k])) AS violations
  FROM (SELECT (i * 2654435761)::bigint::simhash AS a, ((i * 2654435761) # (1::bigint << (i % 64)) # (1::bigint << ((i * 7) % 64)) # (1::bigint << ((i * 13) % 64)))::bigint::simhash AS b
          FROM generate_series(1, 2000) i) p
 WHERE a <-> b <= 3;

-- NULLs.
SELECT NULL::simhash <-> '0000000000000000', NULL::simhash % '0000000000000000', simhash_similarity(NULL, '0000000000000000'),
       simhash_blocks(NULL, 4), simhash_blocks('0000000000000000', NULL);

-- SQLSTATEs of the errors above.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/sql/include/sqlstate_of.psql'
\i :sqlstate_of
SELECT pg_temp.sqlstate_of($$SELECT simhash_within('0000000000000000', '0000000000000000', 65)$$) AS radius,
       pg_temp.sqlstate_of($$SELECT simhash_blocks('0000000000000000', 0)$$) AS blocks,
       pg_temp.sqlstate_of($$SET simhash.threshold = 65$$) AS threshold;

-- Named arguments, as the README's function table names them.
SELECT hamming_distance(a => '0000000000000000', b => '0000000000000003') AS distance,
       simhash_within(a => '0000000000000000', b => '0000000000000003', radius => 2) AS within,
       simhash_similarity(a => '0000000000000000', b => '000000000000000f') AS similarity,
       simhash_blocks(fp => 'ffff000000000001', n => 4) AS blocks;
