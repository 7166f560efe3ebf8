#!/usr/bin/env python3
"""Re-hash the stored hardware results after a change of the test-hash recipe.

Usage: scripts/rehash-hardware.py [--ptxmm BIN] [--check] [FILE...]
       (default files: docs/hardware/*.json and docs/hardware/*.log; BIN: $PTXMM or build/ptxmm)

A hardware result names its litmus file ("file" in the JSON, `% Results for FILE %` in the log) and
carries the hash of the test it ran ("hash" in the JSON, `Hash=` in the log). Model verdicts are
matched to hardware results by that hash (scripts/hw-table.py, ptxmm-hw --model-states), so when the
recipe changes the stored hashes must follow, and only the hashes: the results are evidence.

For each result the script runs `ptxmm parse FILE`, which prints the test's canonical form followed
by `Hash=<current hash>`. A stored hash is replaced by the current one only when it is the hash of
the file as it is now under the previous recipe (the MD5 of that canonical form, the recipe before
herd7's was adopted): the result was produced from this very test. Any other stored hash is left as
it is and reported as stale (the litmus file changed since the run, or is gone): such a result no
longer matches the test, which is the point of the hash.

--check changes nothing and exits 1 when some stored hash differs from the current one.
"""
import glob
import hashlib
import os
import re
import subprocess
import sys


class Hasher:
    def __init__(self, ptxmm):
        self.ptxmm = ptxmm
        self.cache = {}

    def hashes(self, path):
        """(previous-recipe hash, current hash) of a litmus file, or None if it cannot be parsed."""
        if path not in self.cache:
            if not os.path.exists(path):
                self.cache[path] = None
            else:
                r = subprocess.run([self.ptxmm, "parse", path], capture_output=True, text=True)
                m = re.search(r"^Hash=([0-9a-f]{32})\n\Z", r.stdout, re.M)
                if r.returncode != 0 or not m:
                    self.cache[path] = None
                else:
                    canonical = r.stdout[: m.start()]
                    self.cache[path] = (hashlib.md5(canonical.encode()).hexdigest(), m.group(1))
        return self.cache[path]


def new_hash(hasher, path, stored, report, where):
    """The hash to store for a result of `path` that carries `stored`; reports what it does."""
    h = hasher.hashes(path)
    if h is None:
        report["stale"].append(f"{where}: {path}: missing or does not parse; hash {stored} kept")
        return stored
    old, cur = h
    if stored == cur:
        report["current"] += 1
        return stored
    if stored == old:
        report["rehashed"] += 1
        return cur
    report["stale"].append(f"{where}: {path}: stored hash {stored} is neither the current {cur} nor {old}; kept")
    return stored


def rehash_json(hasher, name, text, report):
    # Only the "hash" value that follows a result's "file" member is rewritten, in place, so that the
    # rest of the file stays byte for byte as the campaign wrote it.
    out = []
    pos = 0
    pattern = re.compile(r'"file": "([^"]+)",\n(\s*)"hash": "([0-9a-f]{32})"')
    for m in pattern.finditer(text):
        h = new_hash(hasher, m.group(1), m.group(3), report, name)
        out.append(text[pos : m.start(3)])
        out.append(h)
        pos = m.end(3)
    out.append(text[pos:])
    found = len(pattern.findall(text))
    expected = text.count('"hash": "')
    if found != expected:
        report["stale"].append(f"{name}: {expected - found} hash field(s) not after a \"file\" member; kept")
    return "".join(out)


def rehash_log(hasher, name, text, report):
    lines = text.split("\n")
    current = None
    for i, line in enumerate(lines):
        m = re.match(r"^% Results for (.+) %$", line)
        if m:
            current = m.group(1)
            continue
        m = re.match(r"^Hash=([0-9a-f]{32})$", line)
        if m and current is not None:
            lines[i] = "Hash=" + new_hash(hasher, current, m.group(1), report, name)
    return "\n".join(lines)


def main():
    args = sys.argv[1:]
    ptxmm = os.environ.get("PTXMM", "build/ptxmm")
    check = False
    files = []
    while args:
        a = args.pop(0)
        if a == "--ptxmm":
            ptxmm = args.pop(0)
        elif a == "--check":
            check = True
        elif a.startswith("-"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            files.append(a)
    if not files:
        files = sorted(glob.glob("docs/hardware/*.json") + glob.glob("docs/hardware/*.log"))
    hasher = Hasher(ptxmm)
    total = {"current": 0, "rehashed": 0, "stale": []}
    for f in files:
        text = open(f).read()
        report = {"current": 0, "rehashed": 0, "stale": []}
        new = (rehash_json if f.endswith(".json") else rehash_log)(hasher, f, text, report)
        if not check and new != text:
            with open(f, "w") as out:
                out.write(new)
        print(f"{f}: {report['current']} current, {report['rehashed']} "
              f"{'to re-hash' if check else 're-hashed'}, {len(report['stale'])} stale")
        for k in ("current", "rehashed"):
            total[k] += report[k]
        total["stale"] += report["stale"]
    for s in total["stale"]:
        print("stale: " + s)
    if check:
        return 1 if total["rehashed"] or total["stale"] else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
