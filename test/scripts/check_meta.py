#!/usr/bin/env python3
"""Checks META.json, the PGXN distribution metadata, from the checkout's root.

    python3 test/scripts/check_meta.py spec       # valid against PGXN Meta Spec 1.0.0
    python3 test/scripts/check_meta.py version    # versions follow simhash.control
    python3 test/scripts/check_meta.py provides   # one entry per *.control, nothing else
    python3 test/scripts/check_meta.py files      # every file it names exists
    python3 test/scripts/check_meta.py prereqs    # PostgreSQL minimum = pg_compat.h's
    python3 test/scripts/check_meta.py self-test  # the spec check refuses broken copies
    python3 test/scripts/check_meta.py zip FILE   # FILE is make dist's archive of HEAD

Prints what is wrong and exits 1, or exits 0 silently.  The spec check is
written from the PGXN Meta Spec 1.0.0 (https://pgxn.org/spec/): its required
keys, the shapes of its optional ones, SemVer versions, and no keys beyond
the spec's own but custom x_ ones.
"""
import copy
import glob
import json
import os
import re
import sys
import zipfile

SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$")
# a Term: at least two characters, no slash, backslash, space or control character
TERM = re.compile(r"^[^/\\\s\x00-\x1f\x7f]{2,}$")
# a Tag: as a Term, but spaces are allowed and at most 255 characters
TAG = re.compile(r"^[^/\\\x00-\x1f\x7f]{2,255}$")
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")
LICENSES = {
    "agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd", "freebsd", "gfdl_1_2",
    "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1", "lgpl_3_0", "mit", "mozilla_1_0", "mozilla_1_1",
    "openssl", "perl_5", "postgresql", "qpl_1_0", "ssleay", "sun", "zlib", "open_source", "restricted",
    "unrestricted", "unknown"}
REQUIRED = ["name", "version", "abstract", "maintainer", "license", "provides", "meta-spec"]
OPTIONAL = ["description", "generated_by", "tags", "no_index", "prereqs", "release_status", "resources"]
PHASES = {"configure", "build", "test", "runtime", "develop"}
RELATIONS = {"requires", "recommends", "suggests", "conflicts"}


def custom(key):
    return isinstance(key, str) and re.match(r"^[xX]_.", key) is not None


def unknown_keys(obj, allowed, where, errors):
    for key in obj:
        if key not in allowed and not custom(key):
            errors.append(f"{where}: unknown key {key!r}")


def nonempty_string(value):
    return isinstance(value, str) and len(value) > 0


def check_version_range(value):
    if value == 0 or value == "0":
        return True
    if not isinstance(value, str):
        return False
    for part in value.split(","):
        part = re.sub(r"^\s*([=!]=|[<>]=?)?\s*", "", part).strip()
        if not SEMVER.match(part):
            return False
    return True


def path_list(value):
    items = value if isinstance(value, list) else [value]
    return (len(items) > 0 and all(nonempty_string(p) for p in items)
            and (not isinstance(value, list) or len(set(items)) == len(items)))


def spec_errors(meta):
    """What keeps meta from being valid PGXN Meta Spec 1.0.0."""
    errors = []
    if not isinstance(meta, dict):
        return ["the document is not a JSON object"]
    for key in REQUIRED:
        if key not in meta:
            errors.append(f"missing required key {key!r}")
    unknown_keys(meta, REQUIRED + OPTIONAL, "top level", errors)

    if "name" in meta and not (isinstance(meta["name"], str) and TERM.match(meta["name"])):
        errors.append("name is not a term (2+ characters, no slash, backslash, space or control)")
    if "version" in meta and not (isinstance(meta["version"], str) and SEMVER.match(meta["version"])):
        errors.append(f"version {meta['version']!r} is not a semantic version (X.Y.Z)")
    for key in ("abstract", "description", "generated_by"):
        if key in meta and not nonempty_string(meta[key]):
            errors.append(f"{key} is not a non-empty string")
    if "maintainer" in meta:
        m = meta["maintainer"]
        if not (nonempty_string(m) or (isinstance(m, list) and m and all(nonempty_string(x) for x in m))):
            errors.append("maintainer is not a non-empty string or list of them")
    if "license" in meta:
        lic = meta["license"]
        ok = (lic in LICENSES if isinstance(lic, str) else
              isinstance(lic, list) and lic and all(isinstance(x, str) and x in LICENSES for x in lic) or
              isinstance(lic, dict) and lic and all(isinstance(v, str) and URI.match(v) for v in lic.values()))
        if not ok:
            errors.append(f"license {lic!r} is not a known license name, a list of them, or names mapped to URIs")
    if "meta-spec" in meta:
        ms = meta["meta-spec"]
        if not isinstance(ms, dict) or not isinstance(ms.get("version"), str) \
                or not re.match(r"^1\.0\.\d+$", ms["version"]):
            errors.append("meta-spec.version is not 1.0.x")
        elif "url" in ms and ms["url"] not in ("https://pgxn.org/meta/spec.txt", "http://pgxn.org/meta/spec.txt"):
            errors.append("meta-spec.url is not the spec's address")
        if isinstance(ms, dict):
            unknown_keys(ms, ["version", "url"], "meta-spec", errors)
    if "provides" in meta:
        provides = meta["provides"]
        if not isinstance(provides, dict) or not provides:
            errors.append("provides is not a non-empty object")
        else:
            for ext, entry in provides.items():
                where = f"provides.{ext}"
                if not TERM.match(ext):
                    errors.append(f"{where}: the extension name is not a term")
                if not isinstance(entry, dict):
                    errors.append(f"{where} is not an object")
                    continue
                for key in ("file", "version"):
                    if key not in entry:
                        errors.append(f"{where}: missing required key {key!r}")
                if "version" in entry and not (isinstance(entry["version"], str) and SEMVER.match(entry["version"])):
                    errors.append(f"{where}.version is not a semantic version")
                for key in ("file", "docfile", "abstract"):
                    if key in entry and not nonempty_string(entry[key]):
                        errors.append(f"{where}.{key} is not a non-empty string")
                unknown_keys(entry, ["file", "version", "abstract", "docfile"], where, errors)
    if "release_status" in meta and meta["release_status"] not in ("stable", "testing", "unstable"):
        errors.append("release_status is not stable, testing or unstable")
    if "tags" in meta:
        tags = meta["tags"]
        if not isinstance(tags, list) or not tags or not all(isinstance(t, str) and TAG.match(t) for t in tags):
            errors.append("tags is not a non-empty list of tags (2-255 characters, no slash, backslash or control)")
    if "no_index" in meta:
        ni = meta["no_index"]
        if not isinstance(ni, dict) or not ({"file", "directory"} & set(ni)):
            errors.append("no_index names neither file nor directory")
        else:
            unknown_keys(ni, ["file", "directory"], "no_index", errors)
            for key in ("file", "directory"):
                if key in ni and not path_list(ni[key]):
                    errors.append(f"no_index.{key} is not a path or a list of distinct paths")
    if "prereqs" in meta:
        prereqs = meta["prereqs"]
        if not isinstance(prereqs, dict) or not prereqs:
            errors.append("prereqs is not a non-empty object")
        else:
            unknown_keys(prereqs, sorted(PHASES), "prereqs", errors)
            for phase, relations in prereqs.items():
                if custom(phase):
                    continue
                if not isinstance(relations, dict) or not relations:
                    errors.append(f"prereqs.{phase} is not a non-empty object")
                    continue
                unknown_keys(relations, sorted(RELATIONS), f"prereqs.{phase}", errors)
                for relation, deps in relations.items():
                    if custom(relation):
                        continue
                    if not isinstance(deps, dict):
                        errors.append(f"prereqs.{phase}.{relation} is not an object")
                        continue
                    for dep, rng in deps.items():
                        if not check_version_range(rng):
                            errors.append(f"prereqs.{phase}.{relation}.{dep}: {rng!r} is not a version range")
    if "resources" in meta:
        res = meta["resources"]
        if not isinstance(res, dict) or not res:
            errors.append("resources is not a non-empty object")
        else:
            unknown_keys(res, ["homepage", "bugtracker", "repository"], "resources", errors)
            if "homepage" in res and not (isinstance(res["homepage"], str) and URI.match(res["homepage"])):
                errors.append("resources.homepage is not a URI")
            for key, fields in (("bugtracker", ["web", "mailto"]), ("repository", ["url", "web", "type"])):
                if key not in res:
                    continue
                if not isinstance(res[key], dict) or not res[key]:
                    errors.append(f"resources.{key} is not a non-empty object")
                    continue
                unknown_keys(res[key], fields, f"resources.{key}", errors)
                for field in ("web", "url"):
                    if field in res[key] and not (isinstance(res[key][field], str) and URI.match(res[key][field])):
                        errors.append(f"resources.{key}.{field} is not a URI")
    return errors


def control_versions():
    """{extension: default_version} of the *.control files at the root."""
    versions = {}
    for path in sorted(glob.glob("*.control")):
        with open(path) as f:
            m = re.search(r"^\s*default_version\s*=\s*'([^']*)'", f.read(), re.M)
        versions[os.path.splitext(path)[0]] = m.group(1) if m else None
    return versions


def semver_of(version):
    """An extension version as SemVer: 1.1 is 1.1.0."""
    parts = version.split(".")
    return ".".join(parts + ["0"] * (3 - len(parts))) if 1 <= len(parts) <= 3 else version


def load(path="META.json"):
    with open(path) as f:
        return json.load(f)


def named_files(meta):
    files = []
    for entry in meta.get("provides", {}).values():
        files += [entry[k] for k in ("file", "docfile") if k in entry]
    for key in ("file", "directory"):
        value = meta.get("no_index", {}).get(key, [])
        files += value if isinstance(value, list) else [value]
    return files


def main(argv):
    what = argv[1] if len(argv) > 1 else ""
    try:
        meta = load()
    except (OSError, ValueError) as e:
        print(f"META.json does not parse: {e}")
        return 1
    errors = []
    if what == "spec":
        errors = spec_errors(meta)
    elif what == "version":
        controls = control_versions()
        main_version = controls.get(meta.get("name"))
        if main_version is None:
            errors.append(f"no {meta.get('name')}.control with a default_version")
        elif meta.get("version") != semver_of(main_version):
            errors.append(f"version {meta.get('version')!r} is not default_version {main_version!r} "
                          f"as SemVer ({semver_of(main_version)!r})")
        for ext, entry in meta.get("provides", {}).items():
            if ext in controls and controls[ext] and entry.get("version") != semver_of(controls[ext]):
                errors.append(f"provides.{ext}.version {entry.get('version')!r} is not "
                              f"{semver_of(controls[ext])!r} ({ext}.control)")
    elif what == "provides":
        provided, controls = set(meta.get("provides", {})), set(control_versions())
        if provided != controls:
            errors.append(f"provides lists {sorted(provided)}, the control files are {sorted(controls)}")
    elif what == "files":
        for path in named_files(meta):
            if not os.path.exists(path):
                errors.append(f"META.json names {path}, which does not exist")
    elif what == "prereqs":
        with open("src/pg/pg_compat.h") as f:
            m = re.search(r"#if PG_VERSION_NUM < (\d+)0000\s*\n#error", f.read())
        minimum = f"{m.group(1)}.0.0" if m else None
        required = meta.get("prereqs", {}).get("runtime", {}).get("requires", {}).get("PostgreSQL")
        if minimum is None or required != minimum:
            errors.append(f"prereqs.runtime.requires.PostgreSQL is {required!r}; "
                          f"src/pg/pg_compat.h refuses versions below {minimum!r}")
    elif what == "self-test":
        if spec_errors(meta):
            errors.append("META.json itself is not valid; run the spec check")
        broken = []
        for key in REQUIRED:  # each required key removed
            b = copy.deepcopy(meta)
            b.pop(key, None)
            broken.append((f"without {key}", b))
        for key, value in (("version", "1.1"), ("license", "PostgreSQL License"), ("release_status", "final"),
                           ("provides", {}), ("meta-spec", {"version": "2.0.0"}), ("name", "a b"),
                           ("tags", ["a/b"]), ("resources", {"homepage": "not a uri"}),
                           ("prereqs", {"runtime": {"requires": {"PostgreSQL": "15"}}}), ("unknown", 1)):
            b = copy.deepcopy(meta)
            b[key] = value
            broken.append((f"{key} = {value!r}", b))
        for ext in meta.get("provides", {}):
            for key in ("file", "version"):
                b = copy.deepcopy(meta)
                del b["provides"][ext][key]
                broken.append((f"provides.{ext} without {key}", b))
        for name, b in broken:
            if not spec_errors(b):
                errors.append(f"the spec check accepts META.json with {name}")
    elif what == "zip" and len(argv) > 2:
        version = control_versions().get(meta.get("name"))
        prefix = f"{meta.get('name')}-{version}/"
        with zipfile.ZipFile(argv[2]) as z:
            names = z.namelist()
            if not names or any(not n.startswith(prefix) for n in names):
                errors.append(f"not every path of {argv[2]} starts with {prefix}")
            packed = json.loads(z.read(prefix + "META.json")) if prefix + "META.json" in names else {}
            for path in ["META.json", "LICENSE", "Makefile"] + named_files(packed) + sorted(glob.glob("*.control")):
                if prefix + path not in names and prefix + path + "/" not in names:
                    errors.append(f"{argv[2]} lacks {prefix}{path}")
            if packed and (spec_errors(packed) or packed.get("version") != semver_of(version)):
                errors.append(f"{argv[2]}'s META.json is not valid, or not of version {semver_of(version)}")
    else:
        print(__doc__)
        return 2
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
