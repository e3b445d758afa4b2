"""Weightings of the default features by term frequency and text length
(exploration, not a test): how version 6's rule 5 was chosen (the cap was
chosen on held-out prose too: test/eval/heldout_prose.sh with its rows).

Draws DRAWS (default 4) edited copies at 2% and 5% of the harness's 600
English and 600 Chinese long documents (its edit function, seed SEED,
default 7), takes the features of every document and copy from the
extension (simhash_features, one query), and recomputes fingerprints for
each weighting in numpy: the bits are signs of sums of +-weight over the
features' XXH3-64 hashes, as rule 5 of README's "The algorithm" has it
(the votes of features of one count are summed exactly first, so that
votes which cancel give the exact 0 of a tie, rule 6).  Prints recall within 3 (split at 600 words or Han characters) and
unrelated originals within 3 (3-token-shingle Jaccard < 0.1) in every
harness set.  "version 6" must equal the extension's simhash(text): the
script counts the documents where it does not.

Usage: length_weighting.py CORPUS_TSV PSQL_ARGS...
(CORPUS_TSV from test/bench/corpus.pl; needs python3-jieba, python3-numpy
and python3-xxhash; SEED picks the edits; HOLDOUT=1 takes the Chinese man
pages of 300 characters or more the harness leaves out instead of its 600;
ONLY=regex keeps the weightings whose names match.)
"""
import collections, os, random, re, subprocess, sys
import numpy as np
import xxhash
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate as ev

CORPUS, PS = sys.argv[1], sys.argv[2:]
SEED = int(os.environ.get("SEED", "7"))
DRAWS = int(os.environ.get("DRAWS", "4"))
MASK = (1 << 64) - 1


def documents():
    """(id, lang, cls, base, rate, body) of the harness's sets and the edited copies."""
    corpus = ev.read_corpus(CORPUS)
    sets = ev.build_sets(corpus)
    if os.environ.get("HOLDOUT"):
        ev.LONG_DOCS = 10 ** 6
        ev.RNG = random.Random(20261122)  # the same shuffle, past its first 600
        sets[("zh", "long")] = ev.build_sets(corpus)[("zh", "long")][600:]
    vocab = {lang: [t for text in sets[(lang, "long")][:100] for t in ev.tokens(lang, text)] for lang in ev.LANGS}
    ev.RNG = random.Random(SEED)
    docs = []
    for (lang, cls), texts in sets.items():
        for text in texts:
            base = len(docs)
            docs.append((base, lang, cls, None, None, text))
            if cls == "long" and lang in ("en", "zh"):
                for rate, body in ev.edited_copies(lang, text, vocab[lang], (0.02, 0.05), DRAWS):
                    docs.append((len(docs), lang, cls, base, rate, body))
    return docs


def query(sql):
    out = subprocess.run(PS + ["-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                         capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


DOCS = documents()
ev.psql(PS, "DROP TABLE IF EXISTS lw_docs; CREATE TABLE lw_docs (id int PRIMARY KEY, lang text, cls text, "
            "base int, rate float8, body text)")
ev.copy_rows(PS, "lw_docs", DOCS)
FEATURES = collections.defaultdict(list)  # id -> [(feature, count)]
for i, f, c in query("SELECT id, f, count(*) FROM lw_docs, unnest(simhash_features(body)) f GROUP BY 1, 2"):
    FEATURES[int(i)].append((f.replace("\\\\", "\\"), int(c)))
EXTENSION = {int(i): (int(fp) & MASK if fp else None) for i, fp in query("SELECT id, simhash(body)::bigint FROM lw_docs")}
ORIGINALS = [d for d in DOCS if d[3] is None]
LENGTH = {d[0]: ev.cjk_chars(d[5]) if d[1] in ev.CJK_LANGS else len(d[5].split()) for d in ORIGINALS}
UNRELATED = {g: ev.unrelated_pairs([(d[0], ev.shingles(d[1], d[5])) for d in ORIGINALS if (d[1], d[2]) == g])
             for g in (("en", "long"), ("zh", "long"), ("en", "short"), ("zh", "short"), ("en", "natural"), ("ja", "long"))}


def splitmix(h):
    h = ((h ^ (h >> 30)) * 0xbf58476d1ce4e5b9) & MASK
    h = ((h ^ (h >> 27)) * 0x94d049bb133111eb) & MASK
    return h ^ (h >> 31)


# Every distinct feature's hash bits as a row of +-1.
INDEX, HASHES = {}, []
for features in FEATURES.values():
    for f, _ in features:
        if f not in INDEX:
            INDEX[f] = len(HASHES)
            HASHES.append(xxhash.xxh3_64_intdigest(f.encode("utf-8")))
H = np.array(HASHES, dtype=np.uint64)
SIGNS = (((H[:, None] >> np.arange(64, dtype=np.uint64)[None, :]) & np.uint64(1)).astype(np.float64) * 2 - 1)
FUNCTION_WORDS = set(ev.function_words())
PER_DOC = {}  # id -> (feature rows, counts, is function word, other occurrences n, tie-break word)
for i, features in FEATURES.items():
    rows = np.array([INDEX[f] for f, _ in features])
    tf = np.array([c for _, c in features], dtype=np.float64)
    fw = np.array([f in FUNCTION_WORDS for f, _ in features])
    tie = sum(c * splitmix(HASHES[INDEX[f]]) for f, c in features) & MASK
    PER_DOC[i] = (rows, tf, fw, tf[~fw].sum(), tie)


def fingerprint(i, weight):
    """Features of one count (and kind) weigh alike: their +-1 votes are summed
    exactly first, so that votes which cancel exactly give the exact 0 of a
    tie, as the extension's integer tallies do (rule 5)."""
    if i not in PER_DOC:
        return None
    rows, tf, fw, n, tie = PER_DOC[i]
    w = np.where(fw, np.sqrt(tf) * np.sqrt(np.sqrt(tf)), weight(tf, n))
    groups, group_of = np.unique(np.stack([tf, fw]), axis=1, return_inverse=True)
    tallies = np.zeros((groups.shape[1], 64))
    np.add.at(tallies, group_of, SIGNS[rows])
    group_weight = np.zeros(groups.shape[1])
    group_weight[group_of] = w
    sums = group_weight @ tallies
    bits = (sums > 0) | ((sums == 0) & (((tie >> np.arange(64, dtype=np.uint64)) & 1) == 1))
    return int(np.packbits(bits[::-1].astype(np.uint8)).view(">u8")[0])


def ramp(n, start, peak, end):
    """0 up to start, 1 at peak, 0 from end, linear in between."""
    if n <= start or n >= end:
        return 0.0
    return (n - start) / (peak - start) if n < peak else (end - n) / (end - peak)


def boosted(extra, cap=None, start=50, peak=300, end=2500):
    """tf * min(tf, cap)^(extra * ramp): version 6's rule with extra 0.35 and cap 8."""
    return lambda tf, n: tf * (tf if cap is None else np.minimum(tf, cap)) ** (extra * ramp(n, start, peak, end))


WEIGHTINGS = collections.OrderedDict([
    ("version 5 (tf)", lambda tf, n: tf),
    ("tf^1.1", lambda tf, n: tf ** 1.1),
    ("tf^1.2", lambda tf, n: tf ** 1.2),
    ("tf^(1 + 0.3 r), no taper below 300", lambda tf, n: tf ** (1 + 0.3 * (1.0 if n < 300 else ramp(n, 0, 300, 2500)))),
    ("version 6: tf min(tf, 8)^(0.35 r), 50/300/2500", boosted(0.35, 8)),
    ("tf^(1 + 0.3 r), 50/300/2500, no cap", boosted(0.3)),
    ("tf^(1 + 0.2 r), no cap", boosted(0.2)),
    ("tf^(1 + 0.4 r), no cap", boosted(0.4)),
    ("tf^(1 + 0.3 r), 50/300/1500, no cap", boosted(0.3, end=1500)),
    ("tf^(1 + 0.3 r), 50/300/4000, no cap", boosted(0.3, end=4000)),
    ("tf^(1 + 0.3 r), 50/200/2500, no cap", boosted(0.3, peak=200)),
    ("tf^(1 + 0.3 r), 50/500/2500, no cap", boosted(0.3, peak=500)),
    ("tf^(1 + 0.3 r), 100/300/2500, no cap", boosted(0.3, start=100)),
    ("tf min(tf, 6)^(0.3 r)", boosted(0.3, 6)),
    ("tf min(tf, 8)^(0.3 r)", boosted(0.3, 8)),
    ("tf min(tf, 10)^(0.3 r)", boosted(0.3, 10)),
    ("tf min(tf, 12)^(0.3 r)", boosted(0.3, 12)),
    ("tf min(tf, 8)^(0.4 r)", boosted(0.4, 8)),
    ("tf min(tf, 10)^(0.35 r)", boosted(0.35, 10)),
])
if os.environ.get("ONLY"):
    WEIGHTINGS = collections.OrderedDict((k, v) for k, v in WEIGHTINGS.items() if re.search(os.environ["ONLY"], k))

print(f"seed {SEED}, {DRAWS} copies per document and rate; unrelated pairs: "
      + ", ".join(f"{g[0]} {g[1]} {len(p)}" for g, p in UNRELATED.items()), flush=True)
print("| weighting | en 2%: all / under 600 / rest | en 5% | zh 2%: all / under 600 / rest | zh 5% | unrelated within 3: "
      + " / ".join(f"{g[0]} {g[1]}" for g in UNRELATED) + " |")
print("|---|---|---|---|---|---|")
for name, weight in WEIGHTINGS.items():
    fp = {d[0]: fingerprint(d[0], weight) for d in DOCS}
    if name.startswith("version 6"):
        differ = sum(1 for i, v in EXTENSION.items() if v != fp[i])
        print(f"(version 6 against the extension's simhash(text): {differ} of {len(EXTENSION)} differ)", file=sys.stderr)
    within = collections.defaultdict(lambda: [0, 0])
    for d in DOCS:
        if d[3] is None or fp[d[0]] is None or fp[d[3]] is None:
            continue
        hit = bin(fp[d[0]] ^ fp[d[3]]).count("1") <= 3
        for key in ((d[1], d[4], "all"), (d[1], d[4], "under 600" if LENGTH[d[3]] < 600 else "rest")):
            within[key][0] += hit
            within[key][1] += 1
    r = lambda lang, rate, band: within[(lang, rate, band)][0] / max(1, within[(lang, rate, band)][1])
    near = [sum(1 for a, b in pairs if fp[a] is not None and fp[b] is not None and bin(fp[a] ^ fp[b]).count("1") <= 3)
            for pairs in UNRELATED.values()]
    print(f"| {name} | {r('en', 0.02, 'all'):.4f} / {r('en', 0.02, 'under 600'):.3f} / {r('en', 0.02, 'rest'):.3f} "
          f"| {r('en', 0.05, 'all'):.3f} | {r('zh', 0.02, 'all'):.4f} / {r('zh', 0.02, 'under 600'):.3f} / "
          f"{r('zh', 0.02, 'rest'):.3f} | {r('zh', 0.05, 'all'):.3f} | {' / '.join(map(str, near))} |", flush=True)
