#!/usr/bin/env python3
"""The test suite's baseline (test/baseline.json): what each part may skip.

Owns the reading of test/baseline.json and the suite's closing judgement.

As a module (run.py and prune_diff.py import it):
    part(name) -> the part's entry: {"floor": N, "max_skips": N,
                  "skips": {case: reason}, "refused": {case: feature},
                  "microseconds": {case: why}} (missing keys: empty / 0).

As a command (run-tests.sh, at the end):
    python3 test/baseline.py check LOG...
    python3 test/baseline.py self-test
reads the logs of the parts.  A part reports itself with one line
    <part>: N passed, N failed, N skipped        (", N skipped" may be absent: 0)
and names each skipped case on a line of its own before that summary:
    SKIP <case>: <reason>
For every part it checks against the baseline: skips <= max_skips (default:
the number of listed skips and refusals), passes >= floor, every skipped
case listed (under "skips" or "refused").  A part absent from the baseline
may skip nothing and has no floor.  A part of the baseline that did not
report fails too.  Prints one line per broken rule ("BASELINE <part>: ..."),
then "baseline: N passed, N failed, 0 skipped" (one check per part) and the
suite's closing line "N passed, N failed, N skipped" summing every part and
the baseline checks.  Exit 0 only if nothing failed.

Updating the baseline is a deliberate commit: edit test/baseline.json, say
in the commit message why a case may now be skipped or why the floor moved.
"""

import json
import os
import re
import sys

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "baseline.json")
SUMMARY_RE = re.compile(r"^([a-z][a-z0-9-]*): (\d+) passed, (\d+) failed(?:, (\d+) skipped)?")
SKIP_RE = re.compile(r"^SKIP (\S+?)(?::\s|$)(.*)")

_cache = None


def load():
    global _cache
    if _cache is None:
        with open(PATH, encoding="utf-8") as fh:
            _cache = json.load(fh)
    return _cache


def part(name):
    """The baseline entry of one part, with every key present.  A part with
    "like": OTHER takes OTHER's skips, refusals and microsecond cases where
    it lists none of its own (the same cases run another way)."""
    parts = load().get("parts", {})
    e = dict(parts.get(name) or {})
    like = dict(parts.get(e["like"]) or {}) if e.get("like") else {}
    for k in ("skips", "refused", "microseconds"):
        e[k] = dict(e.get(k) or like.get(k) or {})
    e.setdefault("floor", 0)
    e.setdefault("max_skips", len(e["skips"]) + len(e["refused"]))
    return e


def read_logs(paths):
    """[(part, passed, failed, skipped, [skipped case names])] in log order;
    SKIP lines belong to the next summary line of the same log."""
    out = []
    for p in paths:
        pending = []
        try:
            lines = open(p, encoding="utf-8", errors="replace").read().splitlines()
        except OSError as e:
            out.append(("logs", 0, 1, 0, []))
            print("BASELINE cannot read %s: %s" % (p, e))
            continue
        for ln in lines:
            m = SKIP_RE.match(ln)
            if m:
                pending.append(m.group(1))
                continue
            m = SUMMARY_RE.match(ln)
            if m:
                out.append((m.group(1), int(m.group(2)), int(m.group(3)),
                            int(m.group(4) or 0), pending))
                pending = []
    return out


def check(paths):
    parts = read_logs(paths)
    tp = tf = ts = 0
    bp = bf = 0
    seen = set()
    for name, p, f, s, names in parts:
        tp += p
        tf += f
        ts += s
        seen.add(name)
        b = part(name)
        why = []
        if s > b["max_skips"]:
            why.append("%d skipped, the baseline allows %d" % (s, b["max_skips"]))
        if p < b["floor"]:
            why.append("%d passed, below the floor of %d" % (p, b["floor"]))
        listed = set(b["skips"]) | set(b["refused"])
        unlisted = sorted(set(n for n in names if n not in listed))
        if unlisted:
            why.append("skipped but not listed: %s" % ", ".join(unlisted[:10]) +
                       (" (and %d more)" % (len(unlisted) - 10) if len(unlisted) > 10 else ""))
        if len(names) < s:
            why.append("%d skips not named by a SKIP line" % (s - len(names)))
        if why:
            bf += 1
            print("BASELINE %s: %s" % (name, "; ".join(why)))
        else:
            bp += 1
    for name, e in sorted(load().get("parts", {}).items()):
        if name not in seen and not e.get("optional"):
            bf += 1
            print("BASELINE %s: the part did not report (no '%s: N passed, ...' line)" % (name, name))
    print("baseline: %d passed, %d failed, 0 skipped" % (bp, bf))
    print("%d passed, %d failed, %d skipped" % (tp + bp, tf + bf, ts))
    return 0 if tf + bf == 0 else 1


def self_test():
    """The judgement on made-up logs against a made-up baseline."""
    import contextlib
    import io
    import tempfile
    global _cache
    saved = _cache
    _cache = {"parts": {"a": {"floor": 2, "skips": {"c1": "why"}}, "b": {"optional": True}}}
    bad = []
    try:
        with tempfile.TemporaryDirectory() as d:
            def run(text):
                p = os.path.join(d, "log")
                with open(p, "w") as fh:
                    fh.write(text)
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    rc = check([p])
                return rc, buf.getvalue().splitlines()[-1]
            for label, text, want in [
                    ("ok", "SKIP c1: x\na: 2 passed, 0 failed, 1 skipped\n", (0, "3 passed, 0 failed, 1 skipped")),
                    ("unlisted skip", "SKIP c2: x\na: 2 passed, 0 failed, 1 skipped\n", (1, "2 passed, 1 failed, 1 skipped")),
                    ("too many skips", "SKIP c1: x\nSKIP c1: y\na: 2 passed, 0 failed, 2 skipped\n",
                     (1, "2 passed, 1 failed, 2 skipped")),
                    ("below floor", "a: 1 passed, 0 failed, 0 skipped\n", (1, "1 passed, 1 failed, 0 skipped")),
                    ("unnamed skip", "a: 2 passed, 0 failed, 1 skipped\n", (1, "2 passed, 1 failed, 1 skipped")),
                    ("new part skips", "a: 2 passed, 0 failed, 0 skipped\nSKIP z: q\nnew: 5 passed, 0 failed, 1 skipped\n",
                     (1, "8 passed, 1 failed, 1 skipped")),
                    ("missing part", "new: 5 passed, 0 failed\n", (1, "6 passed, 1 failed, 0 skipped"))]:
                got = run(text)
                if got != want:
                    bad.append("%s: got %r, want %r" % (label, got, want))
    finally:
        _cache = saved
    for b in bad:
        print("self-test FAIL: " + b)
    print("self-test: %d failures" % len(bad))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "check":
        return check(argv[1:])
    if argv == ["self-test"]:
        return self_test()
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
