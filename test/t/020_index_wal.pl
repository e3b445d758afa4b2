# The simhash index under WAL: a streaming standby with
# wal_consistency_checking = 'Generic' replays every index change and compares
# each replayed page with a full image; then an immediate stop of the primary
# in the middle of concurrent inserts, after which crash recovery must leave an
# index that passes simhash_index_check(idx, true) and answers like a seqscan.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "wal_consistency_checking = 'Generic'\nautovacuum = off\nwal_keep_size = '2GB'\nmax_wal_size = '2GB'\n");
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION simhash');
$primary->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
$standby->start;

my $gen = q{((hashint8(i) :: bigint << 32) | (hashint8(i + 7777777) :: bigint & 4294967295)) :: simhash};
$primary->safe_psql('postgres', qq{
    CREATE TABLE t (id bigint, fp simhash);
    INSERT INTO t SELECT i, $gen FROM generate_series(1, 3000) i;
    CREATE INDEX t_fp ON t USING simhash (fp) WITH (fillfactor = 50);
    -- inserts that split leaves and refresh the directory
    INSERT INTO t SELECT i, $gen FROM generate_series(3001, 20000) i;
    INSERT INTO t SELECT 100000 + i, 'aaaaaaaaaaaaaaaa' FROM generate_series(1, 10000) i;
    -- keys after that run in the same block value: the first records a skip over it
    INSERT INTO t SELECT 200000 + i, ('aaaaffff0000000' || i)::simhash FROM generate_series(0, 3) i;
    DELETE FROM t WHERE id % 5 = 0;
    VACUUM t;
    INSERT INTO t SELECT i, $gen FROM generate_series(20001, 22000) i;
});
$primary->wait_for_catchup($standby, 'replay');
ok(1, 'standby replayed index WAL with wal_consistency_checking = Generic');

my $q = q{SELECT count(*), sum(id) FROM t WHERE simhash_within(fp, (SELECT fp FROM t WHERE id = 7), 20)};
my $q2 = q{SELECT string_agg(id::text, ',' ORDER BY id) FROM t WHERE fp % (SELECT fp FROM t WHERE id = 100001) OR simhash_within(fp, (SELECT fp FROM t WHERE id = 11), 8)};
my $idx = "SET enable_seqscan = off; SET enable_bitmapscan = on;";
my $seq = "SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;";
is($standby->safe_psql('postgres', "$idx $q"), $primary->safe_psql('postgres', "$seq $q"), 'standby index answers like the primary seqscan');
# On a standby the check needs replay paused: replay changing the index
# under it once looked like corruption and overran the checker's arrays.
my ($rc, $out, $err) = $standby->psql('postgres', "SELECT simhash_index_check('t_fp')");
like($err, qr/needs WAL replay paused on a standby/, 'the check refuses while replay runs');
sub check_paused_standby {
    my ($heapallindexed) = @_;
    $standby->safe_psql('postgres', 'SELECT pg_wal_replay_pause()');
    $standby->poll_query_until('postgres', "SELECT pg_get_wal_replay_pause_state() = 'paused'")
      or die 'replay did not pause';
    my $r = $standby->safe_psql('postgres', "SELECT simhash_index_check('t_fp', $heapallindexed)");
    $standby->safe_psql('postgres', 'SELECT pg_wal_replay_resume()');
    return $r;
}
is(check_paused_standby('true'), '', 'standby index is sound (replay paused)');

# crash in the middle of concurrent inserts
my @bg;
for my $w (1 .. 2) {
    my $start = 1000000 * $w;
    push @bg, IPC::Run::start(
        [ 'psql', '-XAtq', '-d', $primary->connstr('postgres'), '-c',
          qq{INSERT INTO t SELECT i, $gen FROM generate_series($start, $start + 400000) i} ],
        '>', '/dev/null', '2>', '/dev/null');
}
sleep 2;
$primary->stop('immediate');
eval { $_->finish } for @bg;
$primary->start;
is($primary->safe_psql('postgres', "SELECT simhash_index_check('t_fp', true)"), '', 'index passes simhash_index_check(heapallindexed) after crash recovery');
is($primary->safe_psql('postgres', "$idx $q2"), $primary->safe_psql('postgres', "$seq $q2"), 'index answers like a seqscan after crash recovery');
is($primary->safe_psql('postgres', "$idx $q"), $primary->safe_psql('postgres', "$seq $q"), 'radius 20 answers like a seqscan after crash recovery');
$primary->safe_psql('postgres', qq{INSERT INTO t SELECT i, $gen FROM generate_series(3000000, 3005000) i});
is($primary->safe_psql('postgres', "SELECT simhash_index_check('t_fp', true)"), '', 'inserts after recovery keep the index sound');
$primary->wait_for_catchup($standby, 'replay');
is(check_paused_standby('true'), '', 'standby follows the recovered primary');

$standby->stop;
$primary->stop;
done_testing();
