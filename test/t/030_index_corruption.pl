# A damaged simhash index must give an ERROR, never a crash or a wrong
# answer: bytes of a leaf page and of a directory page are overwritten on
# disk (server stopped), then both a query and simhash_index_check must fail
# with a clear message (SQLSTATE XX002, index_corrupted, where the index
# itself sees the damage), and the server must stay up.  Each damage is
# undone before the next.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('corrupt');
# Data checksums (initdb's default from 18) would refuse the damaged pages
# before the index sees them (XX001): this test is about what the index
# itself finds, as on a cluster without checksums.
$node->init(extra => $node->pg_version >= 18 ? ['--no-data-checksums'] : []);
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;
$node->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    CREATE TABLE t (id bigint, fp simhash);
    -- the top 16 bits take 50 values, so partition 0's leaves hold groups
    -- of entries sharing them (packed pages); the other partitions are spread
    INSERT INTO t SELECT i, (((i % 50)::bigint << 48) | (hashint8(i)::bigint & x'0000ffffffffffff'::bigint))::simhash
        FROM generate_series(1, 20000) i;
    -- and one of them 3,000 times, more than a page holds: a leaf cut inside
    -- it, whose hi (unlike a page cut at a group boundary) is not the end of
    -- a group, so that an insert of the key after it walks on from it
    INSERT INTO t SELECT i, (((60)::bigint << 48) | (hashint8(i)::bigint & x'0000ffffffffffff'::bigint))::simhash
        FROM generate_series(20001, 23000) i;
    CREATE INDEX t_fp ON t USING simhash (fp);
    CHECKPOINT;
});
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('t_fp')");
my $blcksz = 8192;
# ShxPageOpaque: lo, hi (8 bytes each), right (4), flags, part, packed_len, page_id (2 each), MAXALIGNed to 32
my $special = $blcksz - 32;

sub read_file_bytes { open(my $fh, '<:raw', $file) or die "$file: $!"; local $/; my $d = <$fh>; close $fh; return $d; }
sub write_at {
    my ($offset, $bytes) = @_;
    open(my $fh, '+<:raw', $file) or die "$file: $!";
    seek($fh, $offset, 0);
    print $fh $bytes;
    close $fh;
}

# find the first leaf (flags & 4) and the first directory page (flags & 2) of partition 0
my $data = read_file_bytes();
my ($leaf, $cut_leaf, $dir);
for my $blk (0 .. length($data) / $blcksz - 1) {
    my ($flags, $part, $packed, $id) = unpack('v4', substr($data, $blk * $blcksz + $special + 20, 8));
    next unless $id == 0xFF83 && $part == 0;
    $leaf //= $blk if ($flags & 4) && $packed > 0;
    # and one that has a right sibling and does not end at a group boundary
    # (SHX_HI_CLEAN, 16)
    my ($right) = unpack('V', substr($data, $blk * $blcksz + $special + 16, 4));
    $cut_leaf //= $blk if ($flags & 4) && !($flags & 16) && $right != 0xFFFFFFFF;
    $dir //= $blk if $flags & 2;
}
ok(defined $leaf && defined $cut_leaf && defined $dir,
   "found a packed leaf, a leaf cut inside a group and a directory page of partition 0");
my $nblocks = length($data) / $blcksz;

# a query that reads every partition's leaves whole (radius 40), and one through the index's probes
my $query = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
              SELECT count(*) FROM t WHERE simhash_within(fp, '0123456789abcdef', 40)};

sub damaged_case {
    my ($name, $offset, $bytes, $query_pattern, $check_pattern, $case_query) = @_;
    $case_query //= $query;
    $node->stop;
    my $saved = substr(read_file_bytes(), $offset, length $bytes);
    write_at($offset, $bytes);
    $node->start;
    my ($rc, $out, $err) = $node->psql('postgres', $case_query);
    isnt($rc, 0, "$name: the query fails");
    like($err, $query_pattern, "$name: the query names the damage");
    ($rc, $out, $err) = $node->psql('postgres', "SELECT simhash_index_check('t_fp')", extra_params => [ '-v', 'VERBOSITY=verbose' ]);
    isnt($rc, 0, "$name: simhash_index_check fails");
    like($err, $check_pattern, "$name: simhash_index_check reports it");
    is($node->safe_psql('postgres', 'SELECT 1'), '1', "$name: the server is up");
    $node->stop;
    write_at($offset, $saved);
    $node->start;
}

my $leaf_at = $leaf * $blcksz;
damaged_case('leaf packed length past pd_lower', $leaf_at + $special + 24, pack('v', 0xFFF0),
             qr/index "t_fp" page $leaf has a bad layout/, qr/XX002/);
damaged_case('leaf page id', $leaf_at + $special + 26, pack('v', 0x1234),
             qr/index "t_fp" contains unexpected page $leaf/, qr/XX002/);
# the packed region (page offset 24) starts with its group count and entry
# count (uint16 each), the tids' base block (uint32), block bits and offset
# bits (a byte each) and two zero bytes, then the group table {prefix,
# first entry}
my ($ngroups) = unpack('v', substr(read_file_bytes(), $leaf_at + 24, 2));
ok($ngroups >= 2, "the packed leaf has $ngroups groups");
# an entry count that does not match the packed length
damaged_case('leaf entry count', $leaf_at + 24 + 2, pack('v', 0xFFFF),
             qr/index "t_fp" page $leaf has a packed region that does not add up/, qr/XX002/);
# tids of more than 32 block bits: no packing, whatever the length says
damaged_case('leaf tid block bits', $leaf_at + 24 + 8, pack('C', 40),
             qr/index "t_fp" page $leaf has a packed region that does not add up/, qr/XX002/);
# a wider offset than the page was written with: the length no longer adds up
damaged_case('leaf tid offset bits', $leaf_at + 24 + 9, pack('C', 16),
             qr/index "t_fp" page $leaf has a packed region that does not add up/, qr/XX002/);
# group 1 starting far past the entries: group 0 would run beyond them
damaged_case('leaf group table', $leaf_at + 24 + 12 + 4 + 2, pack('v', 0xFFFF),
             qr/index "t_fp" page $leaf has a packed region that does not add up/, qr/XX002/);
# VACUUM rewrites the leaves it removes entries from: a group table that
# does not add up (group 1 starting at entry 0, so group 0 is empty) is an
# error there, not a page rewritten from what could be read of it
$node->safe_psql('postgres', 'DELETE FROM t WHERE id % 10 = 0');
damaged_case('leaf group table, VACUUM', $leaf_at + 24 + 12 + 4 + 2, pack('v', 0),
             qr/index "t_fp" page $leaf has a packed region that does not add up/, qr/XX002/, 'VACUUM t');
# group 0's prefix above group 1's: the groups are out of order, which a
# scan cannot see (it binary-searches the table) but the check reports
{
    $node->stop;
    my $at = $leaf_at + 24 + 12;
    my $saved = substr(read_file_bytes(), $at, 2);
    write_at($at, pack('v', 0xFFFF));
    $node->start;
    my ($rc, $out, $err) = $node->psql('postgres', "SELECT simhash_index_check('t_fp')");
    isnt($rc, 0, 'groups out of order: simhash_index_check fails');
    like($err, qr/index "t_fp" block $leaf: the packed region's group table is out of order/,
         'groups out of order: simhash_index_check names the page');
    $node->stop;
    write_at($at, $saved);
    $node->start;
}
# a leaf cut inside a group marked as ending at a group boundary
# (SHX_HI_CLEAN): its right sibling starts with a key equal to its hi, which
# a walk for a range ending there would no longer read; the check reports it
{
    $node->stop;
    my $at = $cut_leaf * $blcksz + $special + 20;
    my ($flags) = unpack('v', substr(read_file_bytes(), $at, 2));
    write_at($at, pack('v', $flags | 16));
    $node->start;
    my ($rc, $out, $err) = $node->psql('postgres', "SELECT simhash_index_check('t_fp')");
    isnt($rc, 0, 'false clean boundary: simhash_index_check fails');
    like($err, qr/index "t_fp" block \d+: entry 0 key [0-9a-f]+ equals the hi of a left neighbour that ends cleanly/,
         'false clean boundary: simhash_index_check names the entry');
    $node->stop;
    write_at($at, pack('v', $flags));
    $node->start;
}
# the first tid zeroed (offset 0): a layout that adds up, so scans read it,
# and simhash_index_check reports the entry
{
    $node->stop;
    my ($g, $n, $base, $bbits, $obits) = unpack('v v V C C', substr(read_file_bytes(), $leaf_at + 24, 10));
    my $at = $leaf_at + 24 + 12 + 4 * $g + 6 * $n;
    my $len = int(($bbits + $obits + 7) / 8);
    my $saved = substr(read_file_bytes(), $at, $len);
    write_at($at, "\0" x $len);
    $node->start;
    my ($rc, $out, $err) = $node->psql('postgres', "SELECT simhash_index_check('t_fp')");
    isnt($rc, 0, 'a zeroed tid: simhash_index_check fails');
    like($err, qr/index "t_fp" block $leaf: entry 0 has an invalid tid/, 'a zeroed tid: simhash_index_check names the entry');
    $node->stop;
    write_at($at, $saved);
    $node->start;
}
# an index written in on-disk version 2 (whole 6-byte tids) or 1 (groups
# interleaved with their entries; the metapage holds magic, then version):
# the planner leaves it aside with one WARNING a session naming the way out,
# so queries on the table still run (they failed at planning, count(*)
# included, as the cost estimate read the metapage), while an insert, which
# cannot write the old format, and simhash_index_check refuse it by name
{
    my $near = "SELECT count(*) FROM t WHERE simhash_within(fp, '0123456789abcdef', 3)";
    my $answers = $node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $near; SELECT count(*) FROM t");
    for my $v (2, 1) {
        $node->stop;
        my $saved = substr(read_file_bytes(), 24 + 4, 4);
        write_at(24 + 4, pack('V', $v));
        $node->start;
        my ($rc, $out, $err) = $node->psql('postgres', "$near; SELECT count(*) FROM t; EXPLAIN (COSTS OFF) $near; $near");
        is($rc, 0, "on-disk version $v: queries on the table run");
        my @warned = $err =~ /WARNING:  index "t_fp" has on-disk version $v, which this simhash build no longer reads; queries do not use it\nHINT:  To fix this, do REINDEX INDEX "t_fp"/g;
        is(scalar @warned, 1, "on-disk version $v: one WARNING in the session, with the way out");
        my @lines = split /\n/, $out;
        is(join("\n", @lines[0, 1]), $answers, "on-disk version $v: answers of a sequential scan");
        like($out, qr/Seq Scan on t/, "on-disk version $v: the plan leaves the index aside");
        ($rc, $out, $err) = $node->psql('postgres', "INSERT INTO t VALUES (0, '0123456789abcdef')");
        isnt($rc, 0, "on-disk version $v: an insert fails");
        like($err, qr/index "t_fp" has on-disk version $v, which this simhash build no longer reads\nHINT:  To fix this, do REINDEX INDEX "t_fp"/,
             "on-disk version $v: the insert names the way out");
        ($rc, $out, $err) = $node->psql('postgres', "SELECT simhash_index_check('t_fp')", extra_params => [ '-v', 'VERBOSITY=verbose' ]);
        like($err, qr/0A000/, "on-disk version $v: simhash_index_check refuses it");
        $node->stop;
        write_at(24 + 4, $saved);
        $node->start;
    }
}
# a leaf's right link back to itself: an error, not a walk round for ever
damaged_case('leaf linked to itself', $leaf_at + $special + 16, pack('V', $leaf),
             qr/index "t_fp" page $leaf links to page $leaf, which does not start where it ends/, qr/XX002/);
# a skip (ShxPageOpaque.skip, offset 28) naming a directory page: an insert
# of a key just past the leaf's range jumps there and stops with an error
{
    my $cut_at = $cut_leaf * $blcksz;
    my ($hi) = unpack('Q<', substr(read_file_bytes(), $cut_at + $special + 8, 8));
    my $q = sprintf('%016x', $hi + 1);
    damaged_case('leaf skip to a directory page', $cut_at + $special + 28, pack('V', $dir),
                 qr/index "t_fp" contains unexpected page $dir/, qr/XX002/, "INSERT INTO t VALUES (0, '$q')");
}
# directory slot 0 of partition 0 pointing past the end of the index
damaged_case('directory slot past the end', $dir * $blcksz + 24, pack('V', $nblocks + 1000),
             qr/could not read block|unexpected page|XX002/, qr/XX002|could not read block/);
# ... and at another directory page
damaged_case('directory slot at a directory page', $dir * $blcksz + 24, pack('V', $dir + 1),
             qr/index "t_fp" contains unexpected page/, qr/XX002/);

# undamaged again: sound, and the index answers like a sequential scan
is($node->safe_psql('postgres', "SELECT simhash_index_check('t_fp', true)"), '', 'restored index is sound');
is($node->safe_psql('postgres', $query),
   $node->safe_psql('postgres', q{SET enable_indexscan = off; SET enable_bitmapscan = off;
                                  SELECT count(*) FROM t WHERE simhash_within(fp, '0123456789abcdef', 40)}),
   'restored index answers like a seqscan');

# VACUUM of a table whose index is in an old on-disk format: it failed,
# autovacuum with it, which would have held back the cluster's freezing until
# a REINDEX.  It now vacuums the table, leaves the index alone with a WARNING
# naming the way out, and REINDEX then gives a sound index of the live rows.
{
    $node->safe_psql('postgres', q{
        CREATE TABLE old_t (id int, fp simhash);
        INSERT INTO old_t SELECT i, simhash_from_bigint(hashint8(i)) FROM generate_series(1, 3000) i;
        CREATE INDEX old_fp ON old_t USING simhash (fp);
        CHECKPOINT;
    });
    my $old_file = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('old_fp')");
    $node->stop;
    open(my $fh, '+<:raw', $old_file) or die "$old_file: $!";
    seek($fh, 24 + 4, 0);
    print $fh pack('V', 2);
    close $fh;
    $node->start;
    $node->safe_psql('postgres', 'DELETE FROM old_t WHERE id % 2 = 0');
    my ($rc, $out, $err) = $node->psql('postgres', 'VACUUM old_t');
    is($rc, 0, 'old on-disk version: VACUUM of the table succeeds');
    like($err, qr/WARNING:  index "old_fp" has on-disk version 2, which this simhash build no longer reads; VACUUM leaves it alone\nHINT:  To fix this, do REINDEX INDEX "old_fp"/,
         'old on-disk version: VACUUM warns and names the way out');
    is($node->safe_psql('postgres', "SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'old_t'"), '0',
       'old on-disk version: VACUUM removed the dead rows');
    $node->safe_psql('postgres', 'REINDEX INDEX old_fp');
    is($node->safe_psql('postgres', "SELECT simhash_index_check('old_fp', true)"), '', 'old on-disk version: sound after REINDEX');
    my $near = "SELECT string_agg(id::text, ',' ORDER BY id) FROM old_t WHERE simhash_within(fp, simhash_from_bigint(hashint8(7)), 20)";
    is($node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $near"),
       $node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $near"),
       'old on-disk version: after REINDEX the index answers like a seqscan');
}
done_testing();
