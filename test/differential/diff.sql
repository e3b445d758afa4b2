-- Randomized differential test of the simhash index: the same queries through
-- the index and through a sequential scan must return the same rows.
-- Functions used by run.sh; every mismatch raises a WARNING and is counted.

CREATE OR REPLACE FUNCTION diff_rand_fp() RETURNS simhash LANGUAGE sql VOLATILE AS $$
    SELECT ((floor(random() * 4294967296)::bigint << 32) | floor(random() * 4294967296)::bigint)::simhash
$$;

-- fp with k random bits flipped
CREATE OR REPLACE FUNCTION diff_flip(fp simhash, k int) RETURNS simhash LANGUAGE plpgsql VOLATILE AS $$
DECLARE v bigint := fp::bigint;
BEGIN
    FOR i IN 1..k LOOP
        v := v # (1::bigint << floor(random() * 64)::int);
    END LOOP;
    RETURN v::simhash;
END $$;

-- n rows: half uniform, half in clusters of near-duplicates around a few centres
CREATE OR REPLACE FUNCTION diff_add_rows(n int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE c simhash;
BEGIN
    INSERT INTO dt(fp) SELECT diff_rand_fp() FROM generate_series(1, n / 2);
    FOR i IN 1..greatest(1, n / 40) LOOP
        c := diff_rand_fp();
        INSERT INTO dt(fp) SELECT diff_flip(c, floor(random() * 6)::int) FROM generate_series(1, 20);
    END LOOP;
    INSERT INTO dt(fp) SELECT NULL FROM generate_series(1, 3);
    -- exact duplicates (many rows sharing one fingerprint, hence one block value everywhere)
    c := diff_rand_fp();
    INSERT INTO dt(fp) SELECT c FROM generate_series(1, n / 50);
    PERFORM diff_add_deep(n / 5);
END $$;

-- n distinct fingerprints sharing their top 20 bits, half of them in
-- ascending order: one directory slot of many pages, which inserts and
-- lookups cross from backend-local starting points (src/index/shx_hints.cpp)
CREATE OR REPLACE FUNCTION diff_add_deep(n int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    prefix bigint := floor(random() * 1048576)::bigint << 44;
    start bigint := floor(random() * 1e12)::bigint;
BEGIN
    INSERT INTO dt(fp) SELECT (prefix | (start + g * 7919))::simhash FROM generate_series(1, n / 2) g;
    INSERT INTO dt(fp) SELECT (prefix | floor(random() * 17592186044416)::bigint)::simhash FROM generate_series(1, n / 2);
END $$;

-- Answers a query through index scans only ('index'), bitmap scans only
-- ('bitmap') or a sequential scan ('seq').
CREATE OR REPLACE FUNCTION diff_ids(q text, how text) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE r int[];
BEGIN
    PERFORM set_config('enable_seqscan', (how = 'seq')::text, true);
    PERFORM set_config('enable_indexscan', (how = 'index')::text, true);
    PERFORM set_config('enable_indexonlyscan', (how = 'index')::text, true);
    PERFORM set_config('enable_bitmapscan', (how = 'bitmap')::text, true);
    EXECUTE q INTO r;
    RETURN r;
END $$;

-- Runs nq random queries of every kind; returns the number of mismatches.
CREATE OR REPLACE FUNCTION diff_queries(nq int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    q simhash;
    radius int;
    bad int := 0;
    sql text;
    a int[];
    b int[];
    mode int;
BEGIN
    FOR i IN 1..nq LOOP
        IF random() < 0.7 THEN
            SELECT diff_flip(fp, floor(random() * 5)::int) INTO q FROM dt WHERE fp IS NOT NULL
                OFFSET floor(random() * (SELECT count(*) FROM dt WHERE fp IS NOT NULL)) LIMIT 1;
        END IF;
        IF q IS NULL THEN q := diff_rand_fp(); END IF;
        radius := CASE WHEN random() < 0.8 THEN floor(random() * 12)::int
                       ELSE (ARRAY[16, 24, 32, 40, 64])[1 + floor(random() * 5)::int] END;
        mode := floor(random() * 8)::int;
        IF mode = 0 THEN
            sql := format('SELECT array_agg(id ORDER BY id) FROM dt WHERE simhash_within(fp, %L::simhash, %s)', q, radius);
        ELSIF mode = 1 THEN
            PERFORM set_config('simhash.threshold', radius::text, true);
            sql := format('SELECT array_agg(id ORDER BY id) FROM dt WHERE fp %% %L::simhash', q);
        ELSIF mode = 2 THEN
            sql := format('SELECT array_agg(id ORDER BY id) FROM dt WHERE fp = %L::simhash', q);
        ELSIF mode = 3 THEN
            -- KNN: compare the distance sequence (ties may order differently)
            sql := format('SELECT array_agg(d) FROM (SELECT fp <-> %L::simhash AS d FROM dt WHERE fp IS NOT NULL ORDER BY fp <-> %L::simhash LIMIT %s) s',
                          q, q, 1 + floor(random() * 30)::int);
        ELSIF mode = 4 THEN
            -- KNN combined with a radius condition
            sql := format('SELECT array_agg(d) FROM (SELECT fp <-> %L::simhash AS d FROM dt WHERE simhash_within(fp, %L::simhash, %s) ORDER BY fp <-> %L::simhash LIMIT 10) s',
                          q, q, radius, q);
        ELSIF mode = 6 THEN
            -- every row within a radius, nearest first: the order, then the exact set
            sql := format('SELECT array_agg(d) || array_agg(id ORDER BY d, id) FROM (SELECT id, fp <-> %L::simhash AS d FROM dt WHERE fp %% %L::simhash ORDER BY fp <-> %L::simhash) s',
                          q, q, q);
            PERFORM set_config('simhash.threshold', radius::text, true);
        ELSIF mode = 7 THEN
            -- KNN around one point within a radius of another
            sql := format('SELECT array_agg(d) FROM (SELECT fp <-> %L::simhash AS d FROM dt WHERE simhash_within(fp, %L::simhash, %s) ORDER BY fp <-> %L::simhash LIMIT %s) s',
                          q, diff_flip(q, 3), radius, q, 1 + floor(random() * 20)::int);
        ELSE
            -- two conditions on different queries
            sql := format('SELECT array_agg(id ORDER BY id) FROM dt WHERE simhash_within(fp, %L::simhash, %s) AND simhash_within(fp, %L::simhash, %s)',
                          q, radius, diff_flip(q, 2), least(64, radius + 2));
        END IF;
        a := diff_ids(sql, 'index');
        b := diff_ids(sql, 'seq');
        IF a IS DISTINCT FROM b THEN
            bad := bad + 1;
            RAISE WARNING 'mismatch: % index=% seqscan=%', sql, a, b;
        END IF;
        IF mode NOT IN (3, 4, 6, 7) THEN  -- no order: a bitmap scan can answer it too
            a := diff_ids(sql, 'bitmap');
            IF a IS DISTINCT FROM b THEN
                bad := bad + 1;
                RAISE WARNING 'mismatch: % bitmap=% seqscan=%', sql, a, b;
            END IF;
        END IF;
    END LOOP;
    RETURN bad;
END $$;

-- Random updates and deletes
CREATE OR REPLACE FUNCTION diff_churn(n int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE dt SET fp = diff_flip(fp, 1 + floor(random() * 3)::int)
        WHERE id IN (SELECT id FROM dt ORDER BY random() LIMIT n);
    DELETE FROM dt WHERE id IN (SELECT id FROM dt ORDER BY random() LIMIT n);
END $$;

-- simhash_pairs against the self-join through the index, at radii 0, 3 and
-- two random ones (4-12 and 13-20): the number of radii whose pairs differ
-- (a pair missing, extra, repeated or at a wrong distance); each mismatch
-- is also raised as a WARNING naming the radius.
CREATE OR REPLACE FUNCTION diff_pairs() RETURNS int LANGUAGE plpgsql AS $$
DECLARE r int; bad int := 0; missing bigint; extra bigint;
BEGIN
    FOREACH r IN ARRAY ARRAY[0, 3, 4 + floor(random() * 9)::int, 13 + floor(random() * 8)::int] LOOP
        SELECT count(*) INTO missing FROM (
            SELECT x.ctid, y.ctid, x.fp <-> y.fp FROM dt x JOIN dt y ON simhash_within(x.fp, y.fp, r) AND x.ctid < y.ctid
            EXCEPT ALL SELECT * FROM simhash_pairs('dt_idx', r)) s;
        SELECT count(*) INTO extra FROM (
            SELECT * FROM simhash_pairs('dt_idx', r)
            EXCEPT ALL SELECT x.ctid, y.ctid, x.fp <-> y.fp FROM dt x JOIN dt y ON simhash_within(x.fp, y.fp, r) AND x.ctid < y.ctid) s;
        IF missing + extra > 0 THEN
            RAISE WARNING 'simhash_pairs at radius %: % pairs missing, % extra', r, missing, extra;
            bad := bad + 1;
        END IF;
    END LOOP;
    RETURN bad;
END $$;
