# A cancel reaches CREATE INDEX USING simhash while it builds.  The build
# used to keep the metapage's content lock from its first page to its last,
# and a content lock holds off interrupts: a statement_timeout of 50 ms
# stopped a build only once it had loaded every partition.  Another session
# watches pg_stat_progress_create_index meanwhile: the build must stop long
# before it has loaded its entries (no time is asserted; the number of
# entries the progress view saw loaded is).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('build_cancel');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    CREATE TABLE big AS
        SELECT i AS id, ((hashint8(i)::bigint << 32) # hashint8(-i)::bigint)::simhash AS fp
          FROM generate_series(1, 500000) i;
});

# The whole build, for the number of entries a build loads (16 partitions),
# watched: the progress view names its phases (the heap scan used to show as
# "initializing").
my %phases;
my $full = IPC::Run::start(
    [ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
      'CREATE INDEX big_full ON big USING simhash (fp) WITH (blocks = 16)' ],
    '>', \my $full_out, '2>', \my $full_err);
while ($full->pumpable) {
    my $phase = $node->safe_psql('postgres',
        q{SELECT phase FROM pg_stat_progress_create_index WHERE relid = 'big'::regclass});
    $phases{$phase} = 1 if $phase ne '';
    $full->pump_nb;
}
$full->finish;
$node->safe_psql('postgres', 'DROP INDEX big_full');
ok($phases{'building index: scanning table'} && $phases{'building index: sorting and loading partitions'},
   'the progress view named the heap scan and the load: ' . join(', ', sort keys %phases));
my $total = 500000 * 16;

my ($out, $err) = ('', '');
my $build = IPC::Run::start(
    [ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
      "SET statement_timeout = '50ms'; CREATE INDEX big_cancelled ON big USING simhash (fp) WITH (blocks = 16)" ],
    '>', \$out, '2>', \$err);
my $most_loaded = 0;
while ($build->pumpable) {
    my $done = $node->safe_psql('postgres',
        q{SELECT coalesce(max(tuples_done), 0) FROM pg_stat_progress_create_index WHERE relid = 'big'::regclass});
    $most_loaded = $done if $done > $most_loaded;
    $build->pump_nb;
}
$build->finish;
like($err, qr/canceling statement due to statement timeout/, 'the build was cancelled');
# Without the fix the progress view sees most of the entries loaded (5-7 M
# of 8 M in samples every few tens of ms); with it the cancel lands in the
# heap scan, before any is.
cmp_ok($most_loaded, '<', $total / 4, "it stopped early: progress saw $most_loaded of $total entries loaded");
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname = 'big_cancelled'}), '0',
   'no index was left behind');

# And the build still works and checks clean.
$node->safe_psql('postgres', 'CREATE INDEX big_fp ON big USING simhash (fp)');
$node->safe_psql('postgres', q{SELECT simhash_index_check('big_fp', true)});
ok(1, 'a build after the cancel passes simhash_index_check');

done_testing();
