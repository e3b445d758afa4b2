-- The index benchmarks' table base(id, fp) of :n rows (psql -v n=N):
-- 90% uniform random fingerprints; 10% in planted clusters of 20
-- near-duplicates (1-3 bits flipped) around the first N/200 rows.
-- Used by index_bench.sh and pairs_bench.sh.
DROP TABLE IF EXISTS base;
CREATE TABLE base (id bigint, fp simhash);
INSERT INTO base SELECT i, ((hashint8(i)::bigint << 32) | (hashint8(i + 9000000000)::bigint & 4294967295))::simhash
    FROM generate_series(1, (:n * 0.9)::bigint) i;
CREATE INDEX ON base (id);
INSERT INTO base SELECT (:n * 0.9)::bigint + i,
       (fp::bigint # (1::bigint << (abs(hashint8(i * 3)) % 64)) # (1::bigint << (abs(hashint8(i * 5)) % 64))
                   # CASE WHEN i % 2 = 0 THEN 1::bigint << (abs(hashint8(i * 7)) % 64) ELSE 0 END)::simhash
    FROM (SELECT i, (SELECT fp FROM base b WHERE b.id = 1 + (i - 1) / 20) AS fp
          FROM generate_series(1, :n - (:n * 0.9)::bigint) i) s;
