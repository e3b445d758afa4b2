# CREATE INDEX, simhash_index_check and simhash_index_stats keep to a memory
# budget whatever the index's size:
# - a build whose pairs outgrew maintenance_work_mem copied its full array
#   into the tuplesorts while still holding it (2.3 times the setting);
# - simhash_index_check held 16 bytes per row and partition, heapallindexed
#   or not (384 MB here), and simhash_index_stats 16 bytes per row.
# Each statement runs in a backend of its own, which reads its peak resident
# memory (VmHWM, /proc/self/status) before and after.  shared_buffers is
# tiny so that the shared pages a backend touches hardly count.  The limits
# leave room on both sides: here the old code grew by about 130 MB (build),
# 380 MB (check) and 100 MB (stats).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

if (!-r '/proc/self/status')
{
    plan skip_all => 'needs /proc/self/status';
}

my $node = PostgreSQL::Test::Cluster->new('index_memory');
$node->init;
$node->append_conf('postgresql.conf', "shared_buffers = 1MB\nmaintenance_work_mem = 64MB\nmax_parallel_maintenance_workers = 0");
$node->start;
$node->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    CREATE FUNCTION peak_mb() RETURNS int LANGUAGE sql AS
      $$ SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s*(\d+)'))[1]::int / 1024 $$;
    -- 6M rows: 96 MB of (fingerprint, tid) pairs, past maintenance_work_mem
    CREATE TABLE big AS
        SELECT i AS id, ((hashint8(i)::bigint << 32) # hashint8(-i)::bigint)::simhash AS fp
          FROM generate_series(1, 6000000) i;
});

# Peak memory growth, in MB, of one backend running $sql.
sub growth
{
    my ($sql) = @_;
    my $out = $node->safe_psql('postgres', "SELECT peak_mb(); $sql; SELECT peak_mb();");
    my @mb = grep { /^\d+$/ } split /\n/, $out;
    return $mb[-1] - $mb[0];
}

my $build = growth('CREATE INDEX big_fp ON big USING simhash (fp)');
cmp_ok($build, '<', 96, "CREATE INDEX past maintenance_work_mem (64 MB) grew by $build MB");

my $check = growth(q{SELECT simhash_index_check('big_fp')});
cmp_ok($check, '<', 16, "simhash_index_check without heapallindexed grew by $check MB");

my $check_heap = growth(q{SELECT simhash_index_check('big_fp', true)});
cmp_ok($check_heap, '<', 96, "simhash_index_check(idx, true) grew by $check_heap MB");

my $stats = growth(q{SELECT count(*) FROM simhash_index_stats('big_fp')});
cmp_ok($stats, '<', 16, "simhash_index_stats grew by $stats MB");

# The sorts that bound the check spill to disk at 1 MB and still find a
# row missing from the index: one is inserted while the index is not ready
# (so not maintained), as an interrupted build would leave it.
$node->safe_psql('postgres', q{
    CREATE TABLE small AS SELECT * FROM big WHERE id <= 200000;
    CREATE INDEX small_fp ON small USING simhash (fp);
    SET maintenance_work_mem = '1MB';
    SELECT simhash_index_check('small_fp', true);
    UPDATE pg_index SET indisready = false WHERE indexrelid = 'small_fp'::regclass;
});
$node->safe_psql('postgres', q{INSERT INTO small VALUES (0, 'feedfacecafebeef')});
$node->safe_psql('postgres', q{UPDATE pg_index SET indisready = true WHERE indexrelid = 'small_fp'::regclass});
my ($rc, $out, $err) = $node->psql('postgres',
    q{SET maintenance_work_mem = '1MB'; SELECT simhash_index_check('small_fp', true)});
like($err, qr/index "small_fp" partition 0 lacks heap tuple \(\d+,\d+\) with fingerprint feedfacecafebeef/,
     'a row missing from the index is reported');
($rc, $out, $err) = $node->psql('postgres',
    q{SET maintenance_work_mem = '1MB'; SELECT simhash_index_check('small_fp', false)});
is($rc, 0, 'the structure alone is intact');

done_testing();
