# Fingerprints hash features as UTF-8, so a text gets the same fingerprint in
# a LATIN1 or SQL_ASCII database as in a UTF8 one, and simhash_features()
# shows features in the server encoding.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('encoding');
$node->init;
$node->start;

for my $encoding ('UTF8', 'LATIN1', 'SQL_ASCII', 'EUC_CN') {
    $node->safe_psql('postgres',
        "CREATE DATABASE \"db_$encoding\" TEMPLATE template0 ENCODING '$encoding' LC_COLLATE 'C' LC_CTYPE 'C'");
    $node->safe_psql("db_$encoding", 'CREATE EXTENSION simhash');
}

# Latin-1 letters, upper and lower case, so folding is exercised after conversion.
my $text = "Straße GRÜN Äpfel ØRSTED café";
my $query = "SET client_encoding = 'UTF8'; SELECT simhash('$text'::text), simhash_features('$text')";

my $utf8 = $node->safe_psql('db_UTF8', $query);
like($utf8, qr/^[0-9a-f]{16}\|\{straße,grün,äpfel,/, 'UTF8 database: fingerprint and folded features');
is($node->safe_psql('db_LATIN1', $query), $utf8, 'LATIN1 database gives the same fingerprint and features');
is($node->safe_psql('db_SQL_ASCII', $query), $utf8, 'SQL_ASCII database reads the bytes as UTF-8');

# Chinese in a GB2312 (EUC_CN) database: converted to UTF-8, the published
# test vector, single ideographs and ASCII words alike.
my $zh = "SET client_encoding = 'UTF8'; SELECT simhash('我爱北京天安门'::text), simhash_features('PostgreSQL 数据库，很快')";
is($node->safe_psql('db_EUC_CN', $zh), $node->safe_psql('db_UTF8', $zh),
    'EUC_CN database gives the same Chinese fingerprint and features');
like($node->safe_psql('db_EUC_CN', $zh), qr/^6b2111ba53d5c024\|\{postgresql,数,据,库,很,快\}$/,
    'EUC_CN: the published test vector');

# tsvector lexemes and array features are converted the same way.
my $lexemes = "SET client_encoding = 'UTF8'; SELECT simhash('grün:1 äpfel:2'::tsvector), simhash(ARRAY['grün', 'äpfel'])";
is($node->safe_psql('db_LATIN1', $lexemes), $node->safe_psql('db_UTF8', $lexemes),
    'tsvector and array features agree across encodings');

# The trigger takes the same path.
my $trigger = "SET client_encoding = 'UTF8';
  CREATE TABLE t (body text, fp simhash);
  CREATE TRIGGER t_fp BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION simhash_fingerprint_trigger('fp', 'body');
  INSERT INTO t VALUES ('$text');
  SELECT fp FROM t";
my ($fp) = split /\|/, $utf8;
is($node->safe_psql('db_LATIN1', $trigger), $fp, 'trigger in a LATIN1 database matches simhash() in UTF8');

# A message quoting a feature stays valid UTF-8 in a SQL_ASCII database,
# whose text is read as UTF-8: a cut inside a character, or a byte that is
# not UTF-8, made a UTF8 client refuse the message (ERROR 22021 instead).
my ($ret, $out, $err) = $node->psql('db_SQL_ASCII',
    "SET client_encoding = 'UTF8'; \\set VERBOSITY verbose\n SELECT simhash(ARRAY[repeat('x', 63) || 'é'], '{NaN}')");
like($err, qr/22023: weight NaN of feature "x{63}\.\.\." is not finite/,
    'SQL_ASCII: a long feature is cut between characters');
($ret, $out, $err) = $node->psql('db_SQL_ASCII',
    "SET client_encoding = 'UTF8'; \\set VERBOSITY verbose\n SELECT simhash(ARRAY[convert_from('\\x61ff62', 'SQL_ASCII')], '{Infinity}')");
like($err, qr/22023: weight Infinity of feature "a\\xffb" is not finite/,
    'SQL_ASCII: a byte that is not UTF-8 is shown as \\xNN');

$node->stop;
done_testing();
