# simhash_index_check(idx, true) on a standby whose replay paused between a
# row's heap record and its index records.  There the row's transaction is
# still in progress, so its index entries need not exist yet.  The check
# used to read the heap as an index build does, in-progress rows included:
# it reported the row as missing (a false XX002) after a WARNING per such
# row.  Replay is stopped at the exact record with recovery_target_lsn.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "autovacuum = off\nwal_keep_size = '256MB'\n");
$primary->start;
$primary->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    CREATE TABLE t (id int, fp simhash);
    INSERT INTO t SELECT i, hashint8(i)::bigint::simhash FROM generate_series(1, 1000) i;
    CREATE INDEX t_fp ON t USING simhash (fp);
});
$primary->backup('bk');

my $before = $primary->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
$primary->safe_psql('postgres', q{INSERT INTO t VALUES (1001, '0123456789abcdef')});
my $after = $primary->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');

# The first index (generic WAL) record after the row's heap insert.
my ($dump, $err);
IPC::Run::run([ 'pg_waldump', '-p', $primary->data_dir . '/pg_wal', '-s', $before, '-e', $after ],
    '>', \$dump, '2>', \$err)
  or die "pg_waldump failed: $err";
my ($heap_seen, $stop_lsn) = (0, undef);
for my $line (split /\n/, $dump) {
    $heap_seen = 1 if $line =~ /rmgr: Heap\s.*desc: INSERT/;
    if ($heap_seen && $line =~ /rmgr: Generic\s.*lsn: ([0-9A-F]+\/[0-9A-F]+),/) {
        $stop_lsn = $1;
        last;
    }
}
ok(defined $stop_lsn, "found the insert's first index record in the WAL");

my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
$standby->append_conf('postgresql.conf',
    "recovery_target_lsn = '$stop_lsn'\nrecovery_target_inclusive = off\nrecovery_target_action = 'pause'\n");
$standby->start;
$standby->poll_query_until('postgres', "SELECT pg_get_wal_replay_pause_state() = 'paused'")
  or die 'replay did not pause at the target';

is($standby->safe_psql('postgres', 'SELECT count(*) FROM t'), '1000',
    'at the pause point the row being inserted is not visible');
my ($rc, $out, $stderr) = $standby->psql('postgres', "SELECT simhash_index_check('t_fp', true)");
is($rc, 0, 'the heapallindexed check passes with an insert in flight');
unlike($stderr, qr/lacks heap tuple|WARNING/, 'no missing-row error and no warnings');
is($standby->safe_psql('postgres', "SELECT simhash_index_check('t_fp', false)"), '', 'the structure check passes');

$standby->stop;
$primary->stop;
done_testing();
