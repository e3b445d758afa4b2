-- Fingerprint functions: published test vectors, tokenizers, weights, NULLs, errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

-- Published test vectors (README "Test vectors"; test/unit/test_fingerprint.cpp),
-- which are those of this algorithm version.
SELECT simhash_algorithm_version();
SELECT simhash('The quick brown fox jumps over the lazy dog'::text) AS fox,
       simhash('我爱北京天安门'::text) AS beijing,
       simhash('PostgreSQL 数据库 is fast 😀'::text) AS mixed,
       simhash('Hello'::text) AS hello;
-- Algorithm version 1's default (mixed 2 with every word, one vote each) is
-- still reachable (README, "Choosing a threshold"): version 1's published
-- vectors.  Since version 5 the mixed 2 features hold the function words,
-- so it is their plain array; on kana and Han text without English it
-- equals 'mixed', 2 up to 50 features (from 51, version 6 weighs repeated
-- features up: rule 5).
SELECT body, simhash(simhash_features(body, 'mixed', 2)) AS version_1
  FROM (VALUES ('The quick brown fox jumps over the lazy dog'), ('我爱北京天安门'), ('PostgreSQL 数据库 is fast 😀'),
               ('東京へ行きました')) v(body);
SELECT simhash(simhash_features(body, 'mixed', 2)) = simhash(body, 'mixed', 2) AS kana_as_version_1
  FROM (VALUES ('東京へ行きました')) v(body);
SELECT simhash('The quick brown fox jumps over the lazy dog', 'words', 2) AS words2,
       simhash('The quick brown fox jumps over the lazy dog', 'chars', 3) AS chars3;
-- Version 6's vector: 300 features, 13 distinct, weighed tf * min(tf, 8)^0.35
-- (rule 5); their plain array (one vote each) is version 5's fingerprint.
SELECT simhash(string_agg('w' || (i % 10) * (i % 4), ' ' ORDER BY i)) AS ramp,
       simhash(simhash_features(string_agg('w' || (i % 10) * (i % 4), ' ' ORDER BY i))) AS ramp_version_5
  FROM generate_series(1, 300) i;
-- varchar and char columns get their own overloads (a one-argument call named
-- like the type would otherwise be read as a cast).
SELECT simhash('Hello world'::varchar) = simhash('Hello world'::text) AS varchar_overload,
       simhash('Hello world'::char(20)) = simhash('Hello world'::text) AS char_overload;
-- simhash(text) is the mixed tokenizer with single CJK characters; an
-- English function word ("and", "the") votes once with weight count^0.75
-- (algorithm version 5), which is one vote when it occurs once, as in the
-- words tokenizer.  Four "the" against three "x" lose where they differ (2.83
-- against 3), where at full weight they win.
SELECT simhash('我爱北京天安门 and English'::text) = simhash('我爱北京天安门 and English', 'mixed', 1) AS mixed_1,
       simhash('我爱北京天安门 and English'::text) = simhash('我爱北京天安门 English', 'words', 1) AS words_without_and,
       simhash('我爱北京天安门 and English'::text) = simhash('我爱北京天安门 and English', 'words', 1) AS words_with_and,
       simhash('the the the the x x x'::text) = simhash('x'::text) AS x_outvotes_the,
       simhash('the the the the x x x', 'words', 1) = simhash('the'::text) AS the_outvotes_x_in_words;

-- What the tokenizers see.
SELECT simhash_features('The quick, BROWN fox -- jumps!');
SELECT simhash_features('The quick, BROWN fox -- jumps!', 'words', 1);
SELECT simhash_features('我爱北京天安门，你好。好');
SELECT simhash_features('我爱北京天安门，你好。好', 'mixed', 2);
-- Single ideographs, but kana (sounds) in bigrams.
SELECT simhash_features('東京へ行きました');
SELECT simhash_features('PostgreSQL数据库很快abc中def 😀👍🏽 Straße ĞÜŞ ＡＢＣ');
-- Fullwidth digits and letters are ASCII's (version 3 as first written
-- dropped the digits as separators): 'price ２０２６年' is 'price 2026年'.
SELECT simhash_features('ＡＢＣ ｘｙｚ ２０２６年，Ｖ２！'),
       simhash('price ２０２６年'::text) = simhash('price 2026年'::text) AS fullwidth_digits_are_ascii;
-- Which symbols are tokens (README rule 2: by block, not by Unicode's Emoji
-- property), which count as letters, and which separate.
-- (Unaligned: column widths of emoji depend on psql's width tables.)
\pset format unaligned
SELECT c, simhash_features(c, 'words', 1)
  FROM unnest('{©,®,⌚,▶,‼,™,★,✓,℃,Ⅻ,1️⃣,👨‍👩‍👧,🇨🇳}'::text[]) c;
-- Version 4: classes by General_Category in every script.  Punctuation
-- separates (Armenian comma, Ethiopic full stop, Ogham space mark, Tibetan
-- tsheg, Khmer khan, Thai angkhankhu), the Armenian question mark over a
-- vowel stays in its word (UAX #29), numbers and combining marks for
-- symbols belong to words, kana supplements are CJK.
SELECT c, simhash_features(c, 'words', 1)
  FROM unnest(ARRAY[U&'x\055Dy', U&'\1230\120B\121D\1362', U&'x\1680y', U&'\0F56\0F40\0F72\0F0B\0F64\0F72\0F66',
                    U&'\1780\1781\17D4', U&'\0E44\0E17\0E22\0E5A', U&'\056B\0576\0579\057A\0565\055E\057D',
                    U&'m\00B2 \00BD \2460 H\2082O v\20D7', U&'\+01B001\+01B002']) c;
SELECT simhash(U&'\1230\120B\121D\1362'::text) = simhash(U&'\1230\120B\121D'::text) AS ethiopic_full_stop_separates;
\pset format aligned
-- No Unicode normalization (as in full-text search): a decomposed accent
-- is another feature, and normalize() is the documented way to merge them.
SELECT simhash(U&'cafe\0301 cr\00E8me'::text) = simhash(U&'caf\00E9 cr\00E8me'::text) AS nfd_equals_nfc,
       simhash(normalize(U&'cafe\0301 cr\00E8me', NFC)) = simhash(U&'caf\00E9 cr\00E8me'::text) AS after_nfc,
       simhash(normalize(U&'\FB01le \2116 5 \FF76\FF80\FF76\FF85', NFKC)) = simhash('file No 5 カタカナ'::text) AS after_nfkc;
SELECT simhash_features('Hello, world! 你好', 'words', 2);
SELECT simhash_features('Hello, world! 你好', 'chars', 3);
SELECT simhash_features('one two', 'words', 3);
SELECT simhash_features('...!!!');

-- Case and punctuation do not matter; words do.
SELECT simhash('Hello, World!'::text) = simhash('hello world'::text) AS case_and_punctuation,
       simhash('hello world'::text) = simhash('hello there'::text) AS different_words;

-- A text with no features has no fingerprint.
SELECT simhash(''::text) IS NULL AS empty, simhash('  ,.!? ——'::text) IS NULL AS punctuation,
       simhash('', 'words', 2) IS NULL AS empty_words, simhash('!', 'chars', 3) IS NULL AS empty_chars,
       simhash(NULL::text) IS NULL AS null_text;
-- One made only of English function words has one (it had none before
-- algorithm version 5), as with the words tokenizer; and messages that
-- differ only in one differ (versions 2 to 4 gave each pair one fingerprint).
SELECT simhash('Your payment was accepted'::text) <-> simhash('Your payment was not accepted'::text) AS negated,
       simhash('Server is up'::text) <-> simhash('Server is down'::text) AS up_down;
SELECT simhash('To be, or not to be!'::text) IS NOT NULL AS only_function_words,
       simhash('To be, or not to be!', 'words', 1) IS NOT NULL AS words_keeps_them;

-- Tokenizer arguments.
SELECT simhash('text', 'sentences', 2);
SELECT simhash('text', 'WORDS', 2);
SELECT simhash('text', 'words', 0);
SELECT simhash('text', 'words', 33);
SELECT simhash('text', 'words', 32) IS NOT NULL;
SELECT simhash_features('text', 'chars', -1);

-- min_features: short texts get no fingerprint rather than one that matches other short texts.
SELECT simhash('one two three', 'mixed', 1, 3) = simhash('one two three'::text) AS enough,
       simhash('one two three', 'mixed', 1, 4) IS NULL AS too_few,
       simhash('one one one', 'mixed', 1, 3) IS NOT NULL AS repeats_count,
       simhash('...', 'mixed', 1, 1) IS NULL AS none,
       simhash('the one and the two', 'mixed', 1, 5) IS NOT NULL AS function_words_count,
       simhash('the one and the two', 'mixed', 1, 6) IS NULL AS five_features;
SELECT simhash('text', 'mixed', 1, 0);
-- n and min_features default to 1, and min_features may be named alone.
-- Two arguments resolved to simhash(text, simhash_idf) when only
-- simhash(text, text, integer) existed, and 'words' was read as an IDF table.
SELECT simhash('The quick brown fox jumps over the lazy dog', 'words')
         = simhash('The quick brown fox jumps over the lazy dog', 'words', 1) AS two_arguments,
       simhash('我爱北京天安门'::text, 'chars') = simhash('我爱北京天安门', 'chars', 1) AS two_arguments_chars,
       simhash('one two three', 'mixed', min_features => 4) IS NULL AS named_min_features,
       simhash('one two three', 'mixed', min_features => 3) = simhash('one two three'::text) AS named_enough,
       simhash('the quick fox', tokenizer => 'words', n => 2) = simhash('the quick fox', 'words', 2) AS named_n;

-- tsvector: lexemes weighted by occurrences and by A/B/C/D labels.
SELECT simhash(to_tsvector('english', 'The quick brown foxes jumped over the lazy dogs'));
SELECT simhash(to_tsvector('english', 'fox')) = simhash(ARRAY['fox']) AS single_lexeme;
SELECT simhash('a:1 b:2'::tsvector) = simhash(ARRAY['a', 'b']) AS plain_positions,
       simhash('a b'::tsvector) = simhash(ARRAY['a', 'b']) AS stripped;
SELECT simhash('a:1A b:2'::tsvector) = simhash(ARRAY['a'], ARRAY[1.0]) AS label_a_outweighs_d,
       simhash('a:1,2,3 b:4,5'::tsvector) = simhash(ARRAY['a']) AS occurrences_count;
SELECT simhash(''::tsvector) IS NULL AS empty_tsvector;

-- Arrays of features: weight 1 each, or explicit weights.
SELECT simhash(ARRAY['hello', 'world']) = simhash('Hello, world'::text) AS same_features;
SELECT simhash(ARRAY['x', 'y', 'x']) = simhash(ARRAY['x', 'y'], ARRAY[2.0, 1.0]) AS tf_equals_weight;
-- simhash(text[]) counts its features 256 at a time; on either side of that
-- it equals the weighted form with every weight 1.
SELECT n, simhash(f) = simhash(f, array_fill(1.0::float8, ARRAY[n])) AS same_as_weights_of_1
  FROM (SELECT n, (SELECT array_agg('word' || (i * 37 % 1009)) FROM generate_series(1, n) i) AS f
          FROM unnest(ARRAY[1, 255, 256, 257, 300, 512, 1000]) n) s;
SELECT simhash(ARRAY['a', 'b'], ARRAY[1.0, 0.0]) = simhash(ARRAY['a']) AS zero_weight_is_no_feature;
-- A negative weight votes for the complement: here a's -1 outweighs b's 0.5 on every bit.
SELECT simhash(ARRAY['a', 'b'], ARRAY[-1.0, 0.5])::bigint = ~simhash(ARRAY['a'])::bigint AS negative_weight_votes_against;
SELECT simhash('{}'::text[]) IS NULL, simhash('{}'::text[], '{}'::float8[]) IS NULL,
       simhash(ARRAY['a'], ARRAY[0.0]) IS NULL;
SELECT simhash(ARRAY['a', 'b'], ARRAY[1.0]);
SELECT simhash(ARRAY['a', 'b'], ARRAY[1.0, 'NaN']);
SELECT simhash(ARRAY['a', 'b'], ARRAY[1.0, 'Infinity']);
SELECT simhash(ARRAY['a', NULL]);
SELECT simhash(ARRAY['a', 'b'], ARRAY[1.0, NULL]);
SELECT simhash(ARRAY['a', 'b'], ARRAY[1e308, 1e308]);

-- The aggregate: one row per feature; NULL rows are skipped.
SELECT simhash_agg(f, w) = simhash(ARRAY['x', 'y', 'z'], ARRAY[3.0, 1.0, 1.0]) AS weighted
  FROM (VALUES ('x', 3.0::float8), ('y', 1.0), ('z', 1.0), (NULL, 5.0), ('q', NULL)) v(f, w);
SELECT simhash_agg(f) = simhash('alpha beta gamma'::text) AS unweighted
  FROM unnest(ARRAY['alpha', 'beta', 'gamma', NULL]) f;
SELECT simhash_agg(f) IS NULL AS no_rows FROM unnest('{}'::text[]) f;
SELECT simhash_agg(f, w) FROM (VALUES ('x', 'NaN'::float8)) v(f, w);
SELECT id % 3 AS grp, simhash_agg('w' || id) FROM generate_series(1, 30) id GROUP BY 1 ORDER BY 1;
-- The planner sizes a hash aggregation by the declared state size (SSPACE,
-- the 1 kB of 64 sums and their compensations); an internal state declared
-- without one counts as 8 kB (ALLOCSET_DEFAULT_INITSIZE).
SELECT aggfnoid::regprocedure, aggtransspace FROM pg_aggregate
 WHERE aggfnoid IN ('simhash_agg(text)'::regprocedure, 'simhash_agg(text, float8)'::regprocedure) ORDER BY 1;
-- Parallel aggregation combines partial states to the same answer.
CREATE TABLE agg_terms AS SELECT 'term' || (i % 5000) AS term, (i % 7)::float8 AS weight FROM generate_series(1, 200000) i;
ANALYZE agg_terms;
SELECT simhash_agg(term, weight) AS serial FROM agg_terms \gset
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT simhash_agg(term, weight) FROM agg_terms;
SELECT simhash_agg(term, weight) = :'serial'::simhash AS parallel_matches FROM agg_terms;
-- Combining workers' states by hash in little memory: the deserialized
-- states live per input row.  They were made in the aggregate's context, and
-- this query's hash aggregation grew to 125 MB at a work_mem of 1 MB, its
-- own states taking 2 MB.
CREATE TABLE agg_groups AS SELECT i % 20000 AS g, 'f' || (i % 97) AS f, (i % 5 + 1)::float8 AS w
  FROM generate_series(1, 300000) i;
ANALYZE agg_groups;
SET work_mem = '1MB'; SET enable_sort = off;
\set peak_memory :abs_srcdir '/sql/include/peak_memory.psql'
\i :peak_memory
EXPLAIN (COSTS OFF) SELECT g, simhash_agg(f, w) FROM agg_groups GROUP BY g;
SELECT pg_temp.peak_memory_kb('SELECT g, simhash_agg(f, w) FROM agg_groups GROUP BY g') < 8192 AS within_a_few_mb;
CREATE TEMP TABLE agg_by_hash AS SELECT g, simhash_agg(f, w) AS fp FROM agg_groups GROUP BY g;
RESET enable_sort; SET enable_hashagg = off;
SELECT count(*) AS groups, count(*) FILTER (WHERE h.fp IS DISTINCT FROM s.fp) AS differ_from_sorted
  FROM agg_by_hash h JOIN (SELECT g, simhash_agg(f, w) AS fp FROM agg_groups GROUP BY g) s USING (g);
RESET work_mem; RESET enable_hashagg;
DROP TABLE agg_groups, agg_by_hash;
-- Workers' shares of the weights can each stay below the largest double
-- that their total passes (1.5e303 x 200,000 = 3e308): combining them is
-- checked too.  It was not, and the parallel plan returned a fingerprint
-- of infinite sums where the serial one fails.  (Which process reports it
-- depends on the split, hence the bare SQLSTATE.)
CREATE TABLE agg_huge AS SELECT 'f' || i AS f, 1.5e303::float8 AS w FROM generate_series(1, 200000) i;
ANALYZE agg_huge;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT simhash_agg(f, w) FROM agg_huge;
\set VERBOSITY sqlstate
SELECT simhash_agg(f, w) FROM agg_huge;
\set VERBOSITY default
RESET parallel_leader_participation;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size; RESET max_parallel_workers_per_gather;
SELECT simhash_agg(f, w) FROM agg_huge;
DROP TABLE agg_terms, agg_huge;

-- Bit balance over many unrelated texts (fresh random words each): every bit near 1/2.
WITH docs AS (
  SELECT d, string_agg(md5(d::text || ':' || w::text), ' ') AS body
    FROM generate_series(1, 3000) d, generate_series(1, 1 + d % 40) w GROUP BY d
), fps AS (SELECT simhash(body)::bigint AS b FROM docs)
SELECT min(share) > 0.44 AS min_ok, max(share) < 0.56 AS max_ok
  FROM (SELECT i, avg((b >> i) & 1) AS share FROM fps, generate_series(0, 63) i GROUP BY i) s;
SELECT count(DISTINCT simhash(md5(i::text))) = 1000 AS no_collisions FROM generate_series(1, 1000) i;

-- Near-duplicates of a page-length document (GPL-3, shipped by every Debian
-- system) stay within the classic threshold; other licenses do not.
WITH words AS (SELECT w, ord FROM regexp_split_to_table(pg_read_file('/usr/share/common-licenses/GPL-3'), '\s+') WITH ORDINALITY AS t(w, ord)),
doc AS (SELECT string_agg(w, ' ' ORDER BY ord) AS original,
               string_agg(CASE WHEN ord % 100 = 0 THEN 'edited' || ord ELSE w END, ' ' ORDER BY ord) AS substituted_1pct,
               string_agg(CASE WHEN ord % 20 = 0 THEN 'edited' || ord ELSE w END, ' ' ORDER BY ord) AS substituted_5pct,
               string_agg(w, ' ' ORDER BY ord) FILTER (WHERE ord % 50 <> 0) AS deleted_2pct
          FROM words)
SELECT simhash(original) <-> simhash(substituted_1pct) <= 3 AS edits_1pct,
       simhash(original) <-> simhash(substituted_5pct) <= 3 AS edits_5pct,
       simhash(original) <-> simhash(deleted_2pct) <= 3 AS deletions_2pct,
       simhash(original) <-> simhash(pg_read_file('/usr/share/common-licenses/Apache-2.0')) > 3 AS apache_is_not,
       simhash(original) <-> simhash(pg_read_file('/usr/share/common-licenses/GPL-2')) > 3 AS gpl2_is_not
  FROM doc;
-- Short texts have few features, so one edited word moves many bits: a
-- 50-word paragraph (50 features, 22 of them function words, which weigh
-- less) with one word substituted is 4 bits away (see README, "Choosing a
-- threshold").
WITH t(a, b) AS (VALUES (
  'PostgreSQL is a powerful, open source object-relational database system with over 35 years of active development that has earned it a strong reputation for reliability, feature robustness, and performance. There is a wealth of information to be found describing how to install and use PostgreSQL through the official documentation.',
  'PostgreSQL is a powerful, open source object-relational database system with over 35 years of active development that has earned it a strong reputation for reliability, feature robustness, and performance. There is a wealth of information to be found describing how to install and use PostgreSQL through the official manual.'))
SELECT array_length(simhash_features(a), 1) AS features, simhash(a) <-> simhash(b) AS one_word_substituted FROM t;
-- Rule 5 as a sum of weighted votes: every occurrence of a feature votes 1,
-- but an English function word occurring c times votes c^0.75 / c each time
-- (sqrt(c) * sqrt(sqrt(c)) in all), over 1,000 texts drawn from a vocabulary
-- that mixes function words (in any case) with other words.  Texts in which
-- two function words occur equally often (twice or more) are left out: their
-- weights cancel exactly in rule 5's sum, a tie, where the votes split into
-- c parts leave a rounding error instead.
CREATE TEMP TABLE function_words AS
  SELECT unnest('{a,about,above,after,again,against,all,am,an,and,any,are,as,at,be,because,been,before,being,below,between,both,but,by,can,could,did,do,does,doing,down,during,each,few,for,from,further,had,has,have,having,he,her,here,hers,herself,him,himself,his,how,i,if,in,into,is,it,its,itself,just,me,more,most,my,myself,no,nor,not,now,of,off,on,once,only,or,other,our,ours,ourselves,out,over,own,same,she,should,so,some,such,than,that,the,their,theirs,them,themselves,then,there,these,they,this,those,through,to,too,under,until,up,very,was,we,were,what,when,where,which,while,who,whom,why,will,with,would,you,your,yours,yourself,yourselves}'::text[]) AS w;
SELECT count(*) AS listed FROM function_words;
CREATE TEMP TABLE drawn AS
  SELECT t, string_agg((ARRAY['the', 'Of', 'and', 'TO', 'in', 'is', 'yourselves', 'not', 'apple', 'river', 'stone',
                              'cloud', 'paper', 'light', '北', '京', 'quiet', 'number'])[1 + (hashint4(t * 1000 + i) & 2147483647) % 18],
                    ' ' ORDER BY i) AS body
    FROM generate_series(1, 1000) t, generate_series(1, 1 + t % 61) i GROUP BY t;
SELECT count(*) AS texts,
       count(*) FILTER (WHERE simhash(body) IS DISTINCT FROM
         (SELECT simhash(array_agg(f ORDER BY o),
                         array_agg(CASE WHEN f IN (SELECT w FROM function_words) THEN sqrt(c) * sqrt(sqrt(c)) / c ELSE 1 END ORDER BY o))
            FROM (SELECT f, o, count(*) OVER (PARTITION BY f)::float8 AS c
                    FROM unnest(simhash_features(body)) WITH ORDINALITY x(f, o)) u)) AS differ
  FROM drawn
 WHERE NOT EXISTS (SELECT FROM (SELECT f, count(*) AS c FROM unnest(simhash_features(body)) f
                                 WHERE f IN (SELECT w FROM function_words) GROUP BY f) k
                   GROUP BY c HAVING c >= 2 AND count(*) >= 2);
DROP TABLE drawn;
-- Version 6: in a text of 51 to 2,499 features other than function words
-- (n), each of those features votes once with weight tf * min(tf, 8)^x,
-- where x rises linearly from 0 at n = 50 to 0.35 at n = 300 and falls back
-- to 0 at n = 2,500 (README, "The algorithm", rule 5).  Checked as above,
-- each occurrence voting that weight / tf, over 400 drawn texts of 1 to
-- 3,000 words,
-- most of them in the ramp.  No text is left out here: in these
-- texts no bit's votes cancel exactly, which would take every count's
-- votes to cancel on their own (the weights of different counts are
-- incommensurable).
CREATE TEMP TABLE drawn AS
  SELECT t, string_agg((ARRAY['the', 'Of', 'and', 'TO', 'in', 'is', 'yourselves', 'not', 'apple', 'river', 'stone',
                              'cloud', 'paper', 'light', '北', '京', 'quiet', 'number'])[1 + (hashint4(t * 5000 + i) & 2147483647) % 18],
                    ' ' ORDER BY i) AS body
    FROM generate_series(1, 400) t, generate_series(1, 1 + (t * 7919) % 3000) i GROUP BY t;
CREATE TEMP TABLE drawn_features AS
  SELECT t, f, o, f IN (SELECT w FROM function_words) AS function_word,
         count(*) OVER (PARTITION BY t, f)::float8 AS c,
         count(*) FILTER (WHERE f NOT IN (SELECT w FROM function_words)) OVER (PARTITION BY t) AS n
    FROM drawn, unnest(simhash_features(body)) WITH ORDINALITY x(f, o);
SELECT count(DISTINCT t) FILTER (WHERE n > 50 AND n < 2500) AS in_ramp,
       count(DISTINCT t) FILTER (WHERE n > 50 AND n < 2500 AND simhash(body) IS DISTINCT FROM
         (SELECT simhash(array_agg(f ORDER BY o),
                         array_agg(CASE WHEN function_word THEN sqrt(c) * sqrt(sqrt(c)) / c
                                        ELSE c * power(least(c, 8), '0.35'::float8 * CASE WHEN n < 300 THEN (n - 50)::float8 / 250
                                                                                     ELSE (2500 - n)::float8 / 2200 END) / c END
                                   ORDER BY o))
            FROM drawn_features x WHERE x.t = drawn.t)) AS differ,
       count(DISTINCT t) FILTER (WHERE (n <= 50 OR n >= 2500) AND simhash(body) IS DISTINCT FROM
         (SELECT simhash(array_agg(f ORDER BY o),
                         array_agg(CASE WHEN function_word THEN sqrt(c) * sqrt(sqrt(c)) / c ELSE 1 END ORDER BY o))
            FROM drawn_features x WHERE x.t = drawn.t)) AS differ_outside_ramp,
       count(DISTINCT t) FILTER (WHERE n <= 50 OR n >= 2500) AS outside_ramp
  FROM drawn JOIN (SELECT DISTINCT t, n FROM drawn_features) k USING (t);
DROP TABLE function_words, drawn, drawn_features;

-- Markup is text too: a tag on every line is a feature voting 300 times
-- (rule 5), outvoting 300 words that vote once, so two unrelated pages
-- agree on every bit and one page with and without the tags does not.
-- The README's strip_markup (see "Choosing a threshold") undoes both.
CREATE FUNCTION pg_temp.strip_markup(html text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
         regexp_replace(html,
         '<!--.*?-->', ' ', 'g'),
         '<script.*?</script\s*>', ' ', 'gi'),
         '<style.*?</style\s*>', ' ', 'gi'),
         '&(lt|#0*60|#x0*3c);', '<', 'gi'), '&(gt|#0*62|#x0*3e);', '>', 'gi'), '&(amp|#0*38|#x0*26);', '&', 'gi'),
         '</?[a-z][a-z0-9-]*(\s[^>]*)?/?>|<![a-z][^>]*>|<\?[^>]*\?>', ' ', 'gi'),
         '&(#[0-9]+|#x[0-9a-f]+|[a-z][a-z0-9]*);', ' ', 'gi');
SELECT pg_temp.strip_markup('<p class="x">a &lt; b</p><!-- <p> --><script>f("<b>")</script>c < d > e&amp;f<BR/>') AS stripped;
-- A plain text and its HTML rendering (escaped, in tags) strip to the same
-- features: escapes are undone before tags go, so a plain text's own <...>
-- spans fare as its rendering's do; an address or a header name, which no
-- tag looks like, stays (the previous version dropped them from
-- the plain text only, and most copyright files have them).
WITH plain(body) AS (VALUES ('Maintainer: Jane Roe <jane@example.org>, 2019 & 2020. Usage: cat <file> | grep "a<b"
#include <stdio.h>  -- see <https://example.org/x?a=1&b=2>')),
html(body) AS (SELECT '<html><body><p>' || replace(replace(replace(replace(body, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'),
                                                    E'\n', '<br>' || E'\n') || '</p></body></html>' FROM plain),
-- escaped by number, or in capitals, as some generators do
numeric(body) AS (SELECT '<P>' || replace(replace(replace(body, '&', '&#38;'), '<', '&#x3C;'), '>', '&GT;') || '</P>' FROM plain)
SELECT simhash_features(pg_temp.strip_markup(p.body)) AS plain_features,
       simhash_features(pg_temp.strip_markup(p.body)) = simhash_features(pg_temp.strip_markup(h.body)) AS html_same,
       simhash_features(pg_temp.strip_markup(p.body)) = simhash_features(pg_temp.strip_markup(x.body)) AS numeric_same
  FROM plain p, html h, numeric x;
-- A page that mentions a script or a comment keeps the text after the
-- mention: scripts, styles and comments go before escapes are undone, so a
-- mentioned "<script>" cannot swallow the page up to its real </script>,
-- nor a mentioned "<!--" the text up to the next tag.
SELECT pg_temp.strip_markup('<!DOCTYPE html><?xml version="1.0"?><p>Put code in a &lt;script&gt; element.</p><p>Second paragraph.</p>'
                            || '<script src="a.js"></script><p>Comments start with &lt;!-- and end later.</p><p>Last.</p><!-- footer -->')
       AS mentions_kept;
WITH pages AS (
  SELECT p, string_agg(md5(p || ':' || i), E'<br>\n' ORDER BY i) AS html
    FROM generate_series(1, 2) p, generate_series(1, 300) i GROUP BY p),
other_template AS (
  SELECT '<div class="post"><p>' || replace(html, '<br>', '</p><p>') || '</p></div>' AS html FROM pages WHERE p = 1)
SELECT simhash(a.html) <-> simhash(b.html) AS unrelated_with_br,
       simhash(pg_temp.strip_markup(a.html)) <-> simhash(pg_temp.strip_markup(b.html)) > 20 AS unrelated_stripped_far,
       simhash(a.html) <-> simhash(replace(a.html, '<br>', '')) > 20 AS same_text_without_br_far,
       simhash(pg_temp.strip_markup(a.html)) <-> simhash(pg_temp.strip_markup(o.html)) AS other_template_stripped
  FROM pages a, pages b, other_template o WHERE a.p = 1 AND b.p = 2;

-- Log lines (README "Choosing a threshold"): lines of one template are far
-- apart raw (every number, timestamp piece, address and UUID group is a
-- feature) and one fingerprint once the README's log_template masks the
-- tokens that hold digits; other templates stay far.
CREATE FUNCTION pg_temp.log_template(line text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN regexp_replace(line, '\S*[0-9]\S*', ' ', 'g');
WITH l(id, line) AS (VALUES
 (1, '2024-06-04T13:26:02.456Z INFO [http-nio-8080-exec-7] c.e.api.OrderController - GET /api/orders/98231 completed in 35 ms status=200'),
 (2, '2024-06-04T13:27:45.011Z INFO [http-nio-8080-exec-2] c.e.api.OrderController - GET /api/orders/11873 completed in 412 ms status=200'),
 (3, 'Jun  4 13:26:02 web01 sshd[23144]: Failed password for invalid user admin from 203.0.113.77 port 52144 ssh2'),
 (4, 'Jun  4 14:02:19 web02 sshd[9921]: Failed password for invalid user admin from 198.51.100.4 port 40022 ssh2'),
 (5, '2024-06-04 13:26:02 UTC ERROR: duplicate key value violates unique constraint "orders_pkey" request_id=3f2b9c1e-8d4a-4b7e-9c2f-1a2b3c4d5e6f'),
 (6, '2024-06-04 15:01:44 UTC ERROR: duplicate key value violates unique constraint "orders_pkey" request_id=77aa0c11-2e3f-4a5b-8c9d-0e1f2a3b4c5d'))
SELECT a.id, b.id, (a.id + 1) / 2 = (b.id + 1) / 2 AS same_template,
       simhash(a.line) <-> simhash(b.line) > 3 AS raw_far,
       simhash(pg_temp.log_template(a.line)) <-> simhash(pg_temp.log_template(b.line)) AS masked
  FROM l a JOIN l b ON a.id < b.id ORDER BY 1, 2;

-- Format markers (%s, %1$s, %lu) are features that short messages repeat:
-- two unrelated messages sharing only markers come within 3, and the
-- README's message_template masks them (not the % of "100% done", which
-- a printf flag would take only with a space).
CREATE FUNCTION pg_temp.message_template(msg text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN regexp_replace(regexp_replace(msg,
         '%(\([A-Za-z_][A-Za-z0-9_]*\)|[0-9]+\$)?[-+#0'']*([0-9]+|\*([0-9]+\$)?)?(\.([0-9]+|\*([0-9]+\$)?)?)?(hh|h|ll|l|L|q|j|z|t)?[diouxXeEfFgGaAcspnm%]', ' ', 'g'),
         '\{[0-9A-Za-z_]*\}', ' ', 'g');
SELECT simhash_features('%1$s: %2$lu bytes (%.*s) %% %-10.3f %#x {0} {name}') AS raw,
       simhash_features(pg_temp.message_template('%1$s: %2$lu bytes (%.*s) %% %-10.3f %#x {0} {name} 100% done')) AS masked,
       pg_temp.message_template($$pipe: %m, %'d rows, %1$*2$d, %(name)s, 100%free$$) AS glibc_python;
SELECT simhash('Cannot open file %s: %s'::text) <-> simhash('Written by %s, %s, %s, %s, and %s.'::text) AS unrelated_raw,
       simhash(pg_temp.message_template('Cannot open file %s: %s')) <->
       simhash(pg_temp.message_template('Written by %s, %s, %s, %s, and %s.')) AS unrelated_masked,
       simhash(pg_temp.message_template('Cannot open file %s')) <-> simhash('cannot open file'::text) AS same_masked;

-- Features are single words and ideographs, so order does not count;
-- 'words', 2 votes with neighbouring pairs, where order is the meaning.
SELECT simhash('Convert LF to CRLF'::text) = simhash('Convert CRLF to LF'::text) AS en_order_blind,
       simhash('从左至右'::text) = simhash('从右至左'::text) AS zh_order_blind,
       simhash('Convert LF to CRLF', 'words', 2) <-> simhash('Convert CRLF to LF', 'words', 2) AS en_pairs,
       simhash('从左至右', 'words', 2) <-> simhash('从右至左', 'words', 2) AS zh_pairs;

-- Unicode simple case folding covers every cased script: Romanian,
-- Vietnamese, Azerbaijani, polytonic Greek capitals fold like English ones
-- (they used to stay upper case), and a soft hyphen inside a word does not
-- split it.
SELECT simhash_features('ȘTIRI ROMÂNIA') AS romanian, simhash_features('ƯỚC ĐƠN') AS vietnamese,
       simhash_features('ƏLİ ἈΘΗΝΑ') AS azerbaijani_greek, simhash_features('in' || chr(173) || 'credible') AS soft_hyphen;
SELECT simhash('ȘTIRI ROMÂNIA ƯỚC ĐƠN'::text) = simhash('știri românia ước đơn'::text) AS case_blind;

-- The empty string is no feature: a split empty document has no
-- fingerprint, rather than the same one as every other empty document.
SELECT simhash(regexp_split_to_array('', '\s+')) IS NULL AS empty_split,
       simhash(ARRAY['', 'a', '']) = simhash(ARRAY['a']) AS empty_elements_skipped,
       simhash(ARRAY['', 'a'], ARRAY[5, 1]::float8[]) = simhash(ARRAY['a'], ARRAY[1]::float8[]) AS weighted_skipped,
       (SELECT simhash_agg(f) FROM unnest(ARRAY['', '']) f) IS NULL AS agg_empty,
       (SELECT simhash_agg(f, 2) FROM unnest(ARRAY['', 'a']) f) = simhash(ARRAY['a']) AS agg_skipped;

-- Weighted sums keep their rounding error apart: a weight of 1 next to two
-- of 1e16 that cancel decides the bits in every order (it was lost in one).
SELECT simhash(ARRAY['a', 'b', 'a'], ARRAY[1e16, 1, -1e16]::float8[]) AS small_in_the_middle,
       simhash(ARRAY['a', 'a', 'b'], ARRAY[1e16, -1e16, 1]::float8[]) AS small_last,
       simhash(ARRAY['b']) AS b_alone;
SELECT simhash_agg(f, w ORDER BY o) = simhash(ARRAY['b']) AS agg_any_order
  FROM (VALUES (1, 'a', 1e16::float8), (2, 'b', 1), (3, 'a', -1e16)) v(o, f, w);
-- Overflow does not depend on the order either: weights whose absolute
-- values add up past the largest double are ERROR 22003 in every order (a
-- check of the running sums let {a,a,b} through and stopped {a,b,a}).
SELECT simhash(ARRAY['a', 'a', 'b'], ARRAY[1e308, -1e308, 1e308]::float8[]);
SELECT simhash(ARRAY['a', 'b', 'a'], ARRAY[1e308, 1e308, -1e308]::float8[]);
SELECT simhash_agg(f, w ORDER BY o)
  FROM (VALUES (1, 'a', 1e308::float8), (2, 'a', -1e308), (3, 'b', 1e308)) v(o, f, w);
SELECT simhash(ARRAY['a', 'b', 'a'], ARRAY[8e307, -8e307, 1e307]::float8[]) IS NOT NULL AS up_to_the_largest_double;
-- An empty string is no feature, but its weight is checked all the same
-- (a NULL feature or weight skips the row of simhash_agg, as sum() does).
SELECT simhash(ARRAY['a', ''], ARRAY[1, 'NaN']::float8[]);
SELECT simhash_agg(f, w) FROM (VALUES ('', 'NaN'::float8)) v(f, w);
SELECT simhash_agg(f, w) IS NULL AS null_feature_skipped FROM (VALUES (NULL::text, 'NaN'::float8)) v(f, w);

-- Messages quote a long feature or tokenizer name cut short, not whole.
SELECT simhash(ARRAY[repeat('x', 100000)], ARRAY['NaN']::float8[]);
SELECT simhash('text', repeat('t', 100000), 1);

-- simhash_features honours a cancel between features.  The 140M one-letter
-- words of this 280 MB text would fill more than the 1 GB an array may hold:
-- without the cancel the call ends in ERROR 54000 (after 6 s), with it the
-- timeout stops it at once.
SET statement_timeout = '200ms';
SELECT array_length(simhash_features(repeat('x ', 140000000), 'words', 1), 1);
RESET statement_timeout;
-- So do the vote loops of simhash(text[], float8[]), which did not look:
-- 4M weighted features whose last two weights overflow a double end in
-- ERROR 22003 after the loop (a second or more) unless the timeout stops it.
CREATE TEMP TABLE big_arrays AS
  SELECT array_agg(i::text) AS f, array_agg(CASE WHEN i > 3999998 THEN 1e308 ELSE 1 END::float8) AS w
    FROM generate_series(1, 4000000) i;
SET statement_timeout = '100ms';
SELECT simhash(f, w) IS NULL FROM big_arrays;
RESET statement_timeout;
DROP TABLE big_arrays;
-- 68M features fit in an array (8 bytes each); collecting them one by one
-- failed with "invalid memory alloc request size 1073741824" past 67M.
SELECT cardinality(simhash_features(repeat('x ', 68000000), 'words', 1)) AS many_features;

-- SQLSTATEs of the errors above.
\getenv abs_srcdir PG_ABS_SRCDIR
\set sqlstate_of :abs_srcdir '/sql/include/sqlstate_of.psql'
\i :sqlstate_of
-- Overflow at the boundary (see the order tests above), where each of two
-- small weights alone rounds away after the largest double but not the two
-- together: the sum of magnitudes is compensated (a plain one overflowed with the small weights first only).
-- Weights that do round away never overflow.
SELECT pg_temp.sqlstate_of($$SELECT simhash('{a,b,c}'::text[], '{6e291,6e291,1.7976931348623157e308}')$$) AS small_first,
       pg_temp.sqlstate_of($$SELECT simhash('{c,a,b}'::text[], '{1.7976931348623157e308,6e291,6e291}')$$) AS small_last,
       pg_temp.sqlstate_of($$SELECT simhash('{a,c,b}'::text[], '{6e291,1.7976931348623157e308,6e291}')$$) AS small_around,
       pg_temp.sqlstate_of($$SELECT simhash_agg(f, w ORDER BY o) FROM (VALUES (1, 'c', 1.7976931348623157e308::float8),
                                (2, 'a', 6e291), (3, 'b', 6e291)) v(o, f, w)$$) AS agg_small_last,
       simhash('{c,a,b}'::text[], '{1.7976931348623157e308,1,2}') IS NOT NULL AS rounded_away;
SELECT pg_temp.sqlstate_of($$SELECT simhash('text', 'sentences', 2)$$) AS unknown_tokenizer,
       pg_temp.sqlstate_of($$SELECT simhash('text', 'words', 0)$$) AS bad_n,
       pg_temp.sqlstate_of($$SELECT simhash('text', 'words', 1, 0)$$) AS bad_min_features,
       pg_temp.sqlstate_of($$SELECT simhash(ARRAY['a', 'b'], ARRAY[1.0])$$) AS length_mismatch,
       pg_temp.sqlstate_of($$SELECT simhash(ARRAY['a'], ARRAY['NaN'::float8])$$) AS non_finite,
       pg_temp.sqlstate_of($$SELECT simhash(ARRAY['a', NULL])$$) AS null_feature,
       pg_temp.sqlstate_of($$SELECT simhash(ARRAY['a', 'b'], ARRAY[1e308, 1e308])$$) AS overflow,
       pg_temp.sqlstate_of($$SELECT simhash('text', 'wordz')$$) AS unknown_tokenizer_two_arguments;
-- Arrays of features and weights are lists: a matrix is refused rather than
-- paired with weights by its order in storage, whatever the two shapes.
SELECT simhash(ARRAY[['a', 'b'], ['c', 'd']]);
SELECT simhash(ARRAY['a', 'b', 'c', 'd'], ARRAY[[1, 2], [3, 4]]::float8[]);
SELECT simhash(ARRAY[['a', 'b'], ['c', 'd']], ARRAY[1, 2, 3, 4]::float8[]);
SELECT pg_temp.sqlstate_of($$SELECT simhash(ARRAY[['a', 'b'], ['c', 'd']])$$) AS matrix_of_features,
       simhash('{}'::text[]) IS NULL AS empty_array_is_null;
