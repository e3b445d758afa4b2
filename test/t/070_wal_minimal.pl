# wal_level = minimal: a table and its simhash index created, filled and
# committed in one transaction write no WAL for their pages (the inserts'
# own records are skipped: RelationNeedsWAL is false); PostgreSQL makes them
# durable at commit instead, by fsync or, below wal_skip_threshold, by
# logging them whole.  Later transactions log their inserts as usual.  After
# an immediate stop, either way, the index must pass
# simhash_index_check(idx, true) and answer like a sequential scan.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $gen = q{((hashint8(i) :: bigint << 32) | (hashint8(i + 9000000000) :: bigint & 4294967295)) :: simhash};
my $q = q{SELECT count(*), md5(string_agg(id::text, ',' ORDER BY id)) FROM t
           WHERE simhash_within(fp, 'aaaaaaaaaaaaaaab', 12) OR fp % (SELECT fp FROM t WHERE id = 7)};

foreach my $threshold ('64kB', '100MB')
{
    my $node = PostgreSQL::Test::Cluster->new("minimal_$threshold");
    $node->init;
    $node->append_conf('postgresql.conf',
        "wal_level = minimal\nmax_wal_senders = 0\nwal_skip_threshold = '$threshold'\nautovacuum = off\n");
    $node->start;
    $node->safe_psql('postgres', 'CREATE EXTENSION simhash');
    $node->safe_psql('postgres', qq{
        BEGIN;
        CREATE TABLE t (id int, fp simhash);
        CREATE INDEX t_fp ON t USING simhash (fp);
        -- enough to split leaves, and a run of one key
        INSERT INTO t SELECT i, $gen FROM generate_series(1, 20000) i;
        INSERT INTO t SELECT 100000 + i, 'aaaaaaaaaaaaaaaa' FROM generate_series(1, 3000) i;
        COMMIT;
    });
    $node->safe_psql('postgres', qq{INSERT INTO t SELECT i, $gen FROM generate_series(20001, 25000) i});
    $node->stop('immediate');
    $node->start;
    is($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '28000',
        "wal_skip_threshold = $threshold: every row survives the crash");
    my ($ret, $out, $err) = $node->psql('postgres', "SELECT simhash_index_check('t_fp', true)");
    is($err, '', "wal_skip_threshold = $threshold: the index passes simhash_index_check(heapallindexed)");
    my $seq = $node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $q");
    my $idx = $node->safe_psql('postgres', "SET enable_seqscan = off; $q");
    like($seq, qr/^3\d{3}\|/, "wal_skip_threshold = $threshold: the query matches the run of one key");
    is($idx, $seq, "wal_skip_threshold = $threshold: the index answers like a seqscan");
    $node->stop;
}

done_testing();
