"""Reads the semicolon-separated files of the Unicode Character Database
(Scripts.txt, WordBreakProperty.txt, CaseFolding.txt, ...) for the table
generators in this folder."""
import re


def read_ucd(path):
    """(first, last, fields) for each data line, fields being the columns after
    the code point or range, and the version the file's header names."""
    rows, version = [], None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"# \w+-(\d+\.\d+\.\d+)\.txt", line)
        if m:
            version = m.group(1)
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        codes, *fields = [x.strip() for x in line.split(";")]
        lo, _, hi = codes.partition("..")
        rows.append((int(lo, 16), int(hi or lo, 16), fields))
    return rows, version
