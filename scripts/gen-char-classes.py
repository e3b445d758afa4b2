#!/usr/bin/python3
"""Writes src/core/char_class_table.inc from Unicode's UnicodeData.txt, Scripts.txt and
WordBreakProperty.txt.

The tokenizer's character classes (README, "The algorithm", rule 2) come from
General_Category, with the block rules below on top; the table is fixed so
that a fingerprint never depends on the server's ICU or locale.  Regenerate
only together with a new algorithm version: the table decides stored
fingerprints.

    apt-get download unicode-data && dpkg -x unicode-data_*.deb ucd
    scripts/gen-char-classes.py ucd/usr/share/unicode

The rules, first match wins, for every code point from U+0080 up (ASCII is
inline in src/core/unicode.hpp: letters and digits are words):
  1. dropped without splitting a token (I): the soft hyphen, the joiners
     U+200C, U+200D, U+2060..2064, U+FEFF, variation selectors (U+180B..180D,
     U+180F, U+FE00..FE0F, U+E0100..E01EF), the combining enclosing keycap
     U+20E3, the ideographic tone marks U+302A..302D (an ideograph keeps
     its feature), skin-tone modifiers U+1F3FB..1F3FF and the tag
     characters (the rest of U+E0000..E0FFF);
  2. blocks, assigned or not:
     letters (W): letterlike symbols and number forms U+2100..218F;
     symbol tokens (Y): U+2600..27BF, Yijing hexagrams U+4DC0..4DFF, private
       use (U+E000..F8FF, U+F0000..10FFFF), U+1F000..1FFFF;
     CJK (C): Han and its radicals, strokes, kanbun, enclosed and
       compatibility forms, iteration marks and Hangzhou numerals, kana
       (halfwidth too), bopomofo, Yi, and planes 2 and 3 whole, so that
       ideographs Unicode adds there later are CJK too (CJK_BLOCKS);
  3. by General_Category: punctuation (P*), symbols (S*), separators (Z*),
     controls and format characters (Cc, Cf) separate (S), except the marks
     that Unicode's word boundaries (UAX #29) count as letters, Word_Break =
     ALetter: the Armenian emphasis, exclamation and question marks written
     over a vowel, the Hebrew geresh, modifier tone letters, circled
     letters (W); private use (Co) is a symbol token (Y);
  4. letters, marks and numbers (L*, M*, N*) of the scripts written without
     spaces (Thai, Lao, Khmer, Myanmar) and of Han, kana, bopomofo and Yi
     wherever they are: CJK (C);
  5. every other letter, mark and number, and unassigned code points: word (W).
"""
import os
import sys

from ucd import read_ucd

SEPARATOR, WORD, CJK, SYMBOL, IGNORABLE = "S", "W", "C", "Y", "I"

IGNORABLE_RANGES = [(0x00AD, 0x00AD), (0x180B, 0x180D), (0x180F, 0x180F), (0x200C, 0x200D),
                    (0x2060, 0x2064), (0x20E3, 0x20E3), (0x302A, 0x302D), (0xFE00, 0xFE0F),
                    (0xFEFF, 0xFEFF), (0x1F3FB, 0x1F3FF), (0xE0000, 0xE0FFF)]
WORD_BLOCKS = [(0x2100, 0x218F)]
SYMBOL_BLOCKS = [(0x2600, 0x27BF), (0x4DC0, 0x4DFF), (0xE000, 0xF8FF), (0x1F000, 0x1FFFF),
                 (0xF0000, 0x10FFFF)]
# Kana's one punctuation mark, the katakana middle dot U+30FB, separates.
CJK_BLOCKS = [(0x2E80, 0x2FDF), (0x3005, 0x3007), (0x3021, 0x3029), (0x3031, 0x3035),
              (0x3038, 0x303C), (0x3040, 0x30FA), (0x30FC, 0x312F), (0x3190, 0x31FF),
              (0x3200, 0x33FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA000, 0xA4CF),
              (0xF900, 0xFAFF), (0xFF66, 0xFF9F), (0x20000, 0x3FFFF)]
CJK_SCRIPTS = {"Thai", "Lao", "Khmer", "Myanmar", "Han", "Hiragana", "Katakana", "Bopomofo", "Yi"}


def read_categories(path):
    cat = {}
    first = None
    for line in open(path, encoding="utf-8"):
        f = line.split(";")
        code, name, gc = int(f[0], 16), f[1], f[2]
        if name.endswith(", First>"):
            first = code
            continue
        if name.endswith(", Last>"):
            for c in range(first, code + 1):
                cat[c] = gc
            continue
        cat[code] = gc
    return cat


def read_scripts(path):
    rows, version = read_ucd(path)
    return {c: f[0] for lo, hi, f in rows for c in range(lo, hi + 1)}, version


def read_word_letters(path):
    rows, _ = read_ucd(path)
    return {c for lo, hi, f in rows if f[0] == "ALetter" for c in range(lo, hi + 1)}


def inside(c, ranges):
    return any(lo <= c <= hi for lo, hi in ranges)


def classify(c, cat, script, word_letters):
    if inside(c, IGNORABLE_RANGES):
        return IGNORABLE
    if inside(c, WORD_BLOCKS):
        return WORD
    if inside(c, SYMBOL_BLOCKS):
        return SYMBOL
    if inside(c, CJK_BLOCKS):
        return CJK
    gc = cat.get(c, "Cn")
    if gc[0] in "PSZ" or gc in ("Cc", "Cf"):
        return WORD if c in word_letters else SEPARATOR
    if gc == "Co":
        return SYMBOL
    if gc[0] in "LMN" and script.get(c) in CJK_SCRIPTS:
        return CJK
    return WORD


def main():
    ucd = sys.argv[1]
    cat = read_categories(os.path.join(ucd, "UnicodeData.txt"))
    script, version = read_scripts(os.path.join(ucd, "Scripts.txt"))
    word_letters = read_word_letters(os.path.join(ucd, "auxiliary", "WordBreakProperty.txt"))
    runs = []
    for c in range(0x80, 0x110000):
        if 0xD800 <= c <= 0xDFFF:  # surrogates never reach the tokenizer: extend the run around them
            continue
        k = classify(c, cat, script, word_letters)
        if runs and runs[-1][2] == k:
            runs[-1][1] = c
        else:
            runs.append([c, c, k])
    out = open("src/core/char_class_table.inc", "w", encoding="utf-8")
    out.write("// Generated by scripts/gen-char-classes.py from UnicodeData.txt, Scripts.txt and\n")
    out.write("// WordBreakProperty.txt of Unicode %s.\n" % version)
    out.write("// {first, last, class} for U+0080..U+10FFFF, sorted, no gaps but the surrogates.  Do not edit.\n")
    for lo, hi, k in runs:
        out.write("{0x%05X, 0x%05X, %s},\n" % (lo, hi, k))
    print("%d runs" % len(runs))


if __name__ == "__main__":
    main()
