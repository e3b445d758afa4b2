"""Recall on held-out prose (exploration, not a test): Debian's documentation.

The harness's long documents are man pages, which repeat a few words many
times; prose spreads its votes over more words, so the same share of edits
moves its fingerprint further.  This takes the HTML of Debian's manuals in
English and Chinese (the packages heldout_prose.sh installs), one document
per section (the text between h1 to h4 headings, navigation and tables of
contents left out, exact repeats dropped, 300 words or Han characters at
least), and draws 4 edited copies of each at 2% and 5% with the harness's
own edit function, as zh_weighting.py does.  It loads table ho_docs
(originals and copies) and ho_unrelated (pairs of originals of one language
with 3-shingle Jaccard < 0.1); heldout_prose.sql fingerprints and measures.

Usage: heldout_prose.py PSQL_ARGS...   (SEED, default 7, seeds the edits)
"""
import collections, glob, hashlib, html.parser, os, random, re, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate as ev

DOC = "/usr/share/doc/"
SOURCES = {
    "zh": ["/usr/share/debian-reference/*.zh-cn.html", "/usr/share/debian-reference/*.zh-tw.html",
           DOC + "debian/FAQ/zh-cn/*.html", DOC + "maint-guide-zh-cn/html/*.html", DOC + "maint-guide-zh-tw/html/*.html",
           DOC + "debian-edu-doc-zh-cn/debian-edu-bookworm-manual.html", DOC + "harden-doc/html/zh-CN/*.html",
           DOC + "debian-handbook/html/zh-CN/*.html", DOC + "debian-handbook/html/zh-TW/*.html",
           DOC + "installation-guide-amd64/zh_CN/*.html"],
    "en": ["/usr/share/debian-reference/*.en.html", DOC + "debian/FAQ/*.en.html", DOC + "maint-guide/html/*.html",
           DOC + "debian-edu-doc-en/debian-edu-bookworm-manual.html", DOC + "harden-doc/html/en-US/*.html",
           DOC + "debian-handbook/html/en-US/*.html", DOC + "installation-guide-amd64/en/*.html"],
}
BLOCK = {"p", "div", "br", "li", "tr", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "table", "ul", "ol",
         "blockquote", "title"}
VOID = {"br", "img", "meta", "link", "hr", "input", "col"}
NAVIGATION = ("navheader", "navfooter", "toc")


class Sections(html.parser.HTMLParser):
    """The text of a page, cut at every h1 to h4."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections, self.skip = [[]], 0

    def handle_starttag(self, tag, attrs):
        if self.skip:
            if tag not in VOID: self.skip += 1
            return
        cls = dict(attrs).get("class") or ""
        if tag in ("script", "style", "head") or (tag == "div" and any(c in cls for c in NAVIGATION)):
            self.skip = 1
            return
        if tag in ("h1", "h2", "h3", "h4"): self.sections.append([])
        if tag in BLOCK: self.sections[-1].append("\n")

    def handle_endtag(self, tag):
        if self.skip:
            self.skip -= 1
        elif tag in BLOCK:
            self.sections[-1].append("\n")

    def handle_data(self, data):
        if not self.skip: self.sections[-1].append(data)


def clean(t):
    t = re.sub(r"[ ]+", " ", t.replace("\r", "").replace("\t", " ").replace("\xa0", " "))
    return "\n".join(line.strip() for line in re.sub(r"\n\s*\n+", "\n", t).split("\n")).strip()


def documents():
    seen, found = set(), collections.Counter()
    docs = {"zh": [], "en": []}
    for lang, patterns in SOURCES.items():
        for f in sorted(f for p in patterns for f in glob.glob(p)):
            if re.search(r"/(index|toc|ix01)[^/]*\.html$", f): continue
            parser = Sections()
            parser.feed(open(f, encoding="utf-8", errors="replace").read())
            for s in parser.sections:
                body = clean("".join(s))
                size = ev.cjk_chars(body) if lang == "zh" else len(body.split())
                digest = hashlib.md5(body.encode()).hexdigest()
                if size < 300 or digest in seen: continue
                seen.add(digest)
                docs[lang].append((size, body))
                found[lang] += 1
    print("sections of 300 words or Han characters and more:", dict(found), flush=True)
    return docs


def main():
    ps = sys.argv[1:]
    docs = documents()
    rng = random.Random(int(os.environ.get("SEED", "7")))
    ev.RNG = rng
    for lang in docs: rng.shuffle(docs[lang])
    vocab = {lang: [t for _, text in docs[lang][:100] for t in ev.tokens(lang, text)] for lang in docs}
    rows, nid = [], 0
    for lang in ("zh", "en"):
        for size, text in docs[lang]:
            base = nid
            rows.append((nid, lang, None, None, size, text)); nid += 1
            for rate, body in ev.edited_copies(lang, text, vocab[lang], (0.02, 0.05), 4):
                rows.append((nid, lang, base, rate, size, body)); nid += 1
    ev.psql(ps, "DROP TABLE IF EXISTS ho_docs; CREATE TABLE ho_docs (id int PRIMARY KEY, lang text, base int, rate float8, len int, body text)")
    ev.copy_rows(ps, "ho_docs", rows)
    originals = [(r[0], r[1], ev.shingles(r[1], r[5])) for r in rows if r[2] is None]
    unrelated = [pair for lang in ("zh", "en") for pair in ev.unrelated_pairs([(i, s) for i, l, s in originals if l == lang])]
    ev.psql(ps, "DROP TABLE IF EXISTS ho_unrelated; CREATE TABLE ho_unrelated (a int, b int)")
    ev.psql(ps, "DROP TABLE IF EXISTS ho_function_words; CREATE TABLE ho_function_words AS SELECT unnest('{"
                + ",".join(ev.function_words()) + "}'::text[]) AS w")
    ev.copy_rows(ps, "ho_unrelated", unrelated)
    print(f"edited copies: {len(rows) - len(originals)}; unrelated pairs: {len(unrelated)}", flush=True)


main()
