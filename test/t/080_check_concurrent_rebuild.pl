# simhash_index_check(idx, true) after REINDEX CONCURRENTLY, while deleted
# rows are not yet removable (held back here by a prepared transaction older
# than the deletes, in production by an old snapshot or a standby's
# hot_standby_feedback; a prepared transaction holds no snapshot, so the
# concurrent builds do not wait for it).  A
# concurrent build rightly leaves such rows out; the check used to require
# every row a plain build would index, and reported the sound index as
# corrupt ("lacks heap tuple").  It now requires the rows an MVCC snapshot
# sees, as amcheck does, and still reports a row that is missing.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('concurrent_rebuild');
$node->init;
$node->append_conf('postgresql.conf', "max_prepared_transactions = 2\nautovacuum = off\n");
$node->start;
$node->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    CREATE TABLE r (id int, fp simhash);
    INSERT INTO r SELECT g, simhash_from_bigint(g * 7919) FROM generate_series(1, 20000) g;
    CREATE INDEX r_fp ON r USING simhash (fp);
});
# a transaction id older than the deletes, kept running until the end
$node->safe_psql('postgres', q{BEGIN; SELECT pg_current_xact_id(); PREPARE TRANSACTION 'hold_horizon'});
$node->safe_psql('postgres', q{
    DELETE FROM r WHERE id % 3 = 0;
    VACUUM r;  -- the deleted rows stay: the horizon is held back
});
is($node->safe_psql('postgres', q{
    SELECT n_dead_tup > 0 FROM pg_stat_user_tables WHERE relname = 'r'}), 't',
    'VACUUM left the deleted rows in place');
my ($ret, $out, $err) = $node->psql('postgres', "SELECT simhash_index_check('r_fp', true)");
is($ret, 0, 'the built index passes while the deleted rows stay') or diag($err);

$node->safe_psql('postgres', 'REINDEX INDEX CONCURRENTLY r_fp');
($ret, $out, $err) = $node->psql('postgres', "SELECT simhash_index_check('r_fp', true)");
is($ret, 0, 'the index REINDEX CONCURRENTLY built passes: it need not hold rows no snapshot sees') or diag($err);

$node->safe_psql('postgres', 'DROP INDEX r_fp; CREATE INDEX CONCURRENTLY r_fp ON r USING simhash (fp)');
($ret, $out, $err) = $node->psql('postgres', "SELECT simhash_index_check('r_fp', true)");
is($ret, 0, 'so does one CREATE INDEX CONCURRENTLY built') or diag($err);
is($node->safe_psql('postgres', q{
    SET enable_seqscan = off;
    SELECT count(*) FROM r WHERE simhash_within(fp, simhash_from_bigint(23757), 64)}), '13334',
    'and it answers with every live row');

# A live row the index lacks is still reported: one row goes into the heap
# alone while the index is marked not ready for inserts, as a lost write
# would leave it.
$node->safe_psql('postgres', q{
    UPDATE pg_index SET indisready = false WHERE indexrelid = 'r_fp'::regclass;
});
$node->safe_psql('postgres', q{INSERT INTO r VALUES (100001, simhash_from_bigint(123456789))});
$node->safe_psql('postgres', q{
    UPDATE pg_index SET indisready = true WHERE indexrelid = 'r_fp'::regclass;
});
($ret, $out, $err) = $node->psql('postgres', "SELECT simhash_index_check('r_fp', true)");
isnt($ret, 0, 'a live row missing from the index is still reported');
like($err, qr/lacks heap tuple/, 'as a missing heap tuple');

$node->safe_psql('postgres', q{ROLLBACK PREPARED 'hold_horizon'});
$node->stop;
done_testing();
