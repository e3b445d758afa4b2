-- simhash_index_check and the roles involved: the table owner's code in an
-- index expression or predicate runs as the owner, whoever checks, and a
-- missing row's fingerprint is named only to a caller who may read it.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
DROP ROLE IF EXISTS regress_simhash_owner;
DROP ROLE IF EXISTS regress_simhash_monitor;
RESET client_min_messages;
CREATE ROLE regress_simhash_owner;
CREATE ROLE regress_simhash_monitor;
GRANT CREATE ON SCHEMA public TO regress_simhash_owner;
GRANT EXECUTE ON FUNCTION simhash_index_check(regclass, boolean) TO regress_simhash_monitor;

-- An owner whose index expression tries to make its owner a superuser when
-- it runs as one, and records who ran it and what it changed.  Run as the
-- superuser who checks the index, it used to succeed; amcheck
-- switches to the owner for the same reason (CVE-2022-1552).
SET ROLE regress_simhash_owner;
CREATE TABLE ran_as (who name, superuser_tried boolean);
CREATE FUNCTION grab() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO public.ran_as SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user;
    IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        EXECUTE 'ALTER ROLE regress_simhash_owner SUPERUSER';
    END IF;
    PERFORM set_config('simhash.threshold', '9', false);
END $$;
-- public.simhash: from 17, CREATE INDEX runs index expressions with
-- search_path = pg_catalog, pg_temp (README, "Supported PostgreSQL versions").
CREATE FUNCTION owner_fp(t text) RETURNS simhash LANGUAGE plpgsql IMMUTABLE AS
    $$ BEGIN PERFORM public.grab(); RETURN public.simhash(t); END $$;
CREATE FUNCTION owner_pred(id int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS
    $$ BEGIN PERFORM public.grab(); RETURN id > 0; END $$;
CREATE TABLE owned (id int, body text, fp simhash);
INSERT INTO owned SELECT i, 'document number ' || i, simhash('document number ' || i) FROM generate_series(1, 20) i;
CREATE INDEX owned_expr ON owned USING simhash ((owner_fp(body)));
CREATE INDEX owned_partial ON owned USING simhash (fp) WHERE owner_pred(id);
RESET ROLE;
TRUNCATE ran_as;
SET simhash.threshold = 3;
SELECT simhash_index_check('owned_expr', true);
SELECT simhash_index_check('owned_partial', true);
-- the code ran as the owner, and neither escalated nor left its setting behind
SELECT who, superuser_tried, count(*) > 0 AS ran FROM ran_as GROUP BY 1, 2;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_simhash_owner';
SHOW simhash.threshold;
-- a role granted the check, which may not read the table, runs it the same way
TRUNCATE ran_as;
SET ROLE regress_simhash_monitor;
SELECT simhash_index_check('owned_expr', true);
RESET ROLE;
SELECT DISTINCT who FROM ran_as;
-- the caller is itself again afterwards (after an error too: below)
SELECT current_user = session_user AS caller_restored;
-- A scan with no search condition reads the heap for the rows whose
-- fingerprint is NULL, evaluating the expression: a superuser's count(*)
-- ran the owner's function as the superuser.
TRUNCATE ran_as;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM owned;
SELECT count(*) FROM owned;
RESET enable_seqscan;
SELECT who, superuser_tried, count(*) > 0 AS ran FROM ran_as GROUP BY 1, 2;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_simhash_owner';
SHOW simhash.threshold;
SELECT current_user = session_user AS caller_restored;

-- A row missing from the index (indisready off while it was inserted
-- stands in for the damage): its fingerprint is named to the superuser,
-- not to the granted role that cannot read the table.
CREATE TABLE hidden (fp simhash);
INSERT INTO hidden VALUES ('0123456789abcdef');
CREATE INDEX hidden_fp ON hidden USING simhash (fp);
UPDATE pg_index SET indisready = false WHERE indexrelid = 'hidden_fp'::regclass;
INSERT INTO hidden VALUES ('fedcba9876543210');
UPDATE pg_index SET indisready = true WHERE indexrelid = 'hidden_fp'::regclass;
SELECT simhash_index_check('hidden_fp', true);
SET ROLE regress_simhash_monitor;
SELECT simhash_index_check('hidden_fp', true);
SELECT current_user, current_setting('simhash.threshold') AS threshold;
RESET ROLE;
-- granted SELECT, it sees the value; under row-level security it does not
GRANT SELECT ON hidden TO regress_simhash_monitor;
SET ROLE regress_simhash_monitor;
SELECT simhash_index_check('hidden_fp', true);
RESET ROLE;
ALTER TABLE hidden ENABLE ROW LEVEL SECURITY;
SET ROLE regress_simhash_monitor;
SELECT simhash_index_check('hidden_fp', true);
RESET ROLE;

DROP TABLE hidden;
DROP TABLE owned, ran_as;
DROP FUNCTION owner_fp(text), owner_pred(int), grab();
REVOKE CREATE ON SCHEMA public FROM regress_simhash_owner;
REVOKE EXECUTE ON FUNCTION simhash_index_check(regclass, boolean) FROM regress_simhash_monitor;
DROP ROLE regress_simhash_owner;
DROP ROLE regress_simhash_monitor;
