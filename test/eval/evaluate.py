#!/usr/bin/python3
"""Fingerprint quality on real English and Chinese text (a benchmark, not a test).

Reads the corpus TSV of test/bench/corpus.pl, builds documents and lightly
edited copies, fingerprints them with the extension's own SQL functions (and
with the classic algorithm of the Chinese SimHash literature, implemented
here as the baseline), and prints recall, false positives, distance
distributions, bit balance and NULL rates per method, language and length.
A second, one-genre set, every license and copyright text the machine ships,
is judged pair by pair against how much text each pair really shares.

Usage: evaluate.py CORPUS_TSV PSQL_ARGS...   (run by test/eval/evaluate.sh)
"""
import collections
import functools
import glob
import json
import os
import random
import re
import statistics
import subprocess
import sys

import jieba
import numpy

jieba.setLogLevel(60)
RNG = random.Random(20261122)
RATES = [0.01, 0.02, 0.05, 0.10, 0.20]
LONG_DOCS = 600       # per language
EDITED_DOCS = int(os.environ.get("EVAL_EDITED_DOCS", 600))  # per language, each edited at every rate
# Independent edited copies of each document per rate: more than 1 narrows the
# recall figures' sampling error (with 1, about 0.007 at a recall of 0.97).
EDIT_DRAWS = int(os.environ.get("EVAL_EDIT_DRAWS", 1))
SHORT_DOCS = 1500     # per language
THRESHOLD = 3
WIDE_THRESHOLD = 6    # the looser radius the summary and the plots show beside THRESHOLD
LANGS = {"en": "English", "zh": "Chinese", "ja": "Japanese"}
CJK_LANGS = ("zh", "ja")
UNRELATED_JACCARD = 0.1  # 3-token-shingle Jaccard below this: an unrelated pair

CJK = "'[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]'"
SUBLINEAR = "(SELECT simhash(array_agg(f), array_agg(1 + ln(tf))) FROM (SELECT f, count(*) AS tf FROM ({features}) x GROUP BY f) s)"
HYBRID = (f"SELECT f FROM unnest(simhash_features(body, 'chars', 3)) f WHERE f !~ {CJK} "
          f"UNION ALL SELECT f FROM unnest(simhash_features(body, 'mixed', 1)) f WHERE f ~ {CJK}")

IDF_TOKENIZERS = [("mixed", 1), ("mixed", 2), ("chars", 1), ("chars", 3)]

# Algorithm version 1's default, mixed 2 with every word at full weight: the mixed 2 features
# (function words among them since version 5) with one vote each.
V1_DEFAULT = "(SELECT simhash(array_agg(f)) FROM unnest(simhash_features(body, 'mixed', 2)) f)"

# The weights of simhash(text)'s features up to version 5, for the methods that re-weigh them:
# the count, and count^0.75 for the English function words (table eval_function_words, read from
# src/core/stop_words.cpp); version 6 raises the count to a power in texts of 51 to 2,499 features.
DEFAULT_WEIGHT = "CASE WHEN f IN (SELECT w FROM eval_function_words) THEN sqrt(tf) * sqrt(sqrt(tf)) ELSE tf END"
# Algorithm version 5's default: the same features, every occurrence voting 1 at any length. Up to 50
# and from 2,500 features other than function words that is simhash(text) itself (version 6 weighs
# only those in between); in between, each occurrence votes 1, or c^0.75 / c for a function word
# occurring c times, so that the tie-break word counts occurrences as version 5's did (ties are rare
# there; below 51 features the split weights would round ties away).
V5_DEFAULT = ("(SELECT CASE WHEN count(*) FILTER (WHERE NOT fw) <= 50 OR count(*) FILTER (WHERE NOT fw) >= 2500 "
              "THEN simhash(body) ELSE simhash(array_agg(f ORDER BY o), array_agg(CASE WHEN fw "
              "THEN sqrt(c) * sqrt(sqrt(c)) / c ELSE 1 END ORDER BY o)) END "
              "FROM (SELECT f, o, f IN (SELECT w FROM eval_function_words) AS fw, count(*) OVER (PARTITION BY f)::float8 AS c "
              "FROM unnest(simhash_features(body)) WITH ORDINALITY x(f, o)) u)")
STOP_WORDS_CPP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../src/core/stop_words.cpp")


def function_words():
    source = open(STOP_WORDS_CPP).read()
    listed = source[source.index("kStopWords[] = {"):source.index("};", source.index("kStopWords[] = {"))]
    return re.findall(r'"([a-z]+)"', listed)

# Methods: name -> SQL expression of the text column `body`.
METHODS = collections.OrderedDict([
    ("simhash(text)", "simhash(body)"),
    ("version 5 default", V5_DEFAULT),
    # Algorithm version 4's default: the same features without the English function words.
    ("version 4 default", "(SELECT simhash(array_agg(f)) FROM unnest(simhash_features(body)) f "
                          "WHERE f NOT IN (SELECT w FROM eval_function_words))"),
    ("version 1 default", V1_DEFAULT),
    ("mixed 2", "simhash(body, 'mixed', 2)"),
    ("mixed 3", "simhash(body, 'mixed', 3)"),
    ("words 1", "simhash(body, 'words', 1)"),
    ("words 2", "simhash(body, 'words', 2)"),
    ("words 3", "simhash(body, 'words', 3)"),
    ("chars 1", "simhash(body, 'chars', 1)"),
    ("chars 2", "simhash(body, 'chars', 2)"),
    ("chars 3", "simhash(body, 'chars', 3)"),
    # A tsvector holds at most 1 MB: the few huge copyright files are cut to their first 300,000 characters.
    ("tsvector english", "simhash(to_tsvector('english', left(body, 300000)))"),
    ("tsvector simple", "simhash(to_tsvector('simple', left(body, 300000)))"),
    # IDF weights counted over the originals of the set's group (table eval_idf):
    # man pages and fortunes together, the copyright files on their own
    *[(f"idf {tok} {n}", f"simhash(body, (SELECT idf FROM eval_idf WHERE tok = '{tok} {n}' AND grp = '$GRP'), '{tok}', {n})")
      for tok, n in IDF_TOKENIZERS],
    # Sub-linear term frequency (weight 1 + ln tf instead of tf), through simhash(text[], float8[]).
    ("mixed 1, 1+ln tf", SUBLINEAR.format(features="SELECT unnest(simhash_features(body, 'mixed', 1)) AS f")),
    ("mixed 2, 1+ln tf", SUBLINEAR.format(features="SELECT unnest(simhash_features(body, 'mixed', 2)) AS f")),
    ("chars 3, 1+ln tf", SUBLINEAR.format(features="SELECT unnest(simhash_features(body, 'chars', 3)) AS f")),
    # Version 5's weights without the commonest Chinese function characters too (table eval_stop_zh).
    ("version 5 - zh function chars", "(SELECT simhash(array_agg(f), array_agg(" + DEFAULT_WEIGHT + ")) "
                                          "FROM (SELECT f, count(*)::float8 AS tf FROM unnest(simhash_features(body)) f "
                                          "WHERE NOT EXISTS (SELECT 1 FROM eval_stop_zh s WHERE s.w = f) GROUP BY f) s)"),
    # Super-linear term frequency: the opposite direction to 1 + ln tf.
    ("version 5 features, tf^1.5", "(SELECT simhash(array_agg(f), array_agg((" + DEFAULT_WEIGHT + ") ^ 1.5)) FROM (SELECT f, count(*)::float8 AS tf FROM unnest(simhash_features(body)) f GROUP BY f) s)"),
    # A hybrid: character trigrams of words, single CJK characters.
    ("chars 3 + CJK 1", f"(SELECT simhash(array_agg(f)) FROM ({HYBRID}) h)"),
])
# EVAL_ONLY=regex keeps the methods whose names match (quicker runs while exploring).
if os.environ.get("EVAL_ONLY"):
    METHODS = collections.OrderedDict((k, v) for k, v in METHODS.items() if re.search(os.environ["EVAL_ONLY"], k))
CLASSIC = "classic (Java hash, jieba)"
GROUP = "(CASE WHEN cls = 'natural' THEN 'natural' ELSE 'main' END)"
# Shingle Jaccard bands of the natural set's pairs
NEAR_COPY = 0.8      # at or above: a natural near-duplicate
SHARED_TEXT = 0.5    # UNRELATED_JACCARD up to this: shares text (a license), not a copy


# ---------------------------------------------------------------- corpus

def read_corpus(path):
    docs = collections.defaultdict(list)
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4:
                continue
            lang, kind, source, body = parts
            body = body.replace("\\n", "\n").replace("\\\\", "\\")
            docs[(lang, kind)].append((source, body))
    return docs


def tokens(lang, text):
    """Words: jieba's for Chinese and Japanese (the segmenter of the classic
    algorithm; on Japanese it cuts kanji words and single kana), else white space."""
    if lang in CJK_LANGS:
        return [t for t in jieba.cut(text) if t.strip()]
    return text.split()


LENGTH_BANDS = (300, 600, 1200, 2500)  # lower bounds; every long document has at least 300
DEFAULT_METHOD = "simhash(text)"


def length_band(lang, text):
    n = cjk_chars(text) if lang in CJK_LANGS else len(text.split())
    return max(b for b in LENGTH_BANDS if b <= n) if n >= LENGTH_BANDS[0] else 0


def man_description(body):
    """The one-line NAME description of a man page: a short English text."""
    m = re.search(r"NAME\s*\n+\s*(.{10,160}?)\n", body)
    return m.group(1).strip() if m else None


def cjk_chars(text):
    """Han characters and kana."""
    return sum(1 for c in text if "\u4e00" <= c <= "\u9fff" or "\u3040" <= c <= "\u30ff")


def natural_texts():
    """Every license and copyright text the machine ships, each distinct body once.

    Copyright files embed whole licenses and package families share one file,
    so this one-genre collection holds natural near-duplicates next to files
    that only share boilerplate."""
    paths = sorted(glob.glob("/usr/share/common-licenses/*") + glob.glob("/usr/share/doc/*/copyright"))
    seen, texts = set(), []
    for path in paths:
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            raw = f.read()
        try:
            body = raw.decode("utf-8")
        except UnicodeDecodeError:
            body = raw.decode("latin-1")
        body = body.replace("\x00", "")
        if body.strip() and body not in seen:
            seen.add(body)
            texts.append(body)
    return texts


def build_sets(corpus):
    sets = {}
    en_man = [b for _, b in corpus[("en", "man")] if len(b.split()) >= 300]
    zh_man = [b for _, b in corpus[("zh", "man")] if cjk_chars(b) >= 300]
    ja_man = [b for _, b in corpus[("ja", "man")] if cjk_chars(b) >= 300]
    RNG.shuffle(en_man)
    RNG.shuffle(zh_man)
    sets[("en", "long")] = en_man[:LONG_DOCS]
    sets[("zh", "long")] = zh_man[:LONG_DOCS]
    # Sorted before shuffling: set order depends on the interpreter's hash seed.
    short_en = sorted({d for d in (man_description(b) for _, b in corpus[("en", "man")]) if d})
    short_zh = sorted({b.strip() for _, b in corpus[("zh", "fortune")] if 4 <= len(b.strip()) <= 200})
    RNG.shuffle(short_en)
    RNG.shuffle(short_zh)
    sets[("en", "short")] = short_en[:SHORT_DOCS]
    sets[("zh", "short")] = short_zh[:SHORT_DOCS]
    sets[("en", "natural")] = natural_texts()
    # Japanese last, so that the other sets are drawn exactly as before it was added.
    RNG.shuffle(ja_man)
    sets[("ja", "long")] = ja_man[:LONG_DOCS]
    return sets


def edit(lang, text, rate, vocabulary):
    """Random token edits: each substitutes, deletes or inserts one token.

    The text is kept as its words and the white space between them (gaps[j]
    before words[j]), so that an edit costs no scan of the text.  Chinese and
    Japanese keep jieba's white space exactly and an inserted word joins the
    next one without a space, so that only the edited tokens change (ASCII
    words in the text stay apart); English words are separated by spaces."""
    cjk = lang in CJK_LANGS
    if cjk:
        gaps, words = [""], []
        for t in jieba.cut(text):
            if t.strip():
                words.append(t)
                gaps.append("")
            else:
                gaps[-1] += t
    else:
        words = text.split()
        gaps = [""] + [" "] * (len(words) - 1) + [""] if words else [""]
    n = max(1, round(rate * len(words)))
    for _ in range(n):
        op = RNG.randrange(3)
        j = RNG.choice(range(len(words))) if words else 0
        if op == 0 and words:
            words[j] = RNG.choice(vocabulary)
        elif op == 1 and len(words) > 1:
            del words[j]
            gaps[j:j + 2] = [gaps[j] + gaps[j + 1]]
        else:
            words.insert(j, RNG.choice(vocabulary))  # right before words[j]
            gaps.insert(j + 1, "" if cjk else " ")
    return gaps[0] + "".join(w + g for w, g in zip(words, gaps[1:]))


# ---------------------------------------------------------------- classic baseline

MASK = (1 << 64) - 1


@functools.lru_cache(maxsize=1 << 20)
def java_hash64(word):
    """The string hash of the classic Python/Java SimHash code, 64-bit, over UTF-16 units."""
    data = word.encode("utf-16-le")
    units = [data[i] | (data[i + 1] << 8) for i in range(0, len(data), 2)]
    if not units:
        return 0
    x = (units[0] << 7) & MASK
    for c in units:
        x = ((x * 1000003) ^ c) & MASK
    return x ^ len(units)


BIT_SHIFTS = numpy.arange(64, dtype=numpy.uint64)


def classic_simhash(lang, text):
    """Each word votes +1 for the bits set in its hash and -1 for the others; a bit is set
    where the votes sum above 0.  Counted per distinct word (a bit's sum is 2 * the words
    with it set - all words), in numpy: the same integers as word by word, far faster."""
    words = tokens(lang, text)
    if not words:
        return None
    counts = collections.Counter(words)
    hashes = numpy.array([java_hash64(w) for w in counts], dtype=numpy.uint64)
    weights = numpy.array(list(counts.values()), dtype=numpy.int64)
    ones = (((hashes[:, None] >> BIT_SHIFTS) & numpy.uint64(1)).astype(numpy.int64) * weights[:, None]).sum(axis=0)
    fp = sum(1 << i for i in range(64) if 2 * int(ones[i]) > len(words))
    return fp - (1 << 64) if fp >= (1 << 63) else fp  # as a signed bigint


# ---------------------------------------------------------------- SQL

def psql(args, sql, stdin_data=None):
    cmd = args + ["-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql]
    out = subprocess.run(cmd, input=stdin_data, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("psql failed: " + out.stderr)
    return [line.split("\t") for line in out.stdout.splitlines() if line]


def copy_rows(args, table, rows):
    data = "".join("\t".join(escape(v) for v in row) + "\n" for row in rows)
    out = subprocess.run(args + ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", f"\\copy {table} FROM STDIN"],
                         input=data, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("copy failed: " + out.stderr)


def escape(v):
    if v is None:
        return "\\N"
    return str(v).replace("\\", "\\\\").replace("\t", " ").replace("\n", "\\n").replace("\r", " ")


def shingles(lang, text):
    t = tokens(lang, text) if lang == "en" else list(text.replace(" ", "").replace("\n", ""))
    return {tuple(t[i:i + 3]) for i in range(max(1, len(t) - 2))}


def jaccard(a, b):
    if not a and not b:
        return 1.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)  # the union's size, without building it


def edited_copies(lang, text, vocabulary, rates, draws):
    """draws edited copies of text at each rate, as (rate, body), rate by rate
    (the order the edits draw from RNG in, which fixes every copy of a run)."""
    return [(rate, edit(lang, text, rate, vocabulary)) for rate in rates for _ in range(draws)]


def unrelated_pairs(shingled):
    """The pairs (a, b), a listed before b, of a list of (id, shingles) whose
    shingle Jaccard is below UNRELATED_JACCARD."""
    return [(shingled[x][0], shingled[y][0]) for x in range(len(shingled)) for y in range(x + 1, len(shingled))
            if jaccard(shingled[x][1], shingled[y][1]) < UNRELATED_JACCARD]


# ---------------------------------------------------------------- main

def main():
    corpus_path, psql_args = sys.argv[1], sys.argv[2:]
    corpus = read_corpus(corpus_path)
    sets = build_sets(corpus)
    vocab = {lang: [t for text in sets[(lang, "long")][:100] for t in tokens(lang, text)] for lang in LANGS}

    rows = []  # id, lang, class, base, rate, body
    next_id = 0
    for (lang, cls), texts in sets.items():
        for i, text in enumerate(texts):
            base = next_id
            rows.append((base, lang, cls, None, None, text))
            next_id += 1
            if cls == "long" and i < EDITED_DOCS:
                for rate, body in edited_copies(lang, text, vocab[lang], RATES, EDIT_DRAWS):
                    rows.append((next_id, lang, cls, base, rate, body))
                    next_id += 1
    print(f"documents: {sum(1 for r in rows if r[3] is None)} originals, {sum(1 for r in rows if r[3] is not None)} edited copies",
          flush=True)

    psql(psql_args, """DROP TABLE IF EXISTS eval_docs, eval_fp, eval_idf, eval_stop_zh, eval_function_words;
        CREATE TABLE eval_function_words AS SELECT unnest('{""" + ",".join(function_words()) + """}'::text[]) AS w;
        CREATE TABLE eval_stop_zh AS SELECT regexp_split_to_table('的了着是在和与及或而也就都之其这那个们为以于被把从将吗呢吧啊', '') AS w;
        CREATE TABLE eval_docs (id int PRIMARY KEY, lang text, cls text, base int, rate float8, body text);
        CREATE TABLE eval_fp (id int, method text, fp bigint)""")
    copy_rows(psql_args, "eval_docs", rows)
    # Corpus counts as a user would keep them: over the documents, not their edited copies.
    psql(psql_args, "CREATE TABLE eval_idf AS " + " UNION ALL ".join(
        f"SELECT '{tok} {n}' AS tok, {GROUP} AS grp, simhash_idf_agg(body, '{tok}', {n}) AS idf "
        f"FROM eval_docs WHERE base IS NULL GROUP BY 2"
        for tok, n in IDF_TOKENIZERS))
    for name, expr in METHODS.items():
        for grp in ("main", "natural"):
            psql(psql_args, f"INSERT INTO eval_fp SELECT id, '{name}', ({expr.replace('$GRP', grp)})::bigint "
                            f"FROM eval_docs WHERE {GROUP} = '{grp}'")
    copy_rows(psql_args, "eval_fp", [(r[0], CLASSIC, classic_simhash(r[1], r[5])) for r in rows])
    psql(psql_args, "CREATE INDEX ON eval_fp (method, id); ANALYZE eval_fp, eval_docs")
    methods = list(METHODS) + [CLASSIC]
    texts = {r[0]: (r[1], r[5]) for r in rows}

    # Recall of edited copies, per language and edit rate.
    recall = collections.defaultdict(dict)
    for method, lang, rate, r3, mean in psql(psql_args, f"""
        SELECT f.method, d.lang, d.rate,
               avg((bit_count((f.fp # o.fp)::bit(64)) <= {THRESHOLD})::int), avg(bit_count((f.fp # o.fp)::bit(64)))
          FROM eval_docs d JOIN eval_fp f ON f.id = d.id JOIN eval_fp o ON o.id = d.base AND o.method = f.method
         WHERE d.base IS NOT NULL AND f.fp IS NOT NULL AND o.fp IS NOT NULL
         GROUP BY 1, 2, 3"""):
        recall[(method, lang)][float(rate)] = (float(r3), float(mean))

    # The same for the default method, split by the original's length (words, or Han and kana
    # characters): a short document moves further under the same share of edits.
    len_rows = [(r[0], length_band(r[1], r[5])) for r in rows if r[2] == "long" and r[3] is None]
    psql(psql_args, "DROP TABLE IF EXISTS eval_len; CREATE TABLE eval_len (id int PRIMARY KEY, band int)")
    copy_rows(psql_args, "eval_len", len_rows)
    recall_by_length = collections.defaultdict(dict)
    for lang, band, rate, docs, r3, mean in psql(psql_args, f"""
        SELECT d.lang, l.band, d.rate, count(*),
               avg((bit_count((f.fp # o.fp)::bit(64)) <= {THRESHOLD})::int), avg(bit_count((f.fp # o.fp)::bit(64)))
          FROM eval_docs d JOIN eval_len l ON l.id = d.base
               JOIN eval_fp f ON f.id = d.id AND f.method = '{DEFAULT_METHOD}'
               JOIN eval_fp o ON o.id = d.base AND o.method = f.method
         WHERE f.fp IS NOT NULL AND o.fp IS NOT NULL
         GROUP BY 1, 2, 3"""):
        recall_by_length[(lang, int(band))][float(rate)] = (int(docs), float(r3), float(mean))

    # Unrelated pairs: all pairs of originals of one language and length class.
    pairs = {}
    for method, lang, cls, npairs, mean, p01, near, null_share in psql(psql_args, f"""
        WITH o AS (SELECT d.id, d.lang, d.cls, f.method, f.fp FROM eval_docs d JOIN eval_fp f USING (id) WHERE d.base IS NULL)
        SELECT a.method, a.lang, a.cls, count(*), avg(bit_count((a.fp # b.fp)::bit(64))),
               percentile_disc(0.01) WITHIN GROUP (ORDER BY bit_count((a.fp # b.fp)::bit(64))),
               count(*) FILTER (WHERE bit_count((a.fp # b.fp)::bit(64)) <= {THRESHOLD}),
               (SELECT avg((x.fp IS NULL)::int) FROM o x WHERE x.method = a.method AND x.lang = a.lang AND x.cls = a.cls)
          FROM o a JOIN o b ON a.method = b.method AND a.lang = b.lang AND a.cls = b.cls AND a.id < b.id
         WHERE a.fp IS NOT NULL AND b.fp IS NOT NULL
         GROUP BY 1, 2, 3"""):
        pairs[(method, lang, cls)] = dict(pairs=int(npairs), mean=float(mean), p01=int(p01), near=int(near),
                                           nulls=float(null_share))
    # Classify the near pairs: related (a real near-duplicate in the corpus) or not.
    near_pairs = psql(psql_args, f"""
        WITH o AS (SELECT d.id, d.lang, d.cls, f.method, f.fp FROM eval_docs d JOIN eval_fp f USING (id)
                    WHERE d.base IS NULL AND f.fp IS NOT NULL)
        SELECT a.method, a.lang, a.cls, a.id, b.id FROM o a JOIN o b
            ON a.method = b.method AND a.lang = b.lang AND a.cls = b.cls AND a.id < b.id
         WHERE bit_count((a.fp # b.fp)::bit(64)) <= {THRESHOLD}""")
    shingle_cache = {}

    def sh(i):
        if i not in shingle_cache:
            shingle_cache[i] = shingles(*texts[i])
        return shingle_cache[i]

    false_pos = collections.Counter()
    related = collections.Counter()
    for method, lang, cls, a, b in near_pairs:
        key = (method, lang, cls)
        if jaccard(sh(int(a)), sh(int(b))) < UNRELATED_JACCARD:
            false_pos[key] += 1
        else:
            related[key] += 1

    # The natural set: every pair by its shingle Jaccard.
    nat_ids = [r[0] for r in rows if r[2] == "natural"]
    nat_rows = []
    for x in range(len(nat_ids)):
        for y in range(x + 1, len(nat_ids)):
            nat_rows.append((nat_ids[x], nat_ids[y], round(jaccard(sh(nat_ids[x]), sh(nat_ids[y])), 4)))
    psql(psql_args, "DROP TABLE IF EXISTS eval_natural; CREATE TABLE eval_natural (a int, b int, j float8)")
    copy_rows(psql_args, "eval_natural", nat_rows)
    bands = ("copies", "shared", "unrelated")
    counts = collections.defaultdict(lambda: [0] * (2 * len(bands)))  # per band: pairs, pairs within threshold
    for method, band, pairs_in_band, within in psql(psql_args, f"""
        SELECT method, band, count(*), count(*) FILTER (WHERE within)
          FROM (SELECT f.method,
                       CASE WHEN n.j >= {NEAR_COPY} THEN 'copies'
                            WHEN n.j >= {UNRELATED_JACCARD} AND n.j < {SHARED_TEXT} THEN 'shared'
                            WHEN n.j < {UNRELATED_JACCARD} THEN 'unrelated' END AS band,
                       bit_count((f.fp # g.fp)::bit(64)) <= {THRESHOLD} AS within
                  FROM eval_natural n JOIN eval_fp f ON f.id = n.a JOIN eval_fp g ON g.id = n.b AND g.method = f.method
                 WHERE f.fp IS NOT NULL AND g.fp IS NOT NULL) s
         WHERE band IS NOT NULL
         GROUP BY 1, 2"""):
        i = 2 * bands.index(band)
        counts[method][i:i + 2] = [int(pairs_in_band), int(within)]
    natural = {method: tuple(v) for method, v in counts.items()}

    # Bit balance over the originals.
    balance = {}
    for method, lang, cls, lo, hi in psql(psql_args, """
        WITH o AS (SELECT d.lang, d.cls, f.method, f.fp FROM eval_docs d JOIN eval_fp f USING (id)
                    WHERE d.base IS NULL AND f.fp IS NOT NULL),
             s AS (SELECT method, lang, cls, i, avg(((fp >> i) & 1)::float8) AS share
                     FROM o, generate_series(0, 63) i GROUP BY 1, 2, 3, 4)
        SELECT method, lang, cls, min(share), max(share) FROM s GROUP BY 1, 2, 3"""):
        balance[(method, lang, cls)] = (float(lo), float(hi))

    summary = default_summary(psql_args, rows, sh)
    if os.environ.get("EVAL_DATA"):
        with open(os.environ["EVAL_DATA"], "w") as f:
            json.dump(summary, f, indent=1, sort_keys=True)
            f.write("\n")
    report(methods, sets, recall, recall_by_length, pairs, false_pos, related, balance, natural, summary)


def distance_histogram(distances):
    """Counts of the distances 0 to 64."""
    counts = [0] * 65
    for d in distances:
        counts[d] += 1
    return counts


def default_summary(psql_args, rows, sh):
    """What the summary table and the plots show of the default method: per language, the
    distance histograms of the edited copies at each rate and of the unrelated pairs of each
    set, and from them the shares within THRESHOLD and WIDE_THRESHOLD."""
    fps = {int(i): int(fp) & MASK for i, fp in psql(psql_args, f"""
        SELECT id, fp FROM eval_fp WHERE method = '{DEFAULT_METHOD}' AND fp IS NOT NULL""")}
    copies = collections.defaultdict(list)
    members = collections.defaultdict(list)
    for i, lang, cls, base, rate, _ in rows:
        if base is not None:
            if i in fps and base in fps:
                copies[(lang, rate)].append(bin(fps[i] ^ fps[base]).count("1"))
        elif i in fps:
            members[(lang, cls)].append(i)
    summary = dict(run=os.environ.get("EVAL_RUN", ""), method=DEFAULT_METHOD, threshold=THRESHOLD, wide_threshold=WIDE_THRESHOLD,
                   unrelated_jaccard=UNRELATED_JACCARD, rates=RATES, languages=LANGS,
                   edited=collections.defaultdict(dict), unrelated=collections.defaultdict(dict))
    for (lang, rate), distances in copies.items():
        summary["edited"][lang][f"{rate:g}"] = distance_histogram(distances)
    for (lang, cls), ids in members.items():
        pairs = unrelated_pairs([(i, sh(i)) for i in ids])
        summary["unrelated"][lang][cls] = distance_histogram(bin(fps[a] ^ fps[b]).count("1") for a, b in pairs)
    return summary


def within(histogram, radius):
    """Share and count of a histogram's pairs at distance radius or less."""
    n = sum(histogram)
    k = sum(histogram[:radius + 1])
    return (k / n if n else 0.0), k, n


def rate_columns(first):
    """Header and rule of a table with the given first columns, then one column per edit rate."""
    names = first + [f"{int(r * 100)}% edits" for r in RATES]
    return ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]


def summary_report(summary):
    """The default method at THRESHOLD and WIDE_THRESHOLD: recall of edited copies, and
    unrelated pairs within each radius."""
    t, w = THRESHOLD, WIDE_THRESHOLD
    out = [f"### Summary: {DEFAULT_METHOD}, edited copies and unrelated pairs within {t} and within {w}", ""]
    out.extend(rate_columns(["language", "recall within"]))
    for lang in LANGS:
        for radius in (t, w):
            cells = [summary["edited"][lang].get(f"{r:g}") for r in RATES]
            out.append(f"| {LANGS[lang]} | {radius} | " + " | ".join(
                f"{within(h, radius)[0]:.3f}" if h else "-" for h in cells) + " |")
    out.append("")
    out.append(f"| language | set | unrelated pairs | within {t} (rate) | within {w} (rate) |")
    out.append("|---|---|---|---|---|")
    for lang in LANGS:
        for cls, h in summary["unrelated"][lang].items():
            s3, k3, n = within(h, t)
            s6, k6, _ = within(h, w)
            out.append(f"| {LANGS[lang]} | {cls} | {n} | {k3} ({s3:.1e}) | {k6} ({s6:.1e}) |")
    return out


def report(methods, sets, recall, recall_by_length, pairs, false_pos, related, balance, natural, summary):
    out = []
    out.append(f"Threshold: distance <= {THRESHOLD}.  Unrelated pair: 3-token-shingle Jaccard < {UNRELATED_JACCARD}.")
    out.append("Sets: " + ", ".join(f"{lang} {cls}: {len(t)} docs" for (lang, cls), t in sets.items()))
    out.append("")
    out.extend(summary_report(summary))
    for lang in LANGS:
        out.append("")
        out.append(f"### {LANGS[lang]}, long documents: recall of edited copies "
                   f"(share within {THRESHOLD}; mean distance)")
        out.append("")
        out.extend(rate_columns(["method"]))
        for m in methods:
            cells = []
            for r in RATES:
                v = recall.get((m, lang), {}).get(r)
                cells.append(f"{v[0]:.3f} ({v[1]:.1f})" if v else "-")
            out.append(f"| {m} | " + " | ".join(cells) + " |")
        bands = sorted(b for (l, b) in recall_by_length if l == lang)
        if bands:
            unit = "Han and kana characters" if lang in CJK_LANGS else "words"
            out.append("")
            out.append(f"{DEFAULT_METHOD} by the original's length in {unit} (edited copies per rate; share within "
                       f"{THRESHOLD}; mean distance):")
            out.append("")
            out.extend(rate_columns(["length", "copies"]))
            for i, b in enumerate(bands):
                upper = f"{bands[i + 1] - 1}" if i + 1 < len(bands) else ""
                cells = [recall_by_length[(lang, b)].get(r) for r in RATES]
                copies = cells[0][0] if cells[0] else 0
                out.append(f"| {b}-{upper} | {copies} | " + " | ".join(
                    f"{v[1]:.3f} ({v[2]:.1f})" if v else "-" for v in cells) + " |")
        for cls in ("long", "short", "natural"):
            if (lang, cls) not in sets:
                continue
            out.append("")
            what = "license and copyright" if cls == "natural" else cls
            out.append(f"### {LANGS[lang]}, {what} texts: unrelated pairs")
            out.append("")
            out.append("| method | pairs | mean distance | 1st percentile | unrelated within 3 (rate) | related within 3 | bit share min..max | NULL |")
            out.append("|---|---|---|---|---|---|---|---|")
            for m in methods:
                p = pairs.get((m, lang, cls))
                if not p:
                    continue
                fp = false_pos[(m, lang, cls)]
                b = balance.get((m, lang, cls), (0, 0))
                out.append(f"| {m} | {p['pairs']} | {p['mean']:.1f} | {p['p01']} | {fp} ({fp / p['pairs']:.1e}) | "
                           f"{related[(m, lang, cls)]} | {b[0]:.2f}..{b[1]:.2f} | {p['nulls']:.3f} |")
    out.append("")
    out.append(f"### English, license and copyright texts: every pair by how much text it shares")
    out.append("")
    out.append(f"{len(sets[('en', 'natural')])} distinct texts from /usr/share/common-licenses and /usr/share/doc/*/copyright, "
               f"one genre: files embed whole licenses, package families share a file. Columns: pairs within "
               f"{THRESHOLD} among the pairs in each 3-token-shingle Jaccard band.")
    out.append("")
    out.append(f"| method | near copies (J >= {NEAR_COPY}) | share text ({UNRELATED_JACCARD} <= J < {SHARED_TEXT}) "
               f"| unrelated (J < {UNRELATED_JACCARD}) |")
    out.append("|---|---|---|---|")
    for m in methods:
        v = natural.get(m)
        if not v:
            continue
        c, c3, t, t3, u, u3 = v
        out.append(f"| {m} | {c3} of {c} ({c3 / max(c, 1):.2f}) | {t3} of {t} ({t3 / max(t, 1):.1e}) | "
                   f"{u3} of {u} ({u3 / max(u, 1):.1e}) |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
