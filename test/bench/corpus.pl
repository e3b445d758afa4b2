#!/usr/bin/perl
# Prints real text that Debian packages ship as COPY-ready TSV rows:
#   language  kind  source  body
# English: man pages (sections 1-8) and /usr/share/common-licenses.
# Chinese: man pages in zh_CN and zh_TW (package manpages-zh) and the
# Chinese fortunes and poems of fortunes-zh (one row per entry).
# Japanese: man pages of manpages-ja, when installed (test/eval installs it).
# Russian and German: man pages of manpages-ru and manpages-de, when
# installed (test/bench/fingerprint_bench.sh installs them).
# Usage: corpus.pl [max documents per kind]   (0 or absent: all)
use strict;
use warnings;
use IO::Uncompress::Gunzip qw(gunzip $GunzipError);
use Encode qw(decode FB_DEFAULT);

my $limit = shift // 0;
binmode STDOUT, ':encoding(UTF-8)';

sub emit {
    my ($lang, $kind, $source, $body) = @_;
    $body =~ s/\\/\\\\/g;
    $body =~ s/\t/ /g;
    $body =~ s/\r?\n/\\n/g;
    $body =~ s/[\x00-\x08\x0B\x0C\x0E-\x1F]//g;
    return if $body !~ /\S/;
    print join("\t", $lang, $kind, $source, $body), "\n";
}

# Roughly plain text out of roff: macro names and font escapes go, the words stay.
sub strip_roff {
    my ($text) = @_;
    my @out;
    for my $line (split /\n/, $text) {
        next if $line =~ /^\.\\"/ || $line =~ /^'\\"/;    # comments
        $line =~ s/^[.'][A-Za-z]{1,3}\s*//;                 # .SH NAME -> NAME
        next if $line =~ /^[.']/;
        $line =~ s/\\f(\[[^\]]*\]|\(..|.)//g;                  # fonts
        $line =~ s/\\\*?\(..//g;                              # special characters
        $line =~ s/\\s[-+]?\d//g;
        $line =~ s/\\-/-/g;
        $line =~ s/\\&|\\e|\\c//g;
        push @out, $line;
    }
    return join("\n", @out);
}

sub read_file {
    my ($path) = @_;
    my $raw;
    if ($path =~ /\.gz$/) {
        gunzip($path => \$raw) or return undef;
    } else {
        open(my $fh, '<:raw', $path) or return undef;
        local $/;
        $raw = <$fh>;
    }
    my $text = eval { decode('UTF-8', $raw, Encode::FB_CROAK) };
    $text = decode('GB18030', $raw, FB_DEFAULT) unless defined $text;    # older zh pages
    return $text;
}

sub man_pages {
    my ($lang, $kind, @globs) = @_;
    my @files = sort map { glob } @globs;
    my $n = 0;
    for my $f (@files) {
        last if $limit && $n >= $limit;
        next if -l $f;    # .so links and symlinks repeat other pages
        my $text = read_file($f) // next;
        next if $text =~ /^\.so /m && length($text) < 200;
        emit($lang, $kind, $f, strip_roff($text));
        $n++;
    }
}

man_pages('en', 'man', map { "/usr/share/man/man$_/*.gz" } 1 .. 8);
man_pages('en', 'license', '/usr/share/common-licenses/*');
man_pages('zh', 'man', '/usr/share/man/zh_CN/man*/*.gz', '/usr/share/man/zh_TW/man*/*.gz');
man_pages('ja', 'man', '/usr/share/man/ja/man*/*.gz');
man_pages('ru', 'man', '/usr/share/man/ru/man*/*.gz');
man_pages('de', 'man', '/usr/share/man/de/man*/*.gz');

for my $file (glob('/usr/share/games/fortunes/{chinese,song100,tang300}')) {
    my $text = read_file($file) // next;
    my $n = 0;
    for my $entry (split /^%\s*$/m, $text) {
        last if $limit && $n >= $limit;
        emit('zh', 'fortune', $file . '#' . $n, $entry);
        $n++;
    }
}
