#!/usr/bin/env python3
"""Differential test: pruning and predicate pushdown never change results.

Owns test/conformance/prune_diff.py.  For every readable table under
../shared/testdata (read in place, nothing copied) it creates a foreign
table the way the conformance runner does (run.py's type mapping, options
and skip rules: this file imports it), materialises the unfiltered scan into
a heap table "ref", and then checks, for a bounded, seeded set of
predicates generated from the values actually in the table, that

    SELECT * FROM ft WHERE p   =   SELECT * FROM ref WHERE p    (multisets,
                                                                EXCEPT ALL both ways)
    SELECT count(*) FROM ft WHERE p = the same count over ref   (count(*) may
                                                                come from metadata)
    SELECT * FROM ft WHERE p LIMIT k  is k (or all) rows of that answer

The scan turns quals into a predicate tree and prunes partitions, buckets,
data files (manifest value stats) and Parquet row groups / ORC stripes with
it; PostgreSQL rechecks every qual, so any difference means something was
pruned that held a matching row (or a count came from metadata wrongly).

Predicates: comparisons (= <> < <= > >=), BETWEEN, IN (with a value absent
from the table, with NULL), NOT IN, IS [NOT] NULL, values just below the
minimum / above the maximum, partition keys especially, literals of another
comparable type (int column vs bigint / numeric, text vs varchar / bpchar,
date vs timestamp, timestamp vs date / timestamptz, float vs -0 / NaN /
infinities), string ranges under COLLATE "C" (the only ones pushed), LIKE
prefixes, and AND / OR / NOT of two columns, also with a conjunct the scan
cannot use; generic-plan Params, LATERAL rescans, count(*) GROUP BY the
partition keys and LIMIT without quals.  Variants: each table at its
latest snapshot, plus up to two of the time-travel / branch / fallback /
partition_filter option sets the oracle cases use (or, without any, its
columns declared in another order), with fewer predicates each.  Tables
that track rows also get _ROW_ID and _SEQUENCE_NUMBER.  Tables whose
writer built file indexes (a file-index.<kind>.columns option) run their
first predicates once more with tablescan.enable_file_index = off: index
use on and off both give the reference's rows.

The reference itself is the extension's own unfiltered read; for Parquet
append tables (one schema, flat columns, no deletion vectors, latest snapshot
or scan.snapshot-id) it is checked first against an independent read: DuckDB's
read_parquet of the live files tablescan_files() names, found on disk
(test/parquet/duck_ref.mjs; TIMESTAMP(7..9) columns left out, DuckDB truncates
them).  A listed file missing on disk fails that check.

A variant whose foreign table cannot be created or whose unfiltered
reference read errors is a FAIL (one failed check), as is a check that
errors.  Held to test/baseline.json (part "prune-diff"): a refusal ("not
supported yet") is a SKIP only for a variant listed under "refused" with the
feature it needs, a variant that cannot be mapped (column type, no schema)
only for one listed under "skips".  Prints "FAIL <table>[@variant]: WHERE
<predicate>: <what differs>" per mismatch (-v: PASS lines and timings too),
SKIP lines, a summary with the time taken, and closes with exactly

    prune-diff: N passed, N failed, N skipped

(one check = one predicate on one table variant; a skipped variant counts
one skip).  Exit 0 unless --strict
and something failed; 2 if the harness cannot run.  Python 3 standard
library and psql (PG* environment variables), like run.py.
"""

import argparse
import collections
import concurrent.futures
import decimal
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as conf  # noqa: E402  (the conformance runner: types, options, psql plumbing)
import baseline  # noqa: E402  (test/baseline.py: the allowed skips and refusals)

SCHEMA_PREFIX = "tsprune_"
MAX_PREDICATES = 50         # per latest-snapshot table
MAX_VARIANT_PREDICATES = 12  # per extra (time-travel / branch / filter) variant
INDEX_OFF_PREDICATES = 12   # per table with file indexes: again with index use off
MAX_VARIANTS = 2             # extra variants per table (one per kind of option set)
BIG_TABLE_BYTES = 1 << 20    # a reference copy larger than this gets ...
BIG_TABLE_PREDICATES = 12    # ... this many predicates (blob tables)
SEED = 20261130

# options that select another view of the table (a variant), not how to read it
VARIANT_OPTIONS = {"scan.snapshot-id", "branch", "scan.fallback-branch",
                   "partition_filter", "bucket_filter", "scan.tag-name", "scan.mode",
                   "merge-engine", "ignore-delete", "fields.f3.aggregate-function",
                   "file-index.read.enabled"}


# ---------------------------------------------------------------------------
# Tables and their variants
# ---------------------------------------------------------------------------

class Variant:
    """One foreign table to check: options, columns, partition keys."""

    def __init__(self, name, table, options, columns, partition_keys):
        self.name = name                  # printed: <table>[@options]
        self.table = table                # relative to testdata
        self.options = options            # [(key, value)] incl. path
        self.columns = columns            # [(name, PType)]
        self.partition_keys = partition_keys
        self.bucket_keys = []             # fixed-bucket tables: the bucket key
        self.file_index = False           # its writer built file indexes
        self.skip = None


def schema_type_text(t):
    """A Paimon schema-file type (string or nested object) as a type string
    run.parse_type reads."""
    if isinstance(t, str):
        return t
    kind = re.sub(r"\s+NOT\s+NULL\s*$", "", t["type"].strip(), flags=re.I).upper()
    if kind in ("ARRAY", "MULTISET"):
        return "%s<%s>" % (kind, schema_type_text(t["element"]))
    if kind == "MAP":
        return "MAP<%s, %s>" % (schema_type_text(t["key"]), schema_type_text(t["value"]))
    if kind == "ROW":
        return "ROW<%s>" % ", ".join("`%s` %s" % (f["name"].replace("`", "``"),
                                                   schema_type_text(f["type"]))
                                      for f in t["fields"])
    return kind


def latest_schema(table_dir):
    """The newest schema file of a table (or branch) directory, parsed."""
    sdir = os.path.join(table_dir, "schema")
    try:
        ids = [int(f[len("schema-"):]) for f in os.listdir(sdir)
               if re.fullmatch(r"schema-\d+", f)]
    except OSError:
        return None
    if not ids:
        return None
    with open(os.path.join(sdir, "schema-%d" % max(ids)), encoding="utf-8") as fh:
        return json.load(fh)


def schema_columns(schema):
    cols = []
    for f in schema.get("fields") or []:
        t = conf.parse_type(schema_type_text(f["type"]))
        conf.pg_type(t)
        cols.append((f["name"], t))
    return cols


def bucket_keys(schema):
    """The bucket key of a fixed-bucket table (bucket-key, else the primary
    key without the partition keys), [] otherwise."""
    opts = schema.get("options") or {}
    try:
        if int(opts.get("bucket", "-1")) <= 0:
            return []
    except ValueError:
        return []
    if opts.get("bucket-key"):
        return [k.strip() for k in opts["bucket-key"].split(",") if k.strip()]
    parts = set(schema.get("partitionKeys") or [])
    return [k for k in schema.get("primaryKeys") or [] if k not in parts]


def find_tables(testdata):
    """Table directories under testdata: those holding schema/ (branches excluded)."""
    out = []
    for root, dirs, _ in os.walk(testdata):
        rel = os.path.relpath(root, testdata)
        if "schema" in dirs and "/branch/" not in "/" + rel + "/":
            out.append(rel)
            dirs[:] = []            # a table's own subdirectories hold no tables
        dirs.sort()
    return sorted(out)


def plan_variants(shared):
    """Every table (latest snapshot) plus the distinct option sets of the
    oracle's row cases, as Variants (some with skip set)."""
    testdata = os.path.join(shared, "testdata")
    by_table = collections.defaultdict(list)     # table -> [CasePlan]
    case_skips = {}
    for case in conf.load_cases(shared):
        cp = conf.build_case(case, shared)
        tbl = case.get("table")
        if not tbl:
            continue
        if cp.skip:
            case_skips.setdefault(tbl, cp.skip)
            continue
        if any(q.kind in ("rows", "count") and not q.skip for q in cp.queries):
            by_table[tbl].append(cp)

    variants = []
    for tbl in find_tables(testdata):
        tdir = os.path.abspath(os.path.join(testdata, tbl))
        schema = latest_schema(tdir)
        cps = by_table.get(tbl, [])
        # options every read of the table needs (external data paths)
        base = [("path", tdir)]
        for cp in cps:
            for k, v in cp.table_options:
                if k == "external-path-map" and (k, v) not in base:
                    base.append((k, v))
        v = Variant(tbl, tbl, base, [], [])
        try:
            v.columns = schema_columns(schema) if schema else []
            v.partition_keys = list(schema.get("partitionKeys") or []) if schema else []
            v.bucket_keys = bucket_keys(schema) if schema else []
        except (ValueError, KeyError) as e:
            v.skip = "column type not mapped: %s" % e
        if not v.skip and not v.columns:
            v.skip = "no schema" if schema is None else "no columns"
        # file-index.<kind>.columns: its predicates run once more with index use off
        v.file_index = bool(schema) and any(
            k.startswith("file-index.") and k.endswith(".columns")
            for k in (schema.get("options") or {}))
        # the row-tracking system columns, where the table tracks rows
        tracking = schema and str((schema.get("options") or {}).get(
            "row-tracking.enabled", "")).lower() == "true"
        for name in sorted(conf.SUPPORTED_SYSTEM_COLUMNS if tracking else
                           {n for cp in cps for n, _ in cp.columns
                            if n in conf.SUPPORTED_SYSTEM_COLUMNS}):
            if not v.skip and name not in [n for n, _ in v.columns]:
                v.columns.append((name, conf.parse_type("BIGINT")))
        variants.append(v)

        seen = {tuple(base)}
        kinds = set()
        for cp in cps:
            if len(seen) > MAX_VARIANTS:
                break
            opts = [(k, val) for k, val in cp.table_options]
            extra = [(k, val) for k, val in opts if k in VARIANT_OPTIONS]
            kind = tuple(sorted(k for k, _ in extra))
            if not extra or tuple(opts) in seen or kind in kinds:
                continue
            kinds.add(kind)
            seen.add(tuple(opts))
            label = ",".join("%s=%s" % (k, val) for k, val in extra)
            cols = [(n, t) for n, t in cp.columns if not conf.is_system_column({"name": n, "type": ""})] \
                + [(n, t) for n, t in cp.columns if n in conf.SUPPORTED_SYSTEM_COLUMNS]
            pks = v.partition_keys
            bdir = dict(opts).get("branch")
            if bdir:
                bs = latest_schema(os.path.join(tdir, "branch", "branch-" + bdir))
                if bs:
                    pks = list(bs.get("partitionKeys") or [])
            variants.append(Variant("%s@%s" % (tbl, label), tbl, opts, cols, pks))
            variants[-1].bucket_keys = v.bucket_keys
        if len(seen) == 1 and not v.skip and len(v.columns) >= 3:
            # the columns in another order, one left out: quals map by name
            cols = list(reversed(v.columns[1:]))
            variants.append(Variant("%s@columns=reversed" % tbl, tbl, base, cols,
                                    v.partition_keys))
            variants[-1].bucket_keys = v.bucket_keys
    return variants


# ---------------------------------------------------------------------------
# Predicate generation (from the values in ref)
# ---------------------------------------------------------------------------

INT_KINDS = ("TINYINT", "SMALLINT", "INT", "BIGINT")
INT_RANGE = {"TINYINT": (-32768, 32767), "SMALLINT": (-32768, 32767),   # smallint in PG
             "INT": (-2 ** 31, 2 ** 31 - 1), "BIGINT": (-2 ** 63, 2 ** 63 - 1)}
COMPARABLE = set(INT_KINDS) | {"FLOAT", "DOUBLE", "DECIMAL", "DATE", "TIMESTAMP",
                               "TIMESTAMP_LTZ", "STRING", "VARCHAR", "CHAR", "BOOLEAN",
                               "BINARY", "VARBINARY", "BYTES", "TIME"}
STRING_KINDS = ("STRING", "VARCHAR", "CHAR")
OPS = ("=", "<>", "<", "<=", ">", ">=")


def q(s):
    return conf.quote_literal(s)


def stats_sql(v):
    """One JSON object per column: its distinct non-NULL values as text in
    order (strings in byte order), the row and NULL counts."""
    parts = []
    for name, t in v.columns:
        col = conf.quote_ident(name)
        counts = "'n', count(*), 'nulls', count(*) FILTER (WHERE %s IS NULL)" % col
        if t.kind not in COMPARABLE:
            parts.append("json_build_object(%s)" % counts)
            continue
        coll = ' COLLATE "C"' if t.kind in STRING_KINDS else ""
        parts.append("json_build_object(%s, 'vals', (SELECT json_agg(x::text ORDER BY x%s) "
                     "FROM (SELECT DISTINCT %s AS x FROM %%(ref)s WHERE %s IS NOT NULL) d))"
                     % (counts, coll, col, col))
    return "SELECT json_build_array(%s) FROM %%(ref)s" % ", ".join(parts)


def key_rows_sql(v):
    """A few rows of the bucket key columns (as text, NULL kept)."""
    keys = [conf.quote_ident(n) for n, _ in v.columns if n in v.bucket_keys]
    if not keys:
        return "SELECT '[]'::json"
    row = "json_build_array(%s)" % ", ".join("%s::text" % k for k in keys)
    return ("SELECT coalesce(json_agg(r ORDER BY r::text), '[]') FROM (SELECT DISTINCT %s::jsonb AS r "
            "FROM %%(ref)s) s WHERE r::text IS NOT NULL" % row)


class Gen:
    """Leaves and combinations for one variant, from its column values."""

    def __init__(self, variant, stats, rng):
        self.v = variant
        self.rng = rng
        self.cols = []              # (name, PType, vals, nulls, n)
        for (name, t), st in zip(variant.columns, stats):
            self.cols.append((name, t, st.get("vals") or [], st.get("nulls", 0), st.get("n", 0)))

    def pick(self, vals, k=1):
        if not vals:
            return []
        return [vals[self.rng.randrange(len(vals))] for _ in range(k)]

    # ---- literals of the column's own type ----
    def lit(self, t, s):
        k = t.kind
        if k in INT_KINDS:
            return "(%s)" % s if s.startswith("-") else s
        if k == "FLOAT":
            return q(s) + "::real"
        if k == "DOUBLE":
            return q(s) + "::float8"
        if k == "DECIMAL":
            return q(s) + "::numeric"
        if k in ("STRING", "VARCHAR"):
            return q(s)
        if k == "CHAR":
            return q(s) + "::bpchar"
        if k in ("BINARY", "VARBINARY", "BYTES"):
            return q(s) + "::bytea"
        if k == "BOOLEAN":
            return s
        return q(s) + "::" + {"DATE": "date", "TIMESTAMP": "timestamp",
                              "TIMESTAMP_LTZ": "timestamptz", "TIME": "time"}[k]

    def leaves(self, name, t, vals, nulls, n):
        """All candidate leaves of one column (SQL text)."""
        c = conf.quote_ident(name)
        k = t.kind
        out = ["%s IS NULL" % c, "%s IS NOT NULL" % c]
        if k not in COMPARABLE or not vals:
            return out
        L = lambda s: self.lit(t, s)        # noqa: E731
        a, b = sorted(self.pick(vals, 2), key=vals.index)
        mid = self.pick(vals)[0]
        lo, hi = vals[0], vals[-1]
        if k == "BOOLEAN":
            return out + [c, "NOT %s" % c, "%s = true" % c, "%s = false" % c,
                          "%s <> true" % c, "%s IS TRUE" % c, "%s IS NOT FALSE" % c,
                          "%s IN (true, NULL)" % c]
        for op in OPS:
            out.append("%s %s %s" % (c, op, L(self.pick(vals)[0])))
        coll = ' COLLATE "C"' if k in STRING_KINDS else ""
        out += ["%s <= %s%s" % (c, L(lo), coll), "%s >= %s%s" % (c, L(hi), coll),
                "%s < %s%s" % (c, L(lo), coll), "%s > %s%s" % (c, L(hi), coll),
                "%s = %s" % (c, L(lo)), "%s = %s" % (c, L(hi)),
                "%s BETWEEN %s AND %s%s" % (c, L(a), L(b), coll),
                "%s NOT BETWEEN %s AND %s%s" % (c, L(a), L(b), coll),
                "%s IN (%s)" % (c, ", ".join(L(x) for x in sorted(set(self.pick(vals, 3))))),
                "%s NOT IN (%s)" % (c, ", ".join(L(x) for x in sorted(set(self.pick(vals, 2))))),
                "%s IN (%s, NULL)" % (c, L(mid)),
                "%s NOT IN (%s, NULL)" % (c, L(mid)),
                "%s = %s OR %s = %s" % (c, L(a), c, L(b)),
                "NOT (%s = %s)" % (c, L(mid)),
                "%s = (SELECT %s FROM %%(ref)s WHERE %s IS NOT NULL ORDER BY 1 DESC LIMIT 1)" % (c, c, c)]
        if k in INT_KINDS:
            rmin, rmax = INT_RANGE[k]
            m = int(mid)
            out += ["%s < %d" % (c, int(lo)), "%s <= %d" % (c, int(lo) - 1),
                    "%s > %d" % (c, int(hi)), "%s >= %d" % (c, int(hi) + 1),
                    "%s = %d" % (c, int(hi) + 1), "%s IN (%s, %d)" % (c, mid, int(hi) + 1),
                    "%s NOT IN (%s, %d)" % (c, mid, int(lo) - 1),
                    "%s = %s::bigint" % (c, mid), "%s = %s::numeric" % (c, mid),
                    "%s = %s.0" % (c, mid), "%s < %s.5" % (c, mid), "%s > %s.5" % (c, mid),
                    "%s >= (%d)::numeric - 0.5" % (c, m), "%s = %d.5" % (c, m),
                    "%s IN (%s::bigint, %d::bigint)" % (c, mid, int(hi) + 1),
                    "%s IN (%s.0, %d.00)" % (c, mid, int(lo)),
                    "%s < %d" % (c, rmax + 1), "%s > %d" % (c, rmin - 1),
                    "%s = %d" % (c, rmax + 1), "%s <> %d" % (c, rmax + 1),
                    "%s = %s::float8" % (c, mid), "%s < %s.5::float8" % (c, mid),
                    # long IN lists, a constant and an initplan's array
                    "%s IN (%s)" % (c, ", ".join(str(x) for x in range(int(lo) - 3, int(lo) + 1200))),
                    "%s = ANY(ARRAY(SELECT generate_series(%d, %d)))" % (c, int(hi) - 1500, int(hi) + 2)]
            if k != "BIGINT":
                out += ["%s < 9999999999" % c, "%s >= -9999999999" % c,
                        "%s = %s::smallint" % (c, mid) if -32768 <= m <= 32767 else "%s = %s" % (c, mid)]
            if k in ("SMALLINT", "TINYINT"):
                out += ["%s = %s::int" % (c, mid), "%s > 200" % c, "%s < -200" % c, "%s <= 127" % c]
        elif k in ("FLOAT", "DOUBLE"):
            ty = "real" if k == "FLOAT" else "float8"
            other = "float8" if k == "FLOAT" else "real"
            out += ["%s = 'NaN'::%s" % (c, ty), "%s < 'NaN'::%s" % (c, ty),
                    "%s >= 'NaN'::%s" % (c, ty), "%s <> 'NaN'::%s" % (c, ty),
                    "%s = '-0'::%s" % (c, ty), "%s = 0" % c, "%s <= '-0'::%s" % (c, ty),
                    "%s >= '0'::%s" % (c, ty), "%s > '-0'::%s" % (c, ty), "%s < '0'::%s" % (c, ty),
                    "%s > '-Infinity'::%s" % (c, ty), "%s < 'Infinity'::%s" % (c, ty),
                    "%s = %s::%s" % (c, q(mid), other), "%s < %s::%s" % (c, q(mid), other),
                    "%s >= %s::%s" % (c, q(hi), other), "%s <= %s::numeric" % (c, q(lo)),
                    "%s IN (%s, 'NaN')" % (c, L(mid)), "%s NOT IN (%s, 'NaN')" % (c, L(mid))]
            try:
                out += ["%s > %r" % (c, float(hi) + 1.0), "%s < %r" % (c, float(lo) - 1.0)]
            except ValueError:
                pass
        elif k == "DECIMAL":
            d = decimal.Decimal(mid)
            step = decimal.Decimal(1).scaleb(-(t.args[1] + 1))
            out += ["%s = %s" % (c, q(str(d) + "000") + "::numeric"),
                    "%s = %s" % (c, str(d + step)), "%s < %s" % (c, str(d + step)),
                    "%s > %s" % (c, str(d - step)), "%s >= %s" % (c, str(d + step)),
                    "%s > %s" % (c, str(decimal.Decimal(hi) + step)),
                    "%s < %s" % (c, str(decimal.Decimal(lo) - step)),
                    "%s = %d" % (c, int(d)), "%s < %d" % (c, int(d)),
                    "%s >= %d::bigint" % (c, int(d)),
                    "%s IN (%s, %s)" % (c, q(str(d) + "0") + "::numeric", str(d + step)),
                    "%s IN (%s)" % (c, q(str(d) + "00") + "::numeric"),
                    "%s < 1e40" % c, "%s > -1e40" % c,
                    "%s = %s::float8" % (c, q(mid))]
        elif k == "DATE":
            out += ["%s = %s::timestamp" % (c, q(mid)), "%s < %s::timestamp" % (c, q(mid)),
                    "%s < %s::timestamp + interval '12 hours'" % (c, q(mid)),
                    "%s >= %s::timestamp + interval '1 hour'" % (c, q(mid)),
                    "%s = %s::timestamptz" % (c, q(mid)), "%s <= %s::timestamptz" % (c, q(hi)),
                    "%s < %s::date - 1" % (c, q(lo)), "%s > %s::date + 1" % (c, q(hi)),
                    "%s = %s::date + 1" % (c, q(hi)), "%s > %s::date - 1" % (c, q(lo)),
                    "%s IN (%s, %s::date + 1)" % (c, L(mid), q(hi))]
        elif k in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            ty = "timestamp" if k == "TIMESTAMP" else "timestamptz"
            other = "timestamptz" if k == "TIMESTAMP" else "timestamp"
            out += ["%s = %s::%s + interval '1 microsecond'" % (c, q(mid), ty),
                    "%s < %s::%s + interval '1 microsecond'" % (c, q(mid), ty),
                    "%s > %s::%s - interval '1 microsecond'" % (c, q(mid), ty),
                    "%s >= %s::%s + interval '1 microsecond'" % (c, q(hi), ty),
                    "%s <= %s::%s - interval '1 microsecond'" % (c, q(lo), ty),
                    "%s >= %s::%s - interval '1 millisecond'" % (c, q(hi), ty),
                    "%s <= %s::%s + interval '1 millisecond'" % (c, q(lo), ty),
                    "%s = %s::%s" % (c, q(mid), other), "%s < %s::%s" % (c, q(mid), other),
                    "%s >= %s::%s" % (c, q(hi), other),
                    "%s = %s::date" % (c, q(mid)), "%s >= %s::date" % (c, q(mid)),
                    "%s < %s::date + 1" % (c, q(mid)),
                    "%s > %s::timestamp(0)" % (c, q(mid)), "%s <= %s::timestamp(3)" % (c, q(mid)),
                    "%s IN (%s, %s::%s + interval '1 second')" % (c, L(mid), q(hi), ty)]
        elif k in STRING_KINDS:
            pre = mid[:max(1, len(mid) // 2)] if mid else ""
            like = pre.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            out += ["%s < %s" % (c, L(mid)), "%s >= %s" % (c, L(mid)),
                    "%s > %s COLLATE \"C\"" % (c, L(mid)), "%s <= %s COLLATE \"C\"" % (c, L(mid)),
                    "%s < %s COLLATE \"C\"" % (c, L(mid + "\x01" if "\x00" not in mid else mid)),
                    "%s > %s COLLATE \"C\"" % (c, L(mid + " ")),
                    "%s = %s::varchar" % (c, q(mid)), "%s = %s::bpchar" % (c, q(mid + "  ")),
                    "%s = %s::text" % (c, q(mid + " ")), "%s = ''" % c, "%s > ''" % c,
                    "%s >= '' COLLATE \"C\"" % c, "%s < 'zzzz' COLLATE \"C\"" % c,
                    "%s LIKE %s" % (c, q(like + "%")), "%s LIKE %s" % (c, q(like)),
                    "%s LIKE %s" % (c, q(like + "_%")), "%s NOT LIKE %s" % (c, q(like + "%")),
                    "%s LIKE '%%'" % c, "%s ILIKE %s" % (c, q(like.upper() + "%")),
                    "%s IN (%s, 'no such value')" % (c, L(mid)),
                    "%s NOT IN (%s, 'no such value')" % (c, L(mid)),
                    "%s IN (%s::varchar, %s::varchar)" % (c, q(a), q(b)),
                    "%s = %s COLLATE \"C\"" % (c, L(mid)),
                    "%s < %s COLLATE \"C\"" % (c, L(hi)), "%s > %s COLLATE \"C\"" % (c, L(lo))]
        elif k in ("BINARY", "VARBINARY", "BYTES"):
            out += ["%s < %s" % (c, L(mid)), "%s >= %s" % (c, L(mid)),
                    "%s = %s" % (c, L(mid + "00")), "%s > %s" % (c, L(mid + "00")),
                    "%s = '\\x'::bytea" % c, "%s > '\\x'::bytea" % c,
                    "%s LIKE %s::bytea" % (c, q(mid[:max(2, len(mid) // 2 // 2 * 2)] + "25"))]
        return out

    def unpushable(self, name, t):
        """A condition on a column the scan cannot use (a function of it)."""
        c = conf.quote_ident(name)
        return "coalesce(%s::text, '') <> 'no such text'" % c

    def predicates(self, budget):
        """Up to budget predicates: leaves (partition keys first), then
        AND / OR / NOT of leaves on two columns."""
        rng = self.rng
        per_col = []
        pk = set(self.v.partition_keys) | set(self.v.bucket_keys)
        for name, t, vals, nulls, n in self.cols:
            lv = self.leaves(name, t, vals, nulls, n)
            per_col.append((name, t, lv))
        keyed = [x for x in per_col if x[0] in pk]
        other = [x for x in per_col if x[0] not in pk]
        ncombo = max(2, budget // 4)
        nleaf = budget - ncombo
        chosen = []
        # partition keys: up to half of the leaves
        key_leaves = [l for _, _, lv in keyed for l in lv]
        rng.shuffle(key_leaves)
        chosen += key_leaves[:nleaf // 2 if other else nleaf]
        pool = [(i, l) for i, (_, _, lv) in enumerate(other) for l in lv]
        # round-robin over the other columns so each gets some
        buckets = collections.defaultdict(list)
        for i, l in pool:
            buckets[i].append(l)
        for i in buckets:
            rng.shuffle(buckets[i])
        while len(chosen) < nleaf and any(buckets.values()):
            for i in sorted(buckets):
                if buckets[i] and len(chosen) < nleaf:
                    chosen.append(buckets[i].pop())
        # combinations of two columns (a partition key on one side when there is one)
        cmp_cols = [x for x in per_col if len(x[2]) > 2] or per_col
        for j in range(ncombo):
            if not cmp_cols:
                break
            x = rng.choice(keyed or cmp_cols) if j % 2 == 0 else rng.choice(cmp_cols)
            y = rng.choice(cmp_cols)
            A = "(%s)" % rng.choice(x[2])
            B = "(%s)" % rng.choice(y[2])
            U = "(%s)" % self.unpushable(y[0], y[1])
            form = j % 10
            chosen.append([
                "%s AND %s" % (A, B), "%s OR %s" % (A, B), "NOT (%s AND %s)" % (A, B),
                "NOT (%s OR %s)" % (A, B), "%s OR NOT %s" % (A, B),
                "NOT (%s AND %s)" % (A, U), "%s OR %s" % (A, U), "%s AND %s" % (A, U),
                "(%s AND %s) OR (NOT %s AND %s)" % (A, B, A, U),
                "%s AND NOT (%s OR %s)" % (A, B, U)][form])
        return chosen[:budget]


    def param_predicates(self, n):
        """Up to n (predicate on $1, parameter type, value) for PREPARE:
        the value is pushed at execution (value_of with an ExprContext)."""
        cands = [x for x in self.cols if x[1].kind in COMPARABLE and x[2]
                 and x[1].kind != "BOOLEAN"]
        pk = [x for x in cands if x[0] in self.v.partition_keys]
        out = []
        for j in range(n):
            if not cands:
                break
            name, t, vals = (self.rng.choice(pk) if pk and j == 0 else self.rng.choice(cands))[:3]
            c = conf.quote_ident(name)
            ptype = conf.pg_type(t)
            if t.kind in INT_KINDS and j == 1:
                ptype = self.rng.choice(["bigint", "numeric"])
            if t.kind in STRING_KINDS:
                ptype = "text"
            op = self.rng.choice(OPS)
            coll = ' COLLATE "C"' if t.kind in STRING_KINDS and op not in ("=", "<>") else ""
            out.append(("%s %s $1%s" % (c, op, coll), ptype,
                        q(self.pick(vals)[0]) + "::" + ptype))
        return out

    def bucket_pins(self, rows, n):
        """Up to n predicates fixing every bucket key (= / IN, from rows of
        the table, and once with a value absent), so buckets are inferred."""
        cols = {name: t for name, t, *_ in self.cols}
        keys = [k for k in self.v.bucket_keys if k in cols]
        if not rows or len(keys) != len(rows[0]) or len(keys) != len(self.v.bucket_keys):
            return []

        def eq(k, x):
            c = conf.quote_ident(k)
            return "%s IS NULL" % c if x is None else "%s = %s" % (c, self.lit(cols[k], x))
        out = []
        for j in range(n):
            a, b = self.rng.choice(rows), self.rng.choice(rows)
            if j % 3 == 0:
                out.append(" AND ".join(eq(k, x) for k, x in zip(keys, a)))
            elif j % 3 == 1:
                parts = []
                for k, x, y in zip(keys, a, b):
                    vals = [z for z in {x, y} if z is not None]
                    if not vals:
                        parts.append(eq(k, None))
                    else:
                        parts.append("%s IN (%s)" % (conf.quote_ident(k), ", ".join(
                            self.lit(cols[k], z) for z in sorted(vals))))
                out.append(" AND ".join(parts))
            else:
                # one key equal to a value of another row, or to a cast of it
                parts = []
                for i, (k, x) in enumerate(zip(keys, a)):
                    t = cols[k]
                    if x is not None and t.kind in INT_KINDS and i == 0:
                        parts.append("%s = %s::bigint" % (conf.quote_ident(k), x))
                    else:
                        parts.append(eq(k, b[i] if i == len(keys) - 1 else x))
                out.append(" AND ".join(parts))
        return out

    def partition_leaves(self, n):
        """Up to n leaves (or pairs of them) on partition keys."""
        lv = [l for name, t, vals, nulls, cnt in self.cols if name in self.v.partition_keys
              for l in self.leaves(name, t, vals, nulls, cnt)
              if "%(ref)s" not in l]
        out = []
        for j in range(n):
            if not lv:
                break
            a = self.rng.choice(lv)
            out.append(a if j % 2 == 0 else "(%s) OR (%s)" % (a, self.rng.choice(lv)))
        return out

    def join_sources(self, n):
        """Up to n (label, source): the foreign table rescanned for each of a
        few values of one column (a Param of the outer row, pushed at every
        rescan)."""
        cands = [x for x in self.cols if x[1].kind in COMPARABLE and x[2]
                 and x[1].kind not in ("BOOLEAN", "FLOAT", "DOUBLE")]
        pk = [x for x in cands if x[0] in self.v.partition_keys]
        out = []
        for _ in range(n):
            if not cands:
                break
            name, t, vals = self.rng.choice(pk or cands)[:3]
            c = conf.quote_ident(name)
            ptype = conf.pg_type(t)
            keys = sorted(set(self.pick(vals, 2)))
            rows = ", ".join("(%s::%s)" % (q(x), ptype) for x in keys)
            label = "(VALUES %s) x(k), LATERAL (... WHERE %s = x.k OFFSET 0)" % (rows, c)
            src = ("SELECT t.* FROM (VALUES %s) x(k), LATERAL (SELECT * FROM {t} WHERE %s = x.k "
                   "OFFSET 0) t" % (rows.replace("{", "{{").replace("}", "}}"), c))
            out.append((label, src))
        return out


# ---------------------------------------------------------------------------
# The independent reference: DuckDB reads the live Parquet files
# ---------------------------------------------------------------------------

DUCK_KINDS = set(INT_KINDS) | {"FLOAT", "DOUBLE", "DECIMAL", "STRING", "VARCHAR", "CHAR",
                               "BOOLEAN", "BINARY", "VARBINARY", "BYTES", "DATE",
                               "TIMESTAMP", "TIMESTAMP_LTZ"}
DUCK_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "parquet", "duck_ref.mjs")


def duck_eligible(v):
    """True for a variant of an append table with Parquet data, one schema,
    flat columns and no external paths, read at its latest snapshot or at
    scan.snapshot-id: its rows are the rows of the snapshot's live data
    files, which DuckDB reads on its own (tables with deletion vectors are
    left out once tablescan_files() shows one)."""
    if v.skip:
        return False
    opts = dict(v.options)
    if "path" not in opts or not set(opts) <= {"path", "scan.snapshot-id"}:
        return False
    try:
        schemas = [f for f in os.listdir(os.path.join(opts["path"], "schema"))
                   if f.startswith("schema-")]
    except OSError:
        return False
    if len(schemas) != 1:
        return False
    schema = latest_schema(opts["path"]) or {}
    topts = {k: str(val).lower() for k, val in (schema.get("options") or {}).items()}
    if schema.get("primaryKeys") or topts.get("file.format") != "parquet":
        return False
    if any(topts.get(k) == "true" for k in ("deletion-vectors.enabled", "row-tracking.enabled",
                                          "data-evolution.enabled")):
        return False
    return all(t.kind in DUCK_KINDS for _, t in v.columns)


def duck_columns(v):
    """The columns compared with DuckDB: all but TIMESTAMP(7..9), whose
    nanoseconds DuckDB's Parquet reader truncates to microseconds (towards
    zero, so not even the rounding PostgreSQL shows can be rebuilt)."""
    return [(n, t) for n, t in v.columns
            if not (t.kind in ("TIMESTAMP", "TIMESTAMP_LTZ") and t.precision > 6)]


def duck_files_sql(ft):
    return ("SELECT coalesce(json_agg(json_build_array(file_name, deletion_file) ORDER BY file_name), "
            "'[]') FROM tablescan_files('%s'::regclass)" % ft)


def duck_reference(v, files_json):
    """Read the live files (named by the manifests, as tablescan_files()
    lists them) with DuckDB: (SQL inserting its rows into a table "%(duck)s",
    None) or (None, why it failed); ("", None) when a file carries a deletion
    vector (DuckDB cannot apply it: no independent reference)."""
    files = json.loads(files_json)
    if any(d for _, d in files):
        return "", None
    names = {os.path.basename(f) for f, _ in files}
    where = {}
    for root, _, fs in os.walk(dict(v.options)["path"]):
        for f in fs:
            if f in names:
                where.setdefault(f, os.path.join(root, f))
    missing = sorted(names - set(where))
    if missing:
        return None, "live data file(s) missing: %s" % ", ".join(missing[:3])
    if not all(f.endswith(".parquet") for f in names):
        return "", None
    if not os.path.isdir(os.path.join(os.path.dirname(DUCK_SCRIPT), "node_modules", "@duckdb")):
        return None, "DuckDB is not installed (cd test/parquet && npm install)"
    cols = [[n, t.kind] for n, t in duck_columns(v)]
    with tempfile.TemporaryDirectory(prefix="tsprune_duck_") as d:
        out = os.path.join(d, "rows.json")
        if not names:
            rows = "[]"
        else:
            p = subprocess.run(["node", DUCK_SCRIPT, out, json.dumps(cols)] +
                               sorted(where.values()), capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                return None, "DuckDB could not read the live files: %s" % (p.stderr.strip()[-300:])
            with open(out, encoding="utf-8") as fh:
                rows = fh.read()
    tag = "$duckref%d$" % zlib.crc32(rows.encode())
    return ("INSERT INTO %%(duck)s SELECT * FROM json_populate_recordset(NULL::%%(duck)s, %s%s%s)"
            % (tag, rows, tag)), None


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

def check_sql(ft, ref, p, limit, source="SELECT * FROM {t} WHERE {p}"):
    """One statement answering [rows of ft not in ref, rows of ref not in
    ft, count(*) of ft, count of ref (, rows under LIMIT, of them not in
    ref)] for predicate p, whose rows come from source (a SELECT over {t},
    the table).  The foreign table is scanned once for the rows, once for
    count(*) (which may be answered from metadata) and once more for the
    LIMIT."""
    P = p.replace("%(ref)s", ref)

    def src(t):
        return source.format(t=t, p=P)
    ctes = ["f AS MATERIALIZED (%s)" % src(ft), "r AS MATERIALIZED (%s)" % src(ref)]
    if source.startswith("SELECT * FROM {t} WHERE"):
        # count(*) straight over the table: the form aggregate pushdown answers
        source_count = "(SELECT count(*) FROM %s WHERE %s)" % (ft, P)
    else:
        source_count = "(SELECT count(*) FROM (%s) c)" % src(ft)
    parts = ["(SELECT count(*) FROM (TABLE f EXCEPT ALL TABLE r) a)",
             "(SELECT count(*) FROM (TABLE r EXCEPT ALL TABLE f) b)",
             source_count,
             "(SELECT count(*) FROM r)"]
    if limit:
        ctes.append("l AS MATERIALIZED (%s LIMIT %d)" % (src(ft), limit))
        parts += ["(SELECT count(*) FROM l)",
                  "(SELECT count(*) FROM (TABLE l EXCEPT ALL TABLE r) m)"]
    return "WITH %s SELECT json_build_array(%s)" % (", ".join(ctes), ", ".join(parts))


class Outcome:
    def __init__(self, name):
        self.name = name
        self.skip = None
        self.passed = 0
        self.fails = []             # (predicate, reason, sql)
        self.skipped_checks = []
        self.lines = []
        self.seconds = 0.0
        self.duck = False           # the reference was checked against DuckDB


def preamble(args):
    """run.py's session settings, in the TimeZone asked for."""
    return (conf.session_preamble() + "\nSET TIME ZONE %s;" % conf.quote_literal(args.timezone) +
            "\nSET synchronous_commit = off;")


def foreign_table_sql(v, table):
    cols = ", ".join("%s %s" % (conf.quote_ident(n), conf.pg_type(t)) for n, t in v.columns)
    opts = ", ".join("%s %s" % (conf.quote_ident(k), conf.quote_literal(val)) for k, val in v.options)
    return "CREATE FOREIGN TABLE %s (%s) SERVER %s OPTIONS (%s)" % (table, cols, conf.SERVER_NAME, opts)


def run_variant(args, idx, v):
    out = Outcome(v.name)
    t0 = time.time()
    try:
        return _run_variant(args, idx, v, out)
    finally:
        out.seconds = time.time() - t0


def held_to_baseline(v, reason, base):
    """A variant that cannot be checked: the skip reason when test/baseline.json
    allows it (a refusal listed under "refused", any other reason under
    "skips"), else None (a failure)."""
    listed = conf._listed(base["refused"] if conf.is_unsupported(reason) else base["skips"], v.name)
    return None if listed is None else reason


def _run_variant(args, idx, v, out):
    base = baseline.part("prune-diff") if not args.no_baseline else None
    if v.skip:
        if base is None or held_to_baseline(v, v.skip, base):
            out.skip = v.skip
        else:
            out.fails.append(("(mapping)", "cannot be mapped and not listed in test/baseline.json: %s"
                              % v.skip, ""))
        return out
    schema = "%s%d" % (SCHEMA_PREFIX, idx)
    ft, ref = schema + ".ft", schema + ".ref"
    # session 1: foreign table, reference copy, column values
    script = "\n".join([
        preamble(args),
        "DROP SCHEMA IF EXISTS %s CASCADE;" % schema,
        "CREATE SCHEMA %s;" % schema,
        conf._step("ft", foreign_table_sql(v, ft)),
        conf._step("ref", "CREATE UNLOGGED TABLE %s AS SELECT * FROM %s" % (ref, ft)),
        conf._step("stats", stats_sql(v) % {"ref": ref}),
        conf._step("size", "SELECT pg_total_relation_size('%s')" % ref),
        conf._step("keys", key_rows_sql(v) % {"ref": ref}),
        conf._step("files", duck_files_sql(ft)) if duck_eligible(v) else "",
        "\\echo %s DONE" % conf.MARK, ""])
    o, err, _ = conf.run_psql(args, script, args.timeout)
    if o is None:
        out.fails.append(("(setup)", err, ""))
        return out
    steps, done = conf.parse_session(o)
    for tag in ("ft", "ref"):
        st = steps.get(tag)
        if st is None or not st[0]:
            why = "%s: %s" % ("CREATE FOREIGN TABLE" if tag == "ft" else "the unfiltered reference read",
                              st[2] if st else "session ended: %s" % (err or "").strip()[-200:])
            if base is None or held_to_baseline(v, why, base):
                out.skip = why
            else:
                out.fails.append(("(setup)", why, ""))
            run_cleanup(args, schema)
            return out
    st = steps.get("stats")
    if st is None or not st[0] or not st[3]:
        out.fails.append(("(column values)", st[2] if st else "no output", ""))
        run_cleanup(args, schema)
        return out
    stats = json.loads(st[3][0])
    rng = random.Random(args.seed ^ zlib.crc32(v.name.encode()))
    budget = args.variant_budget if "@" in v.name else args.budget
    size = steps.get("size")
    big = bool(size and size[0] and size[3] and int(size[3][0]) > BIG_TABLE_BYTES)
    if big:
        budget = min(budget, BIG_TABLE_PREDICATES)
    g = Gen(v, stats, rng)
    preds = g.predicates(budget)
    kr = steps.get("keys")
    if kr and kr[0] and kr[3]:
        preds += g.bucket_pins(json.loads(kr[3][0]), 3 if "@" in v.name else 6)
    rng = random.Random(args.seed ^ zlib.crc32(v.name.encode()) ^ 1)

    # session 2: the checks (generic plans, so Params are pushed at execution;
    # no hash / merge joins, so a join hands the foreign table a Param)
    gen_ = Gen(v, stats, rng)
    lines = [preamble(args), "SET plan_cache_mode = force_generic_plan;",
             "SET enable_hashjoin = off;", "SET enable_mergejoin = off;"]
    checks = []                 # (label, [setup SQL], SQL, limit)
    files = steps.get("files")
    if files is not None:
        # the reference rows themselves against DuckDB's read of the live files
        if not files[0] or not files[3]:
            out.fails.append(("(DuckDB reference)", "tablescan_files(): %s" % files[2], ""))
        else:
            load, why = duck_reference(v, files[3][0])
            if why:
                out.fails.append(("(DuckDB reference)", why, ""))
            elif load:
                duck = schema + ".duck"
                cl = ", ".join(conf.quote_ident(n) for n, _ in duck_columns(v))
                refc = "SELECT %s FROM %s" % (cl, ref)
                checks.append(("(the reference rows = DuckDB's read_parquet of the live files)",
                               ["CREATE UNLOGGED TABLE %s AS %s WITH NO DATA" % (duck, refc),
                                load % {"duck": duck}],
                               "SELECT json_build_array((SELECT count(*) FROM (%s EXCEPT ALL TABLE %s) a), "
                               "(SELECT count(*) FROM (TABLE %s EXCEPT ALL %s) b), "
                               "(SELECT count(*) FROM %s), (SELECT count(*) FROM %s))"
                               % (refc, duck, duck, refc, ref, duck), None))
                out.duck = True
    for i, p in enumerate(preds):
        limit = (1 + i % 3) if i % 2 == 0 else None
        checks.append((p, [], check_sql(ft, ref, p, limit), limit))
    if "@" not in v.name and not big:
        for i, (p, ptype, lit) in enumerate(gen_.param_predicates(3)):
            name = "%s_p%d" % (schema, i)
            checks.append(("%s [$1 = %s]" % (p, lit),
                           ["PREPARE %s(%s) AS %s" % (name, ptype, check_sql(ft, ref, p, 2))],
                           "EXECUTE %s(%s)" % (name, lit), 2))
        for p, source in gen_.join_sources(1):
            checks.append((p, [], check_sql(ft, ref, "true", None, source), None))
        # no quals: a LIMIT plans only as many files as it needs
        checks.append(("true [LIMIT 2]", [], check_sql(ft, ref, "true", 2), 2))
        # count(*) per partition (may be answered from the manifests)
        keys = [conf.quote_ident(n) for n, _ in v.columns if n in v.partition_keys]
        if keys:
            source = "SELECT %s, count(*) FROM {t} WHERE {p} GROUP BY %s" % (
                ", ".join(keys), ", ".join(keys))
            for p in ["true"] + gen_.partition_leaves(2):
                checks.append(("%s [count(*) GROUP BY %s]" % (p, ", ".join(keys)), [],
                               check_sql(ft, ref, p, None, source), None))
    if v.file_index and "@" not in v.name:
        # file indexes (bloom, bitmap, BSI, range-bitmap) exclude files and
        # select rows: the same predicates give the same rows without them
        # (last: the setting stays off for the rest of the session)
        for i, p in enumerate(preds[:INDEX_OFF_PREDICATES]):
            checks.append(("%s [tablescan.enable_file_index = off]" % p,
                           ["SET tablescan.enable_file_index = off"] if i == 0 else [],
                           check_sql(ft, ref, p, None), None))
    for i, (label, setup, sql, limit) in enumerate(checks):
        for j, pre in enumerate(setup):
            lines.append(conf._step("s%d_%d" % (i, j), pre))
        lines.append(conf._step("c%d" % i, sql))
    lines.append("DROP SCHEMA IF EXISTS %s CASCADE;" % schema)
    lines.append("\\echo %s DONE" % conf.MARK)
    o, err, _ = conf.run_psql(args, "\n".join(lines) + "\n", args.timeout)
    if o is None:
        out.fails.append(("(checks)", err, ""))
        run_cleanup(args, schema)
        return out
    steps, done = conf.parse_session(o)
    for i, (p, setup, s, limit) in enumerate(checks):
        st = steps.get("c%d" % i)
        for j in range(len(setup)):
            pre = steps.get("s%d_%d" % (i, j))
            if pre and not pre[0]:
                st = pre
                s = setup[j]
        if st is None:
            out.fails.append((p, "no result (backend crashed?): %s" % (err or "").strip()[-300:], s))
            continue
        ok, _, msg, res = st
        if not ok:
            if conf.is_unsupported(msg) and (base is None or held_to_baseline(v, msg, base)):
                out.skipped_checks.append((p, msg))
            else:
                out.fails.append((p, "ERROR: %s" % msg, s))
            continue
        r = json.loads(res[0])
        why = []
        if p.startswith("(the reference rows"):
            if r[0] or r[1] or r[2] != r[3]:
                why.append("the extension's unfiltered read has %d rows DuckDB does not read and "
                           "misses %d of DuckDB's (%d rows, DuckDB %d)" % (r[0], r[1], r[2], r[3]))
        else:
            if r[0]:
                why.append("%d rows returned that ref does not hold" % r[0])
            if r[1]:
                why.append("%d rows of ref missing" % r[1])
            if r[2] != r[3]:
                why.append("count(*) %d, ref %d" % (r[2], r[3]))
            if limit and (r[4] != min(limit, r[3]) or r[5]):
                why.append("LIMIT %d gave %d rows (%d not in ref)" % (limit, r[4], r[5]))
        if why:
            out.fails.append((p, "; ".join(why), s))
        else:
            out.passed += 1
            out.lines.append(p)
    if not done:
        run_cleanup(args, schema)
    return out


def shown(p):
    """A predicate as printed (the reference table named "ref")."""
    return p.replace("%(ref)s", "ref")


def run_cleanup(args, schema):
    conf.run_psql(args, "SET client_min_messages = warning;\nDROP SCHEMA IF EXISTS %s CASCADE;\n"
                  % schema, 60)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=conf.default_shared(),
                    help="the shared dir holding testdata/ and oracle/ (default: %(default)s)")
    ap.add_argument("--table", action="append", default=[], metavar="PATTERN",
                    help="only variants whose name contains PATTERN (glob with * ? [)")
    ap.add_argument("--latest-only", action="store_true",
                    help="only each table's latest snapshot (no time-travel / branch variants)")
    ap.add_argument("--strict", action="store_true", help="exit 1 if any check fails")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print every passing predicate and the SQL of failures")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="parallel psql sessions (default 2)")
    ap.add_argument("--timeout", type=int, default=180, help="seconds per psql session")
    ap.add_argument("--psql", default="psql", help="psql binary")
    ap.add_argument("--no-baseline", action="store_true",
                    help="do not hold skips to test/baseline.json (exploring only)")
    ap.add_argument("--seed", type=int, default=SEED,
                    help="seed of the predicate generator (default %(default)s)")
    ap.add_argument("--timezone", default="UTC",
                    help="the sessions' TimeZone (default %(default)s)")
    ap.add_argument("--variant-budget", type=int, default=MAX_VARIANT_PREDICATES,
                    help="predicates per extra variant (default %(default)s)")
    ap.add_argument("--budget", type=int, default=MAX_PREDICATES,
                    help="predicates per latest-snapshot table (default %(default)s)")
    args = ap.parse_args(argv)
    args.mock = False

    shared = os.path.abspath(args.shared)
    if not os.path.isdir(os.path.join(shared, "testdata")):
        print("prune-diff: no testdata directory under %s" % shared, file=sys.stderr)
        return 2
    start = time.time()
    variants = plan_variants(shared)
    if args.table:
        variants = [v for v in variants if any(conf.matches(p, v.name) for p in args.table)]
    if args.latest_only:
        variants = [v for v in variants if "@" not in v.name]
    err = conf.global_setup(args)
    if err:
        print("prune-diff: setup failed: %s" % err, file=sys.stderr)
        return 2

    passed = failed = 0
    skips = collections.Counter()
    nskipped_checks = 0
    nduck = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = [ex.submit(run_variant, args, i, v) for i, v in enumerate(variants)]
        for fut in futs:
            o = fut.result()
            if o.skip:
                print("SKIP %s: %s" % (o.name, o.skip))
                skips[conf.skip_group(o.skip)] += 1
                continue
            for p, why, s in o.fails:
                if p in ("(setup)", "(mapping)"):
                    print("FAIL %s: %s" % (o.name, why))
            passed += o.passed
            failed += len(o.fails)
            nduck += o.duck
            nskipped_checks += len(o.skipped_checks)
            if args.verbose:
                print("TIME %s: %.2f s" % (o.name, o.seconds))
                for p in o.lines:
                    print("PASS %s: %s" % (o.name, shown(p)))
            for p, msg in o.skipped_checks:
                print("SKIP %s: %s: %s" % (o.name, shown(p), msg))
            for p, why, s in o.fails:
                if p in ("(setup)", "(mapping)"):
                    continue
                if p.startswith("("):
                    print("FAIL %s: %s: %s" % (o.name, p, why))
                else:
                    print("FAIL %s: WHERE %s: %s" % (o.name, shown(p), why))
                if args.verbose and s:
                    print("    sql: %s" % s[:3000])
            sys.stdout.flush()
    nvar = len(variants) - sum(skips.values())
    print("prune-diff checked %d table variants in %.1f s; %d variants skipped%s; "
          "%d checks refused as not supported"
          % (nvar, time.time() - start, sum(skips.values()),
             "".join("\n  %4d  %s" % (n, r) for r, n in sorted(skips.items(), key=lambda x: -x[1])),
             nskipped_checks))
    print("the reference rows of %d variants (Parquet append tables) checked against "
          "DuckDB's read of their live files" % nduck)
    print("prune-diff: %d passed, %d failed, %d skipped"
          % (passed, failed, sum(skips.values()) + nskipped_checks))
    return 1 if (args.strict and failed) else 0


if __name__ == "__main__":
    sys.exit(main())
