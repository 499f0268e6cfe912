#!/usr/bin/env python3
"""Conformance runner for tablescan_fdw against the Paimon read oracle.

Owns test/conformance/: it reads every case of ../shared/oracle/*.json (the
expectations of alibaba/paimon-cpp's tests over tables written by Java Paimon,
see ../shared/oracle/INDEX.md), turns each into SQL against an installed
tablescan_fdw in a running cluster, and compares what PostgreSQL returns with
the oracle.  Nothing from ../shared is ever copied: the runner points foreign
tables at the tables in place.

For every case it prints one line

    PASS <case>            FAIL <case>: <short reason>       SKIP <case>: <reason>

(a case with "subcases" is reported per subcase as <case>#<label>) and closes
with exactly "conformance: N passed, N failed, N skipped".  The exit status
is 0 even when cases fail, unless --strict is given (then 1 on any FAIL); 2
means the harness itself could not run (no server, CREATE EXTENSION failed).

--mode s3 / rest-s3 run the same cases with the tables read from a copy of
testdata in an object store (option path '<--s3-prefix>/<table>', the server
with s3.endpoint and path-style access, a user mapping with the test keys) or
through a REST catalog serving that copy (options database '<group>__<db>' +
table, test/rest/server.mjs --testdata); --mode rest the catalog serving local
paths; --mode azure the copy in the test Azure store (test/azure/start.sh:
option path '<--azure-prefix>/<table>', an abfs:// URI, the server with
azure.endpoint, a user mapping with the account key).  The summary line then
names the part conformance-<mode>, held to its own entry in test/baseline.json.

How a case becomes SQL (one psql session per case, in its own schema):
  * CREATE FOREIGN TABLE tsconf_<n>.t (<columns>) SERVER tablescan_conformance
    OPTIONS (path '<shared>/testdata/<table>', <options>) with the case's
    Paimon types mapped to PostgreSQL types (pg_type()); options are the
    case's "options" minus the non-Paimon "limit"/"streaming", plus
    scan.snapshot-id from "snapshot", partition_filter (JSON), bucket_filter,
    branch / scan.fallback-branch, and external-path-map 'FROM=>TO' for
    tables whose manifests name FILE:/tmp/external.  Hand-built-split and
    single-file cases run their "equivalent_table_scan" when they have one.
  * Hand-built splits without one ("read_splits", a top-level "files" list,
    or an "external_path" directory of byte-identical copies) run as a scan of the snapshot whose files in the split's
    partitions and buckets are exactly the split's files with the same
    deletion vectors and schema ids, as tablescan_files() of the very
    foreign tables the query reads reports them (probe_splits(), before
    the case runs); splits of different buckets are read as a UNION ALL of
    one foreign table each.  Streaming plans of append tables and of
    deduplicate primary-key tables run as the batch reads they equal (a
    full startup as a scan of its snapshot, each incremental plan as
    incremental-between -- with _ROW_KIND against row_kinds and a check
    that the read merged no key on primary-key tables, and
    deletion-vectors.merge-on-read on deletion-vector tables -- and
    "stream_end" as an empty incremental-between up to the latest snapshot).  Every
    streaming case (first-row tables included) also runs through the
    extension's stream function tablescan_changes(): the full startup as a
    consumer's first read, each plan as the range of its snapshots.  See the
    section "Hand-built splits and streaming plans as table scans".
  * Row cases: SELECT json_build_array(<columns>) FROM t [WHERE <predicate>]
    [LIMIT n]; the rows are compared with "rows" ("rows_after_filter" when
    predicate_exact is false) as a multiset after type-directed normalisation
    (normalise()); LIMIT cases compare the row count and check that every
    row returned is one of the oracle's rows (a sub-multiset).  PostgreSQL keeps
    microseconds: TIMESTAMP(9) values are rounded (half up) before comparing,
    and rows whose timestamp is within 1us of a predicate's timestamp literal
    may go either way (microsecond_ambiguity()).  Strings are ordered with
    COLLATE "C" (Paimon compares bytes).
  * Plan-only cases (expected_splits): SELECT from tablescan_files(t) and
    compare the (partition, bucket, file) set plus row_count, level,
    total_buckets, file_size, schema_id.  Where the oracle pruned with a
    predicate or a limit that the function cannot see, the planned set must
    contain every expected file but may hold more (pruning less is allowed,
    pruning more is not).
  * Manifest-list and manifest cases of a table (scope manifest_list /
    manifest_file): the foreign table at the snapshot whose base or delta
    list is the case's file (found in the snapshot JSON files), or at the
    first snapshot whose lists hold the manifest (searched in SQL with
    tablescan_manifests()); tablescan_manifests() / tablescan_manifest_entries()
    filtered to that list / manifest is compared with expected_manifest_file_metas
    / expected_entries on the fields the case states, in order when it says
    "ordered" (meta_case_setup()).
  * The row-tracking system columns _ROW_ID and _SEQUENCE_NUMBER are foreign
    table columns named so (the extension maps them); a row-id range
    selection becomes a WHERE on a hidden "_ROW_ID" column.
  * Batch reads of streaming plans of first-row and other non-deduplicate
    primary-key tables or with a changelog producer (their stream-function
    queries run), raw data/manifest
    file cases without a table, hand-built splits no snapshot scan provably equals and the
    other Paimon system columns (_VALUE_KIND, ...) are SKIPped with the
    reason.  An ERROR whose message says
    "not supported yet" is a fail-closed refusal and counts as SKIP; any other
    ERROR is a FAIL.
  * Every skip is held to test/baseline.json (part "conformance",
    apply_baseline()): a refusal stays SKIP only for a case listed under
    "refused" with the feature it needs, any other skip (a case with no
    mapping to a table scan, a column type not mapped, ...) only for a case
    listed under "skips"; otherwise it is a FAIL.  A row case that passes
    only because rows within 1 µs of a timestamp literal were dropped prints
    "PASS (µs) <case>", is counted in a line before the summary, and must be
    explained under "microseconds" (else FAIL).  --no-baseline shows the raw
    outcome.

Python 3 standard library only, plus the psql client (connection from the
usual PG* environment variables, e.g. under pg_virtualenv).  --self-test checks
the pure-Python pieces (type parsing and mapping, predicate translation, value
normalisation) without a server; --mock runs the whole pipeline against plain
PostgreSQL tables filled with the oracle's own rows (no extension needed) to
check the SQL generation and comparison end to end.
"""

import argparse
import collections
import concurrent.futures
import decimal
import filecmp
import fnmatch
import json
import os
import re
import struct
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import baseline  # noqa: E402  (test/baseline.py: the allowed skips, refusals, µs passes)

SERVER_NAME = "tablescan_conformance"

# Where the foreign tables find the testdata tables (--mode, set by main()):
#   local    option path '<shared>/testdata/<table>' (the default)
#   s3       option path '<s3 prefix>/<table>': the copy in the test object store
#   rest     options database + table of the test REST catalog (test/rest/server.mjs
#            --testdata), which gives the local location
#   rest-s3  the same catalog giving the object store copy's location (and its keys
#            as the table's data token)
#   azure    option path '<azure prefix>/<table>': the copy in the test Azure store
# The runner itself still reads the local files (snapshots, schemas) to plan cases.
LOCATION = {"mode": "local", "s3_prefix": None, "azure_prefix": None}


def table_location(shared_dir, rel):
    """The foreign table options naming testdata/<rel> in the run's mode."""
    mode = LOCATION["mode"]
    if mode in ("rest", "rest-s3"):
        # <group>/<db>.db/<table> -> database <group>__<db> (server.mjs --testdata)
        parts = rel.strip("/").split("/")
        db = "__".join(parts[:-1])
        if db.endswith(".db"):
            db = db[:-3]
        return [("database", db), ("table", parts[-1])]
    return [("path", data_location(shared_dir, rel))]


def data_location(shared_dir, rel):
    """testdata/<rel> as the extension reads files there (external-path-map targets)."""
    if LOCATION["mode"] in ("s3", "rest-s3"):
        return "%s/%s" % (LOCATION["s3_prefix"].rstrip("/"), rel.strip("/"))
    if LOCATION["mode"] == "azure":
        return "%s/%s" % (LOCATION["azure_prefix"].rstrip("/"), rel.strip("/"))
    return os.path.abspath(os.path.join(shared_dir, "testdata", rel))
SCHEMA_PREFIX = "tsconf_"

# Paimon special fields requested explicitly by data-evolution tests.
SYSTEM_COLUMNS = {"_ROW_ID", "_SEQUENCE_NUMBER", "_VALUE_KIND", "_LEVEL",
                  "_KEY_", "_FILE_PATH"}
# The ones the extension reads (row-tracking tables; README "System columns").
SUPPORTED_SYSTEM_COLUMNS = {"_ROW_ID", "_SEQUENCE_NUMBER"}

# Case "options" keys that are not Paimon table options.
NON_PAIMON_OPTIONS = {"limit", "streaming"}

# Scopes that read raw files / manifests rather than a table.
FILE_SCOPES = {"data_file", "data_file_not_in_table", "manifest_file",
               "manifest_list", "explicit_file_not_in_table"}
SPLIT_SCOPES = {"explicit_split", "serialized_splits"}


# ---------------------------------------------------------------------------
# Paimon type strings ("INT NOT NULL", "DECIMAL(23, 5)",
# "ROW<f0 STRING, f1 ARRAY<INT>>", "TIMESTAMP(3) WITH LOCAL TIME ZONE", ...)
# ---------------------------------------------------------------------------

class PType:
    """A parsed Paimon logical type.

    kind is the Paimon root name in upper case (INT, DECIMAL, TIMESTAMP,
    TIMESTAMP_LTZ, ARRAY, MAP, ROW, ...); args the numeric parameters;
    elem/key/value/fields the children of ARRAY/MULTISET, MAP and ROW.
    """

    def __init__(self, kind, args=(), elem=None, key=None, value=None,
                 fields=None):
        self.kind = kind
        self.args = tuple(args)
        self.elem = elem
        self.key = key
        self.value = value
        self.fields = fields or []

    def __repr__(self):
        if self.kind in ("ARRAY", "MULTISET"):
            return "%s<%r>" % (self.kind, self.elem)
        if self.kind == "MAP":
            return "MAP<%r, %r>" % (self.key, self.value)
        if self.kind == "ROW":
            return "ROW<%s>" % ", ".join("%s %r" % f for f in self.fields)
        if self.args:
            return "%s(%s)" % (self.kind, ", ".join(map(str, self.args)))
        return self.kind

    @property
    def nested(self):
        return self.kind in ("ARRAY", "MAP", "ROW", "MULTISET")

    @property
    def precision(self):
        """Fractional-second precision of TIME/TIMESTAMP types."""
        if self.args:
            return self.args[0]
        return 0 if self.kind == "TIME" else 6


_TOKEN_RE = re.compile(r"\s*(?:(`(?:[^`]|``)*`)|([A-Za-z_][A-Za-z0-9_$]*)"
                       r"|(\d+)|('(?:[^']|'')*')|(.))")
_SYNONYMS = {"INTEGER": "INT", "BOOL": "BOOLEAN", "NUMERIC": "DECIMAL",
             "DEC": "DECIMAL", "BYTEA": "BYTES", "TEXT": "STRING"}
_INT_KINDS = ("TINYINT", "SMALLINT", "INT", "BIGINT")


def _tokenize(s):
    out = []
    pos = 0
    while pos < len(s):
        m = _TOKEN_RE.match(s, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        if m.group(1):
            out.append(("id", m.group(1)[1:-1].replace("``", "`")))
        elif m.group(2):
            out.append(("word", m.group(2)))
        elif m.group(3):
            out.append(("num", int(m.group(3))))
        elif m.group(4):
            out.append(("str", m.group(4)))
        elif m.group(5) and not m.group(5).isspace():
            out.append(("p", m.group(5)))
    return out


def parse_type(text):
    """Parse a Paimon type string as written in the oracle's "columns".

    A trailing explanatory comment such as " (special field: row id)" or
    " (avro int)" is dropped; NOT NULL / NULL are accepted and ignored.
    """
    s = re.sub(r"\s+\((?=[^)]*[A-Za-z=])[^()]*\)\s*$", "", text.strip())
    toks = _tokenize(s)
    pos = [0]

    def peek(k=0):
        i = pos[0] + k
        return toks[i] if i < len(toks) else (None, None)

    def take():
        t = peek()
        pos[0] += 1
        return t

    def expect(p):
        t = take()
        if t != ("p", p):
            raise ValueError("bad type %r: expected %r at %r" % (text, p, t))

    def word_is(w, k=0):
        t = peek(k)
        return t[0] == "word" and t[1].upper() == w

    def parse_one():
        kind_tok = take()
        if kind_tok[0] != "word":
            raise ValueError("bad type %r" % text)
        kind = kind_tok[1].upper()
        kind = _SYNONYMS.get(kind, kind)
        t = None
        if kind in ("ARRAY", "MULTISET"):
            expect("<")
            t = PType(kind, elem=parse_one())
            expect(">")
        elif kind == "MAP":
            expect("<")
            k = parse_one()
            expect(",")
            v = parse_one()
            expect(">")
            t = PType("MAP", key=k, value=v)
        elif kind == "ROW":
            expect("<")
            fields = []
            while True:
                name_tok = take()
                if name_tok[0] not in ("word", "id"):
                    raise ValueError("bad ROW field in %r" % text)
                ft = parse_one()
                if word_is("COMMENT"):
                    take()
                    take()
                fields.append((name_tok[1], ft))
                if peek() == ("p", ","):
                    take()
                    continue
                break
            expect(">")
            t = PType("ROW", fields=fields)
        else:
            if kind == "DOUBLE" and word_is("PRECISION"):
                take()
            args = []
            if peek() == ("p", "("):
                take()
                while True:
                    n = take()
                    if n[0] != "num":
                        raise ValueError("bad type args in %r" % text)
                    args.append(n[1])
                    if peek() == ("p", ","):
                        take()
                        continue
                    break
                expect(")")
            if kind == "TIMESTAMP_LTZ":
                kind = "TIMESTAMP_LTZ"
            elif kind == "TIMESTAMP" and word_is("WITH") and word_is("LOCAL", 1):
                for _ in range(4):      # WITH LOCAL TIME ZONE
                    take()
                kind = "TIMESTAMP_LTZ"
            elif kind in ("TIMESTAMP", "TIME") and word_is("WITHOUT"):
                for _ in range(3):      # WITHOUT TIME ZONE
                    take()
            if kind == "DECIMAL":
                p = args[0] if args else 10
                sc = args[1] if len(args) > 1 else 0
                args = [p, sc]
            t = PType(kind, args)
        if word_is("NOT") and word_is("NULL", 1):
            take()
            take()
        elif word_is("NULL"):
            take()
        return t

    result = parse_one()
    if pos[0] != len(toks):
        raise ValueError("trailing text in type %r" % text)
    return result


def is_system_column(col):
    return col["name"] in SYSTEM_COLUMNS or "special field" in col["type"]


# ---------------------------------------------------------------------------
# Paimon -> PostgreSQL type mapping (the extension's documented mapping)
# ---------------------------------------------------------------------------

_SCALAR_PG = {"BOOLEAN": "boolean", "TINYINT": "smallint",
              "SMALLINT": "smallint", "INT": "integer", "BIGINT": "bigint",
              "FLOAT": "real", "DOUBLE": "double precision", "STRING": "text",
              "BINARY": "bytea", "VARBINARY": "bytea", "BYTES": "bytea",
              "BLOB": "bytea", "DATE": "date"}


def pg_type(t):
    """PostgreSQL column type for a Paimon type (see the module docstring)."""
    k = t.kind
    if k in _SCALAR_PG:
        return _SCALAR_PG[k]
    if k == "DECIMAL":
        return "numeric(%d,%d)" % t.args
    if k == "CHAR":
        return "char(%d)" % (t.args[0] if t.args else 1)
    if k == "VARCHAR":
        n = t.args[0] if t.args else 1
        return "varchar(%d)" % n if n <= 10485760 else "text"
    if k == "TIME":
        return "time(%d)" % min(t.precision, 6)
    if k == "TIMESTAMP":
        return "timestamp(%d)" % min(t.precision, 6)
    if k == "TIMESTAMP_LTZ":
        return "timestamptz(%d)" % min(t.precision, 6)
    if k == "ARRAY" and not t.elem.nested:
        return pg_type(t.elem) + "[]"
    if t.nested or k == "VARIANT":
        return "jsonb"
    raise ValueError("no PostgreSQL mapping for Paimon type %r" % t)


def quote_ident(name):
    return '"' + name.replace('"', '""') + '"'


def quote_literal(s):
    if "\0" in s:
        raise ValueError("NUL character in SQL literal")
    return "'" + s.replace("'", "''") + "'"


# ---------------------------------------------------------------------------
# Predicates: oracle predicate_expr -> SQL WHERE clause
# ---------------------------------------------------------------------------

_CMP_OPS = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _num_text(v):
    """Decimal text of a JSON number (int, float or Decimal)."""
    if isinstance(v, float):
        return repr(v)
    return str(v)


def sql_literal(t, v):
    """A SQL literal for oracle literal v compared with a column of type t.

    Literals are typed by the column: the comparison then runs with the
    column type's semantics, as Paimon compares a literal of the field's type
    (e.g. a FLOAT column against '14.1'::real compares float32 values).
    """
    if v is None:
        return "NULL"
    k = t.kind
    if isinstance(v, bool) or k == "BOOLEAN":
        if isinstance(v, bool):
            return "true" if v else "false"
        return quote_literal(str(v)) + "::boolean"
    if k in _INT_KINDS:
        if isinstance(v, int) or (isinstance(v, str) and re.fullmatch(r"-?\d+", v)):
            return "(%s)" % int(v)
        # non-integral literal against an integer column: compare numerically
        # instead of casting (a cast would round 20.5 to 21).
        return quote_literal(_num_text(v)) + "::numeric"
    if k in ("FLOAT", "DOUBLE"):
        txt = v if isinstance(v, str) else _num_text(v)
        return quote_literal(txt) + "::" + pg_type(t)
    if k == "DECIMAL":
        # no typmod: numeric(p,s) would round the literal itself
        return quote_literal(v if isinstance(v, str) else _num_text(v)) + "::numeric"
    if k in ("STRING", "VARCHAR"):
        return quote_literal(str(v)) + "::text"
    if k == "CHAR":
        return quote_literal(str(v)) + "::bpchar"
    if k in ("BINARY", "VARBINARY", "BYTES", "BLOB"):
        s = str(v)
        if not re.fullmatch(r"\\x[0-9a-fA-F]*", s):
            s = "\\x" + s.encode("utf-8").hex()
        return quote_literal(s) + "::bytea"
    if k == "DATE":
        if isinstance(v, int):
            return "(date '1970-01-01' + %d)" % v
        return quote_literal(str(v)) + "::date"
    if k == "TIME":
        return quote_literal(str(v)) + "::time"
    if k == "TIMESTAMP":
        return quote_literal(str(v)) + "::timestamp"
    if k == "TIMESTAMP_LTZ":
        return quote_literal(str(v)) + "::timestamptz"
    raise ValueError("cannot compare a %r column with a literal" % t)


def predicate_sql(expr, coltypes):
    """Translate a predicate_expr tree into a SQL boolean expression.

    coltypes maps column name -> PType.  Semantics follow Paimon's
    predicates, which match SQL's for these ops: comparisons with a NULL
    field are not true; IN / NOT IN ignore NULL literals (Paimon skips them,
    SQL's NOT IN would turn NULL for every row).
    """
    op = expr[0]
    if op in ("and", "or"):
        parts = [predicate_sql(e, coltypes) for e in expr[1]]
        if not parts:
            return "true" if op == "and" else "false"
        return "(" + (" AND " if op == "and" else " OR ").join(parts) + ")"
    name = expr[1]
    if name not in coltypes:
        raise KeyError("predicate column %r is not among the case's columns" % name)
    t = coltypes[name]
    col = quote_ident(name)
    if op == "is_null":
        return "(%s IS NULL)" % col
    if op == "is_not_null":
        return "(%s IS NOT NULL)" % col
    if op in _CMP_OPS:
        coll = ""
        if op in ("<", "<=", ">", ">=") and t.kind in ("STRING", "VARCHAR", "CHAR"):
            coll = ' COLLATE "C"'     # Paimon orders strings by their bytes
        return "(%s%s %s %s)" % (col, coll, _CMP_OPS[op], sql_literal(t, expr[2]))
    if op in ("in", "not_in"):
        lits = [sql_literal(t, v) for v in expr[2] if v is not None]
        if not lits:
            return "false" if op == "in" else "(%s IS NOT NULL)" % col
        return "(%s %s (%s))" % (col, "IN" if op == "in" else "NOT IN",
                                  ", ".join(lits))
    raise ValueError("unknown predicate op %r" % op)


# ---------------------------------------------------------------------------
# Value normalisation: oracle encoding and PostgreSQL JSON output -> one
# hashable canonical form per Paimon type
# ---------------------------------------------------------------------------

_TS_RE = re.compile(
    r"^\s*(-?\d{1,7})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d*))?)?)?"
    r"\s*(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?\s*(BC)?\s*$", re.I)
_TIME_RE = re.compile(r"^\s*(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d*))?)?\s*$")


def _days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (any year)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def round_nanos_to_micros(nanos):
    """Round an integer count of nanoseconds since the epoch to the nearest
    microsecond, ties upwards (what the extension does: Paimon's
    millis + nanos-of-milli, (nanos + 500) / 1000).  No oracle value has a
    sub-microsecond part of exactly 500 ns, so the tie rule (PostgreSQL's own
    input uses rint) never decides a comparison here."""
    return (nanos + 500) // 1000


def parse_timestamp_micros(s, utc_offset_allowed=True):
    """ISO timestamp text -> microseconds since the epoch (UTC if the text
    carries an offset, wall clock otherwise).  Fractions up to nanoseconds
    are rounded to microseconds."""
    low = s.strip().lower()
    if low in ("infinity", "+infinity", "-infinity"):
        return low.lstrip("+")
    m = _TS_RE.match(s)
    if not m:
        raise ValueError("bad timestamp %r" % s)
    y, mo, d, hh, mi, ss, frac, tz, bc = m.groups()
    y = int(y)
    if bc:
        y = 1 - y
    days = _days_from_civil(y, int(mo), int(d))
    secs = days * 86400 + int(hh or 0) * 3600 + int(mi or 0) * 60 + int(ss or 0)
    frac = (frac or "")
    nanos = int((frac + "000000000")[:9]) if frac else 0
    extra = frac[9:]
    if extra and extra.strip("0"):
        # sub-nanosecond digits: only matters for a tie; treat as above
        nanos += 1 if int(extra[0]) >= 5 else 0
    total = secs * 1000000000 + nanos
    if tz and tz.upper() != "Z":
        sign = -1 if tz[0] == "-" else 1
        digits = tz[1:].replace(":", "")
        off = int(digits[0:2]) * 3600 + int(digits[2:4] or 0) * 60 + int(digits[4:6] or 0)
        total -= sign * off * 1000000000
    return round_nanos_to_micros(total)


def parse_time_micros(s):
    m = _TIME_RE.match(s)
    if not m:
        raise ValueError("bad time %r" % s)
    hh, mi, ss, frac = m.groups()
    secs = int(hh) * 3600 + int(mi) * 60 + int(ss or 0)
    nanos = int(((frac or "") + "000000000")[:9])
    return round_nanos_to_micros(secs * 1000000000 + nanos)


def _float_token(v):
    """Special float values as tokens (NaN != NaN would break multisets)."""
    if isinstance(v, str):
        low = v.strip().lower()
        if low in ("nan", "infinity", "+infinity", "inf", "-infinity", "-inf"):
            return {"nan": "NaN", "-infinity": "-Infinity", "-inf": "-Infinity"}.get(low, "Infinity")
    return None


def _as_float(v):
    tok = _float_token(v)
    if tok:
        return tok
    f = float(v)
    if f != f:
        return "NaN"
    if f in (float("inf"), float("-inf")):
        return "Infinity" if f > 0 else "-Infinity"
    return f


def float32(v):
    """Round to IEEE binary32 (the Paimon FLOAT / PostgreSQL real value)."""
    f = _as_float(v)
    if isinstance(f, str):
        return f
    try:
        return struct.unpack("<f", struct.pack("<f", f))[0]
    except OverflowError:
        return "Infinity" if f > 0 else "-Infinity"


def normalise(t, v, strict=False):
    """Canonical, hashable form of value v (oracle encoding or PostgreSQL
    JSON output) of Paimon type t.  Raises ValueError on a value that cannot
    be of that type.  strict (the values PostgreSQL returned): a decimal
    with more fractional digits than its scale, or a ROW object missing a
    field, is an error rather than rounded / read as NULL."""
    if v is None:
        return None
    k = t.kind
    if k == "BOOLEAN":
        if isinstance(v, bool):
            return v
        if isinstance(v, str) and v.lower() in ("t", "true", "f", "false"):
            return v.lower() in ("t", "true")
        raise ValueError("not a boolean: %r" % (v,))
    if k in _INT_KINDS:
        if isinstance(v, bool):
            raise ValueError("not an integer: %r" % (v,))
        d = decimal.Decimal(str(v))
        if d != d.to_integral_value():
            raise ValueError("not an integer: %r" % (v,))
        return int(d)
    if k == "FLOAT":
        return float32(v)
    if k == "DOUBLE":
        return _as_float(v)
    if k == "DECIMAL":
        d = decimal.Decimal(str(v))
        scale = t.args[1]
        if strict and d.is_finite() and d.as_tuple().exponent < -scale:
            raise ValueError("decimal %s has more digits than its scale %d" % (v, scale))
        with decimal.localcontext() as ctx:
            ctx.prec = 100
            d = d.quantize(decimal.Decimal(1).scaleb(-scale))
        if d == 0:
            d = abs(d)
        return str(d)
    if k == "CHAR":
        return str(v).rstrip(" ")
    if k in ("STRING", "VARCHAR"):
        if not isinstance(v, str):
            raise ValueError("not a string: %r" % (v,))
        return v
    if k in ("BINARY", "VARBINARY", "BYTES", "BLOB"):
        s = str(v)
        if s.startswith("\\x"):
            return s.lower()
        return "\\x" + s.encode("utf-8").hex()
    if k == "DATE":
        if isinstance(v, int):
            return v
        m = _TS_RE.match(str(v))
        if not m or m.group(4):
            low = str(v).strip().lower()
            if low in ("infinity", "-infinity"):
                return low
            raise ValueError("bad date %r" % (v,))
        y = int(m.group(1))
        if m.group(9):
            y = 1 - y
        return _days_from_civil(y, int(m.group(2)), int(m.group(3)))
    if k == "TIME":
        return parse_time_micros(str(v))
    if k in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return parse_timestamp_micros(str(v))
    if k == "ARRAY":
        if not isinstance(v, list):
            raise ValueError("not an array: %r" % (v,))
        return ("array",) + tuple(normalise(t.elem, e, strict) for e in v)
    if k == "MULTISET":
        if isinstance(v, dict):          # element -> count
            items = []
            for e, n in v.items():
                items += [normalise(t.elem, e, strict)] * int(n)
        elif isinstance(v, list):
            items = [normalise(t.elem, e, strict) for e in v]
        else:
            raise ValueError("not a multiset: %r" % (v,))
        return ("multiset",) + tuple(sorted(items, key=repr))
    if k == "MAP":
        if isinstance(v, dict):          # string-keyed JSON object form
            pairs = list(v.items())
        elif isinstance(v, list):
            pairs = []
            for p in v:
                if isinstance(p, dict) and set(p) == {"key", "value"}:
                    pairs.append((p["key"], p["value"]))
                elif isinstance(p, list) and len(p) == 2:
                    pairs.append((p[0], p[1]))
                else:
                    raise ValueError("bad map entry %r" % (p,))
        else:
            raise ValueError("not a map: %r" % (v,))
        norm = [(normalise(t.key, a, strict), normalise(t.value, b, strict)) for a, b in pairs]
        return ("map",) + tuple(sorted(norm, key=repr))
    if k == "ROW":
        if isinstance(v, dict):
            extra = set(v) - {n for n, _ in t.fields}
            if extra:
                raise ValueError("unexpected ROW fields %s" % sorted(extra))
            missing = [n for n, _ in t.fields if n not in v]
            if strict and missing:
                raise ValueError("ROW without the fields %s: %r" % (missing, v))
            vals = [v.get(n) for n, _ in t.fields]
        elif isinstance(v, list) and len(v) == len(t.fields):
            vals = v
        else:
            raise ValueError("not a row: %r" % (v,))
        return ("row",) + tuple(normalise(ft, x, strict) for (_, ft), x in zip(t.fields, vals))
    return json.dumps(v, sort_keys=True, default=str)


def normalise_row(types, row, strict=False):
    if not isinstance(row, list) or len(row) != len(types):
        raise ValueError("row has %s values, expected %d: %r"
                         % (len(row) if isinstance(row, list) else "no", len(types), row))
    return tuple(normalise(t, v, strict) for t, v in zip(types, row))


def parse_timestamp_nanos(s):
    """Like parse_timestamp_micros but keeps nanoseconds (no rounding)."""
    m = _TS_RE.match(s)
    if not m:
        raise ValueError("bad timestamp %r" % s)
    y, mo, d, hh, mi, ss, frac, tz, bc = m.groups()
    y = 1 - int(y) if bc else int(y)
    secs = (_days_from_civil(y, int(mo), int(d)) * 86400 + int(hh or 0) * 3600
            + int(mi or 0) * 60 + int(ss or 0))
    total = secs * 1000000000 + (int(((frac or "") + "000000000")[:9]))
    if tz and tz.upper() != "Z":
        sign = -1 if tz[0] == "-" else 1
        digits = tz[1:].replace(":", "")
        total -= sign * (int(digits[0:2]) * 3600 + int(digits[2:4] or 0) * 60) * 1000000000
    return total


def _timestamp_atoms(expr, coltypes):
    """(column, operator, literal nanos) of every timestamp comparison in a
    predicate where sub-microsecond precision is involved (a TIMESTAMP(7..9)
    column or a literal with nanoseconds); IN / NOT IN give one "=" / "!="
    atom per literal."""
    if not expr:
        return []
    op = expr[0]
    if op in ("and", "or"):
        return [a for e in expr[1] for a in _timestamp_atoms(e, coltypes)]
    if op in ("is_null", "is_not_null") or expr[1] not in coltypes:
        return []
    t = coltypes[expr[1]]
    if t.kind not in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return []
    lits = expr[2] if op in ("in", "not_in") else [expr[2]]
    aop = {"in": "=", "not_in": "!="}.get(op, op)
    out = []
    for v in lits:
        if isinstance(v, str):
            try:
                ns = parse_timestamp_nanos(v)
            except ValueError:
                continue
            if t.precision > 6 or ns % 1000:
                out.append((expr[1], aop, ns))
    return out


def _compare(op, a, b):
    return {"=": a == b, "==": a == b, "!=": a != b, "<>": a != b, "<": a < b,
            "<=": a <= b, ">": a > b, ">=": a >= b}.get(op)


def microsecond_ambiguity(expr, columns):
    """A function telling whether a row's predicate outcome may depend on
    sub-microsecond digits, or None when the predicate has no such atom.

    PostgreSQL keeps microseconds, Paimon TIMESTAMP(9) nanoseconds: a value
    within 1us of a timestamp literal may compare differently once both are
    rounded to microseconds (and a reader that prunes with nanoseconds but
    rechecks in PostgreSQL may go either way), so such rows are tolerated on
    both sides -- only those whose comparison at nanoseconds and at rounded
    microseconds differ: a row equal to the literal in both stays checked."""
    names = [n for n, _ in columns]
    atoms = _timestamp_atoms(expr, dict(columns))
    if not atoms:
        return None

    def ambiguous(raw_row):
        for col, op, lit_ns in atoms:
            v = raw_row[names.index(col)]
            if not isinstance(v, str):
                continue
            try:
                v_ns = parse_timestamp_nanos(v)
            except ValueError:
                continue
            if abs(v_ns - lit_ns) >= 1000:
                continue
            exact = _compare(op, v_ns, lit_ns)
            rounded = _compare(op, round_nanos_to_micros(v_ns), round_nanos_to_micros(lit_ns))
            if exact is None or exact != rounded:
                return True
        return False

    def near(raw_row):
        """A returned row (microseconds only) within 1us of a literal: its
        nanoseconds are unknown, so it may be one of the ambiguous rows."""
        for col, _, lit_ns in atoms:
            v = raw_row[names.index(col)]
            if not isinstance(v, str):
                continue
            try:
                if abs(parse_timestamp_nanos(v) - lit_ns) < 1000:
                    return True
            except ValueError:
                pass
        return False
    ambiguous.near = near
    return ambiguous


def compare_multisets(types, expected, actual, tolerate=None):
    """Compare two lists of rows as multisets.  Returns (ok, reason, diff).
    tolerate(raw_row) -> True drops a row from either side before comparing
    (see microsecond_ambiguity)."""
    note = ""
    if tolerate:
        # oracle rows (nanoseconds known): dropped when ambiguous; returned
        # rows (microseconds): dropped when near a literal, unless they are
        # an oracle row that is not ambiguous (that one must be returned)
        e2 = [r for r in expected if not tolerate(r)]
        near = getattr(tolerate, "near", tolerate)
        try:
            firm = collections.Counter(normalise_row(types, r) for r in e2)
        except (ValueError, decimal.InvalidOperation):
            firm = collections.Counter()
        a2 = []
        for r in actual:
            if near(r):
                try:
                    k = normalise_row(types, r, strict=True)
                except (ValueError, decimal.InvalidOperation):
                    k = None
                if k is None or firm[k] <= 0:
                    continue
                firm[k] -= 1
            a2.append(r)
        dropped = len(expected) - len(e2) + len(actual) - len(a2)
        if dropped:
            note = "    tolerated %d expected and %d returned rows (timestamp within 1us of a literal)" % (
                len(expected) - len(e2), len(actual) - len(a2))
        expected, actual = e2, a2
    try:
        exp = collections.Counter(normalise_row(types, r) for r in expected)
    except (ValueError, decimal.InvalidOperation) as e:
        return False, "oracle row not understood: %s" % e, ""
    try:
        act = collections.Counter(normalise_row(types, r, strict=True) for r in actual)
    except (ValueError, decimal.InvalidOperation) as e:
        return False, "returned value not understood: %s" % e, ""
    if exp == act:
        return True, "", note
    missing = exp - act
    extra = act - exp
    reason = "rows differ: %d missing, %d unexpected (expected %d rows, got %d)" % (
        sum(missing.values()), sum(extra.values()), len(expected), len(actual))
    lines = []
    for label, c in (("missing", missing), ("unexpected", extra)):
        for r, n in sorted(c.items(), key=lambda x: repr(x[0]))[:20]:
            lines.append("    %s%s %r" % (label, "" if n == 1 else " x%d" % n, r))
    if note:
        lines.append(note)
    return False, reason, "\n".join(lines)


def compare_subset(types, universe, actual):
    """LIMIT cases: every returned row must be one of the oracle's rows (as a
    multiset: no row more often than the oracle has it).  (ok, reason, diff)."""
    if universe is None:
        return False, "no oracle rows to check the LIMIT's rows against", ""
    try:
        exp = collections.Counter(normalise_row(types, r) for r in universe)
    except (ValueError, decimal.InvalidOperation) as e:
        return False, "oracle row not understood: %s" % e, ""
    try:
        act = collections.Counter(normalise_row(types, r, strict=True) for r in actual)
    except (ValueError, decimal.InvalidOperation) as e:
        return False, "returned value not understood: %s" % e, ""
    extra = act - exp
    if not extra:
        return True, "", ""
    return False, "LIMIT returned %d rows that are not among the oracle's %d rows" % (
        sum(extra.values()), len(universe)), "\n".join(
        "    unexpected %r" % (r,) for r in sorted(extra, key=repr)[:20])


def load_json_text(s):
    """JSON with numbers kept exact (Decimal), as both sides are parsed."""
    return json.loads(s, parse_float=decimal.Decimal)


# ---------------------------------------------------------------------------
# Plan-only cases: tablescan_files() rows vs expected_splits
# ---------------------------------------------------------------------------

def _partition_key(part):
    """Canonical partition: field -> value text (numbers and strings alike,
    since the oracle writes typed values and a JSON rendering may differ)."""
    if part is None:
        return ()
    if not isinstance(part, dict):
        raise ValueError("partition is not a JSON object: %r" % (part,))
    out = []
    for kname, v in sorted(part.items()):
        if v is None:
            out.append((kname, None))
        elif isinstance(v, bool):
            out.append((kname, "true" if v else "false"))
        elif isinstance(v, (int, float, decimal.Decimal)):
            d = decimal.Decimal(str(v))
            out.append((kname, str(int(d)) if d == d.to_integral_value() else str(d.normalize())))
        else:
            out.append((kname, str(v)))
    return tuple(out)


def expected_plan_files(splits):
    """{(partition, bucket, file): {field: value}} from expected_splits."""
    files = {}
    for sp in splits:
        metas = {m["file"]: m for m in sp.get("file_meta") or []}
        for f in sp.get("files") or list(metas):
            m = metas.get(f, {})
            attrs = {"total_buckets": sp.get("total_buckets")}
            for a in ("row_count", "level", "file_size", "schema_id"):
                if a in m:
                    attrs[a] = m[a]
            files[(_partition_key(sp.get("partition")), sp.get("bucket"), f)] = attrs
    return files


PLAN_COLUMNS = ("partition", "bucket", "total_buckets", "file_name", "level",
                "row_count", "file_size", "schema_id")


def actual_plan_files(rows):
    files = {}
    for r in rows:
        rec = dict(zip(PLAN_COLUMNS, r))
        part = rec["partition"]
        if isinstance(part, str):
            part = load_json_text(part)
        name = os.path.basename(str(rec["file_name"]))
        attrs = {a: (int(rec[a]) if rec[a] is not None else None)
                 for a in ("total_buckets", "level", "row_count", "file_size", "schema_id")}
        files[(_partition_key(part), int(rec["bucket"]), name)] = attrs
    return files


def compare_plan(expected_splits, rows, subset_ok):
    """Compare planned files.  subset_ok: the oracle pruned with something
    tablescan_files() does not see (predicate, limit), so the plan may hold
    more files than expected but must hold all expected ones."""
    exp = expected_plan_files(expected_splits)
    try:
        act = actual_plan_files(rows)
    except (ValueError, TypeError, KeyError) as e:
        return False, "tablescan_files() row not understood: %s" % e, ""
    lines = []
    missing = sorted(set(exp) - set(act), key=repr)
    extra = sorted(set(act) - set(exp), key=repr)
    bad_attr = []
    for key in sorted(set(exp) & set(act), key=repr):
        for a, v in exp[key].items():
            if v is not None and act[key].get(a) != v:
                bad_attr.append("%s %s: expected %r, got %r" % (key[2], a, v, act[key].get(a)))
    for f in missing:
        lines.append("    missing file %r" % (f,))
    for f in extra:
        lines.append("    %s file %r" % ("extra (allowed)" if subset_ok else "unexpected", f))
    lines += ["    " + b for b in bad_attr]
    if missing or bad_attr or (extra and not subset_ok):
        reasons = []
        if missing:
            reasons.append("%d expected files not planned" % len(missing))
        if extra and not subset_ok:
            reasons.append("%d unexpected files planned" % len(extra))
        if bad_attr:
            reasons.append("wrong file metadata (%s)" % bad_attr[0])
        return False, "plan differs: " + "; ".join(reasons), "\n".join(lines)
    return True, "", "\n".join(lines)


# ---------------------------------------------------------------------------
# Hand-built splits and streaming plans as table scans
#
# A case that reads hand-built splits ("read_splits", or a top-level "files"
# list or "external_path" directory of copies for a whole-table split; see
# external_copies()) runs as a table scan when a
# snapshot exists whose files in the split's partitions and buckets are
# exactly the split's files, with the same deletion vectors (file, offset,
# length) and schema ids.  The runner does not trust the case's snapshot for
# this: before running, probe_splits() asks tablescan_files() of the very
# foreign tables the queries will read, for each snapshot of the table, and
# keeps the first snapshot whose listing matches (the case's own snapshot
# first), then the first that matches with deletion-vectors.merge-on-read =
# 'true' (a batch scan of a deletion-vector table then lists and merges its
# level-0 files, as a merge read of the split does; the case runs with the
# option); otherwise the case is skipped saying why.  Splits that share one
# bucket become one foreign table (partition_filter = OR of their partitions,
# bucket_filter); splits of different buckets become one foreign table each,
# read as a UNION ALL.
#
# A streaming case of an append table runs each plan as the batch read it
# equals: the first plan of a full startup mode as a batch scan of its
# snapshot, every incremental plan for snapshot S as incremental-between
# 'C,S' where C is the snapshot the stream had reached (start exclusive,
# end inclusive; COMPACT/OVERWRITE snapshots add no rows to either), and
# "stream_end" as incremental-between 'C,<latest>' returning no rows.
# Primary-key tables (deduplicate) map the same way: their incremental plans
# are read with the system column _ROW_KIND and compared with row_kinds; on
# tables with deletion vectors every read sets 'deletion-vectors.merge-on-read'
# = 'true', the option under which Java's batch scans read level-0 files as
# the stream does (the full startup then merges all levels with the deletion
# vectors, the incremental read the range's level-0 files).  First-row tables
# get no batch read: none of theirs sees level 0.  A stream reads each delta split unmerged while
# incremental-between merges the range's level-0 files by key, so every such
# query also yields an extra (failing) row when its row count differs from
# the row_count sum of the files tablescan_files() lists for it.
#
# Beside those batch reads every streaming case runs as the extension's own
# stream (tablescan_changes): the full startup as the first read of a consumer
# with max_snapshots => 1 through a foreign table with the case's startup
# options and no _ROW_KIND column (the consumer is dropped after it), each
# plan for snapshot S as the range from_snapshot => C+1, to_snapshot => S
# (with _ROW_KIND on primary-key tables), and "stream_end" as the range up to
# the latest snapshot returning no rows.
# ---------------------------------------------------------------------------

# A pseudo-option of the runner's own: the foreign table is created without
# the case's hidden columns (a stream's full start refuses "_ROW_KIND").
PLAIN_TABLE_OPTION = "#plain"
# The consumer a streaming case's full start is read through (dropped after).
STREAM_CONSUMER = "conformance"

# Options that choose a scan's starting snapshot (replaced by the mapping).
STARTUP_OPTIONS = {"scan.snapshot-id", "scan.mode", "scan.tag-name", "scan.timestamp-millis",
                   "scan.timestamp", "scan.watermark", "scan.version",
                   "incremental-between", "incremental-between-timestamp"}
# Table options that decide how a primary-key merge combines records.
MERGE_OPTION_RE = re.compile(r"^(merge-engine|ignore-delete|sequence\.field|rowkind\.field"
                             r"|(partial-update|deduplicate|first-row|aggregation)\..+"
                             r"|fields\..+)$")

# Paimon's defaults (CoreOptions) of table merge options a read-time override
# may leave behind; a split read given merge options runs without the table's.
MERGE_OPTION_DEFAULTS = {
    "ignore-delete": "false",
    "partial-update.ignore-delete": "false",
    "first-row.ignore-delete": "false",
    "deduplicate.ignore-delete": "false",
    "partial-update.remove-record-on-delete": "false",
}

SPLIT_FILE_COLUMNS = ("partition", "bucket", "file_name", "level", "schema_id",
                      "deletion_file", "deletion_offset", "deletion_length",
                      "deletion_cardinality")


def table_meta_dir(shared_dir, case, branch=None):
    """The directory holding snapshot/ and schema/ of the case's table (branch)."""
    d = os.path.join(shared_dir, "testdata", case["table"])
    if branch and branch != "main":
        d = os.path.join(d, "branch", "branch-%s" % branch)
    return d


def snapshot_ids(meta_dir):
    """Snapshot ids present in <table>/snapshot/, ascending."""
    try:
        names = os.listdir(os.path.join(meta_dir, "snapshot"))
    except OSError:
        return []
    return sorted(int(n[9:]) for n in names if re.fullmatch(r"snapshot-\d+", n))


def snapshot_schema_id(meta_dir, snapshot):
    """The schemaId of <table>/snapshot/snapshot-N, or None."""
    try:
        with open(os.path.join(meta_dir, "snapshot", "snapshot-%d" % snapshot),
                  encoding="utf-8") as fh:
            return json.load(fh).get("schemaId")
    except (OSError, ValueError):
        return None


def latest_schema(meta_dir):
    """The newest schema-N JSON of the table, or None."""
    try:
        names = os.listdir(os.path.join(meta_dir, "schema"))
    except OSError:
        return None
    ids = sorted(int(n[7:]) for n in names if re.fullmatch(r"schema-\d+", n))
    if not ids:
        return None
    with open(os.path.join(meta_dir, "schema", "schema-%d" % ids[-1]), encoding="utf-8") as fh:
        return json.load(fh)


def partition_filter_entry(part):
    """A split's typed partition as a partition_filter entry (path strings)."""
    out = {}
    for k, v in part.items():
        if v is None or isinstance(v, (dict, list, float)):
            raise ValueError("partition value %s=%r has no partition path string" % (k, v))
        if isinstance(v, bool):
            out[k] = "true" if v else "false"
        else:
            out[k] = str(v)
    return out


def split_groups(case):
    """The case's hand-built splits as [{partition, bucket, files: {name: attrs}}],
    one per (partition, bucket); partition/bucket None = not restricted.
    attrs: dv = (path, offset, length, cardinality) or None, schema_id or None."""
    splits = case.get("read_splits")
    if splits is None:
        if not case.get("files"):
            raise ValueError("names no split files")
        splits = [{"partition": None, "bucket": None, "files": case["files"]}]
    groups = collections.OrderedDict()
    for sp in splits:
        files = sp.get("files") or []
        dvs = sp.get("deletion_files")
        sids = sp.get("schema_ids")
        if not files:
            raise ValueError("a split names no files")
        if dvs is not None and len(dvs) != len(files):
            raise ValueError("deletion_files not parallel to files")
        if sids is not None and len(sids) != len(files):
            raise ValueError("schema_ids not parallel to files")
        part = sp.get("partition")
        key = (json.dumps(part, sort_keys=True), sp.get("bucket"))
        g = groups.setdefault(key, {"partition": part, "bucket": sp.get("bucket"),
                                    "files": collections.OrderedDict()})
        for i, f in enumerate(files):
            name = os.path.basename(f)
            if name in g["files"]:
                raise ValueError("split reads file %s twice" % name)
            dv = dvs[i] if dvs is not None else None
            if dv is not None:
                dv = (dv["path"], int(dv["offset"]), int(dv["length"]), dv.get("cardinality"))
            g["files"][name] = {"dv": dv, "schema_id": sids[i] if sids is not None else None}
    groups = list(groups.values())
    if len(groups) > 1 and any(g["partition"] is None or g["bucket"] is None for g in groups):
        raise ValueError("splits without partition and bucket cannot be told apart")
    return groups


def split_layout(groups, fixed_buckets=True):
    """[(table filter options, [groups it reads])]: one table when the splits
    share a bucket, else one per split.  Without fixed buckets (bucket -1:
    bucket_filter is refused) the tables are not restricted to a bucket;
    match_split_files() still checks every file's bucket."""
    buckets = {g["bucket"] for g in groups}
    if len(buckets) == 1:
        tables = [groups]
    else:
        tables = [[g] for g in groups]
    out = []
    for gs in tables:
        opts = []
        parts = [g["partition"] for g in gs]
        if parts[0] is not None and any(parts):
            opts.append(("partition_filter", json.dumps(
                [partition_filter_entry(p) for p in parts], ensure_ascii=False)))
        if gs[0]["bucket"] is not None and fixed_buckets:
            opts.append(("bucket_filter", str(gs[0]["bucket"])))
        out.append((opts, gs))
    return out


def match_split_files(groups, rows):
    """Compare tablescan_files() rows (SPLIT_FILE_COLUMNS) of one table with
    the groups it should read; returns None when they are exactly the
    split's files and deletion vectors, else why not."""
    want = {}
    for g in groups:
        for name, attrs in g["files"].items():
            want[name] = (g, attrs)
    got = {}
    for r in rows:
        rec = dict(zip(SPLIT_FILE_COLUMNS, r))
        name = os.path.basename(str(rec["file_name"]))
        if name in got:
            return "the scan reads file %s twice" % name
        got[name] = rec
    missing = [n for n in want if n not in got]
    extra = [n for n in got if n not in want]
    if missing or extra:
        return "files differ (%d of the split's files not live, %d other live files)" % (
            len(missing), len(extra))
    for name, (g, attrs) in want.items():
        rec = got[name]
        part = rec["partition"]
        if isinstance(part, str):
            part = load_json_text(part)
        if g["partition"] is not None and _partition_key(part) != _partition_key(g["partition"]):
            return "file %s lives in partition %s" % (name, json.dumps(part))
        if g["bucket"] is not None and int(rec["bucket"]) != int(g["bucket"]):
            return "file %s lives in bucket %s" % (name, rec["bucket"])
        if attrs["schema_id"] is not None and rec["schema_id"] is not None \
                and int(rec["schema_id"]) != int(attrs["schema_id"]):
            return "file %s has schema %s, the split says %s" % (name, rec["schema_id"],
                                                                 attrs["schema_id"])
        dv = attrs["dv"]
        if dv is None and rec["deletion_file"] is not None:
            return "the scan applies a deletion vector to %s, the split none" % name
        if dv is not None:
            if rec["deletion_file"] is None:
                return "the split applies a deletion vector to %s, the scan none" % name
            path = str(rec["deletion_file"]).replace("\\", "/")
            if not (path == dv[0] or path.endswith("/" + dv[0].lstrip("/"))) \
                    or int(rec["deletion_offset"]) != dv[1] \
                    or int(rec["deletion_length"]) != dv[2] \
                    or (dv[3] is not None and rec["deletion_cardinality"] is not None
                        and int(rec["deletion_cardinality"]) != int(dv[3])):
                return "deletion vector of %s differs (%s %s+%s vs the split's %s %s+%s)" % (
                    name, os.path.basename(path), rec["deletion_offset"],
                    rec["deletion_length"], os.path.basename(dv[0]), dv[1], dv[2])
    return None


class SplitProbe:
    """What probe_splits() needs: the groups, the candidate snapshots and
    the foreign table options without a snapshot or filters."""

    def __init__(self, groups, base_options, snapshots, fixed_buckets=True):
        self.groups = groups
        self.layout = split_layout(groups, fixed_buckets)
        self.base_options = base_options
        self.snapshots = snapshots
        self.resolved = None        # (snapshot, None, extra) or (None, skip reason, ())

    def table_sets(self, snapshot, extra=()):
        base = [(k, v) for k, v in self.base_options if k not in dict(extra)]
        return [sorted(base + [("scan.snapshot-id", str(snapshot))] + list(extra))
                + opts for opts, _ in self.layout]


def external_copies(shared_dir, case):
    """A split that names no files but an "external_path" directory reads
    the data files there (its DataFileMeta point at them): (their names,
    None) when each is a byte-identical copy of the one file of that name in
    the table directory, else (None, why)."""
    edir = os.path.join(shared_dir, "testdata", case["external_path"])
    try:
        names = sorted(n for n in os.listdir(edir)
                       if os.path.isfile(os.path.join(edir, n)) and not n.startswith(".")
                       and not n.endswith((".index", ".crc")))
    except OSError as e:
        return None, "cannot list %s (%s)" % (case["external_path"], e.strerror)
    if not names:
        return None, "no data files under %s" % case["external_path"]
    found = collections.defaultdict(list)
    tdir = os.path.join(shared_dir, "testdata", case["table"])
    for root, _, fnames in os.walk(tdir):
        for n in fnames:
            if n in names:
                found[n].append(os.path.join(root, n))
    for n in names:
        if len(found[n]) != 1:
            return None, "%d files named %s in the table" % (len(found[n]), n)
        if not filecmp.cmp(os.path.join(edir, n), found[n][0], shallow=False):
            return None, "%s differs from the table's file" % n
    return names, None


def data_file_split(shared_dir, case):
    """A case that reads data files of a table with the file reader, as
    hand-built splits ([{partition, bucket, files}], None) when that is what a
    table scan of those files returns: an append table (a primary-key table's
    file holds -U/-D rows and duplicate keys a scan merges away) and files
    under <k=v>/.../bucket-<n>/.  Else (None, why)."""
    files = case.get("files") or []
    if not files:
        return None, "names no file"
    meta = table_meta_dir(shared_dir, case, case.get("branch"))
    schema = latest_schema(meta) or {}
    if schema.get("primaryKeys"):
        return None, "a primary-key table's file holds rows its scan merges"
    splits = collections.OrderedDict()
    for f in files:
        parts = f.split("/")
        if len(parts) < 2 or not re.fullmatch(r"bucket-\d+", parts[-2]):
            return None, "file %s is not under a bucket directory" % f
        part = {}
        for comp in parts[:-2]:
            if "=" not in comp:
                return None, "file %s: %s is not a partition directory" % (f, comp)
            k, v = comp.split("=", 1)
            part[urllib.parse.unquote(k)] = urllib.parse.unquote(v)
        bucket = int(parts[-2][len("bucket-"):])
        key = (json.dumps(part, sort_keys=True), bucket)
        splits.setdefault(key, {"partition": part, "bucket": bucket, "files": []})
        splits[key]["files"].append(parts[-1])
    return list(splits.values()), None


def split_case_setup(cp, case, shared_dir, topts):
    """build_case() for a hand-built-split case without equivalent_table_scan:
    cp.table_sets as if the case's snapshot matched (checked by probe_splits()
    before running) and cp.split_probe; returns a skip reason or None."""
    if case.get("serialized_splits") and not case.get("read_splits"):
        return "reads Java-serialized splits, which the runner does not decode"
    if case.get("external_path") and not case.get("read_splits") and not case.get("files"):
        files, why = external_copies(shared_dir, case)
        if why:
            return "split reads copies under an external path: " + why
        case = dict(case, files=files)
    elif case.get("external_path") or any(sp.get("external_path")
                                          for sp in case.get("read_splits") or []):
        return "split reads copies of the data files under an external path"
    if case.get("partition_filter") is not None or case.get("bucket_filter") is not None:
        return "hand-built split case with its own partition/bucket filter"
    try:
        groups = split_groups(case)
        split_layout(groups)
    except (ValueError, TypeError, KeyError) as e:
        return "hand-built split not mapped: %s" % e
    meta = table_meta_dir(shared_dir, case, case.get("branch"))
    opts = case.get("options") or {}
    table_opts = (latest_schema(meta) or {}).get("options") or {}
    try:
        fixed_buckets = int(opts.get("bucket", table_opts.get("bucket", -1))) > 0
    except ValueError:
        return "table has an unreadable bucket option"
    base = [(k, v) for k, v in topts if k not in STARTUP_OPTIONS]
    if any(MERGE_OPTION_RE.match(k) for k in opts):
        # a split read given merge options may run with those alone (the
        # split-read tests build their read context from them), a table
        # scan always with the table's own merge options under them: those
        # the case leaves are set back to Paimon's defaults where known
        kept = sorted(k for k in table_opts if MERGE_OPTION_RE.match(k) and k not in opts)
        unknown = [k for k in kept if k not in MERGE_OPTION_DEFAULTS]
        if unknown:
            return ("the case overrides merge options at read time but not the table's %s, "
                    "which a table scan would keep" % ", ".join(unknown))
        base += [(k, MERGE_OPTION_DEFAULTS[k]) for k in kept]
    snaps = snapshot_ids(meta)
    first = case.get("snapshot")
    if first is None and snaps:
        first = snaps[-1]
    if first is None:
        return "table has no snapshot to hold the split's files"
    # other snapshots holding the same files qualify only under the same
    # schema (a scan of a snapshot reads with its schema)
    sid = snapshot_schema_id(meta, first)
    order = [first] + [s for s in reversed(snaps)
                       if s != first and snapshot_schema_id(meta, s) == sid]
    cp.split_probe = SplitProbe(groups, base, order, fixed_buckets)
    cp.table_sets = cp.split_probe.table_sets(first)
    return None


def probe_splits(args, cp, schema):
    """Find the snapshot whose scan reads exactly the case's split files
    (see the section comment); sets cp.table_sets, or returns why not."""
    pr = cp.split_probe
    if pr.resolved is not None:
        snap, reason, extra = pr.resolved
        if snap is not None:
            cp.table_sets = pr.table_sets(snap, extra)
        return reason
    lines = [session_preamble(), "DROP SCHEMA IF EXISTS %s CASCADE;" % schema,
             "CREATE SCHEMA %s;" % schema]
    cols = ", ".join("%s %s" % (quote_ident(n), pg_type(t)) for n, t in cp.columns + cp.hidden)
    probes = []                 # (tag, snapshot, table index, merge_on_read)
    mor_extra = [("deletion-vectors.merge-on-read", "true")]
    variants = [(s, False) for s in pr.snapshots] + [(s, True) for s in pr.snapshots]
    for s, mor in variants:
        extra = mor_extra if mor else []
        for ti, opts in enumerate(pr.table_sets(s, extra)):
            tag = "p%d" % len(probes)
            table = "%s.%s" % (schema, tag)
            probes.append((tag, s, ti, mor))
            lines.append(_step(tag + "c", "CREATE FOREIGN TABLE %s (%s) SERVER %s OPTIONS (%s)" % (
                table, cols, SERVER_NAME, ", ".join("%s %s" % (quote_ident(k), quote_literal(v))
                                                    for k, v in opts))))
            lines.append(_step(tag, "SELECT json_build_array(%s) FROM tablescan_files(%s::regclass)"
                               % (", ".join(SPLIT_FILE_COLUMNS), quote_literal(table))))
    lines.append("DROP SCHEMA IF EXISTS %s CASCADE;" % schema)
    lines.append("\\echo %s DONE" % MARK)
    out, err, _ = run_psql(args, "\n".join(lines) + "\n", args.timeout)
    if out is None:
        return None             # let the case itself report the failure
    steps, done = parse_session(out)
    if not done:
        return None
    verdict = {}                # (snapshot, mor) -> None (match) or reason
    levels0 = set()             # level-0 files with merge-on-read, first snapshot
    visible = set()             # files listed without it, first snapshot
    for tag, s, ti, mor in probes:
        ok_c = steps.get(tag + "c", (False,))[0]
        st = steps.get(tag)
        if not ok_c or st is None or not st[0]:
            msg = (steps.get(tag + "c") or (0, 0, ""))[2] or (st[2] if st else "no answer")
            verdict.setdefault((s, mor), "listing the files failed: %s" % msg)
            continue
        try:
            rows = [load_json_text(ln) for ln in st[3]]
        except ValueError as e:
            verdict.setdefault((s, mor), "tablescan_files() output not JSON: %s" % e)
            continue
        for r in rows:
            rec = dict(zip(SPLIT_FILE_COLUMNS, r))
            name = os.path.basename(str(rec["file_name"]))
            if mor and rec["level"] == 0:
                levels0.add(name)
            elif not mor and s == pr.snapshots[0]:
                visible.add(name)
        why = match_split_files(pr.layout[ti][1], rows)
        if why is not None:
            verdict.setdefault((s, mor), why)
        else:
            verdict.setdefault((s, mor), None)
    # a plain scan first; else one with deletion-vectors.merge-on-read, which
    # on deletion-vector tables lists (and merges) the level-0 files a plain
    # batch scan hides, as a Java merge read of the split does
    for mor in (False, True):
        for s in pr.snapshots:
            if (s, mor) in verdict and verdict[(s, mor)] is None:
                extra = mor_extra if mor else []
                pr.resolved = (s, None, extra)
                cp.table_sets = pr.table_sets(s, extra)
                return None
    split_files = {n for g in pr.groups for n in g["files"]}
    hidden = sorted((split_files - visible) & levels0)
    if hidden:
        reason = ("split reads level-0 file(s) that a batch scan of this table hides "
                  "(deletion vectors / first-row read only level > 0) and no scan with "
                  "deletion-vectors.merge-on-read lists exactly its files: %s" % ", ".join(hidden))
    else:
        reason = "split files are not the live files of any snapshot (snapshot %s: %s)" % (
            pr.snapshots[0], verdict.get((pr.snapshots[0], False), "not listed"))
    pr.resolved = (None, reason, ())
    return reason


def stream_queries(cp, case, shared_dir, topts, types):
    """Queries for a streaming case (one per plan and reading, see the
    section comment), or a skip reason."""
    opts = case.get("options") or {}
    plans = case.get("stream_plans")
    if not plans:
        return "streaming case without stream_plans"
    meta = table_meta_dir(shared_dir, case, case.get("branch"))
    schema = latest_schema(meta)
    if schema is None:
        return "streaming case of a table without a schema"
    pk = list(schema.get("primaryKeys") or [])
    batch_why = pk_stream_unsupported(schema, opts) if pk else None
    if not pk and (case.get("predicate_expr") or case.get("predicate")):
        return "streaming plans with a predicate (rows may be pruned only)"
    for p in plans:
        if not pk and any(k != "+I" for k in p.get("row_kinds") or []):
            return "streaming plan asserts non-insert row kinds"
        if p.get("rows") is None:
            return "streaming plan without rows"
        if pk and len(p.get("row_kinds") or []) != len(p["rows"]):
            return "streaming plan of a primary-key table without a row kind per row"
    mode = str(opts.get("scan.mode", "default"))
    start = opts.get("scan.snapshot-id")
    other = [k for k in opts if k in STARTUP_OPTIONS and k not in ("scan.snapshot-id", "scan.mode")]
    if other:
        return "streaming startup option %s not mapped" % other[0]
    plans = list(plans)
    full_first = None
    if start is not None and mode in ("default", "from-snapshot"):
        cursor = int(start) - 1
    elif start is not None and mode == "from-snapshot-full":
        full_first = int(start)
    elif start is None and mode in ("default", "latest-full", "full"):
        full_first = plans[0].get("snapshot") if plans else None
        if full_first is None:
            return "streaming full startup without a first snapshot"
    else:
        return "streaming startup mode %s not mapped" % mode
    base = [(k, v) for k, v in topts if k not in STARTUP_OPTIONS]
    stream_base = list(base)
    if pk:
        more = pk_stream_extra_options(schema, opts)
        base = [(k, v) for k, v in base if k not in dict(more)] + more
    queries = []                # (label, options, rows, how): how = None (batch read),
    #                             "consumer" (a full start) or (from, to) (a range)
    if full_first is not None:
        first = plans.pop(0)
        if first.get("snapshot") != full_first:
            return "streaming full startup plan is not of snapshot %s" % full_first
        if any(k != "+I" for k in first.get("row_kinds") or []):
            return "streaming full startup plan asserts non-insert row kinds"
        if pk and (case.get("predicate_expr") or case.get("predicate")):
            return "streaming full startup of a primary-key table with a predicate"
        queries.append(("snapshot-%d-full" % full_first, base + [("scan.snapshot-id", str(full_first))],
                        first["rows"], None))
        # the stream's own full start: a consumer's first read, by the case's
        # startup options, through a table without _ROW_KIND
        starting = [(k, v) for k, v in topts if k in ("scan.mode", "scan.snapshot-id")]
        queries.append(("stream-%d-full" % full_first,
                        stream_base + starting + [(PLAIN_TABLE_OPTION, "true")],
                        first["rows"], "consumer"))
        cursor = full_first
    elif plans and plans[0].get("snapshot") is None:
        if plans[0]["rows"]:
            return "streaming plan without a snapshot has rows"
        plans.pop(0)
    if pk and (case.get("predicate_expr") or case.get("predicate")):
        why = pk_stream_predicate_ignored(case, schema)
        if why:
            return why
    for p in plans:
        s = p.get("snapshot")
        if s is None or int(s) <= cursor:
            return "streaming plans are not in snapshot order"
        rows = p["rows"]
        if pk:
            rows = [list(r) + [k] for r, k in zip(rows, p["row_kinds"])]
        queries.append(("snapshot-%d" % int(s),
                        base + [("incremental-between", "%d,%d" % (cursor, int(s)))], rows, None))
        queries.append(("stream-%d" % int(s), stream_base, rows, (cursor + 1, int(s))))
        cursor = int(s)
    snaps = snapshot_ids(meta)
    if case.get("stream_end") and snaps and snaps[-1] > cursor:
        queries.append(("end", base + [("incremental-between", "%d,%d" % (cursor, snaps[-1]))],
                        [], None))
        queries.append(("stream-end", stream_base, [], (cursor + 1, snaps[-1])))
    if opts.get("limit") is not None:
        return "streaming case with a LIMIT"
    if batch_why:
        # no batch read equals these plans: only the stream function's
        queries = [q for q in queries if q[3] is not None]
    cols = ", ".join(quote_ident(n) for n, _ in cp.columns)
    if pk and any(isinstance(q[3], tuple) or (q[3] is None and "full" not in q[0])
                  for q in queries):
        cp.hidden.append(("_ROW_KIND", parse_type("STRING")))
    for label, table_opts, rows, how in queries:
        delta = pk and how != "consumer" and "full" not in label
        q = Query("%s#%s" % (cp.name, label), None, "rows", rows,
                  types + [parse_type("STRING")] if delta else types)
        shown = ", ".join(x for x in (cols, quote_ident("_ROW_KIND") if delta else "") if x)
        if how is None and delta:
            q.make_sql = lambda table: pk_delta_sql(cols, table)
            q.mock_skip = "row kinds and the unmerged check read the real table"
        elif how is None:
            q.make_sql = (lambda shown: lambda table: "SELECT json_build_array(%s) FROM %s"
                          % (shown, table))(shown)
            q.mock_rows = rows
        elif how == "consumer":
            q.make_sql = (lambda shown: lambda table: (
                "SELECT json_build_array(%s) FROM tablescan_changes(NULL::%s, consumer => %s, "
                "max_snapshots => 1)" % (shown, table, quote_literal(STREAM_CONSUMER))))(shown)
            q.after_sql = lambda table: ("SELECT tablescan_consumer_drop(%s::regclass, %s)"
                                         % (quote_literal(table), quote_literal(STREAM_CONSUMER)))
            q.mock_skip = "the stream function reads the real table"
        else:
            q.make_sql = (lambda shown, lo, hi: lambda table: (
                "SELECT json_build_array(%s) FROM tablescan_changes(NULL::%s, from_snapshot => %d, "
                "to_snapshot => %d)" % (shown, table, lo, hi)))(shown, how[0], how[1])
            q.mock_skip = "the stream function reads the real table"
        q.table_sets = [sorted(table_opts)]
        cp.queries.append(q)
    return None


def pk_stream_options(schema, opts):
    """The table options a primary-key stream's plans are read with, merged
    from the schema and the case."""
    o = dict(schema.get("options") or {})
    o.update({k: _option_value(v) for k, v in opts.items()})
    return o


def pk_stream_unsupported(schema, opts):
    """Why the stream of a primary-key table cannot be read as batch reads
    (None if it can): the stream's delta plans read the level-0 files of
    each APPEND snapshot unmerged with their row kinds, which
    incremental-between gives (merged, retracts kept) for deduplicate tables
    only (other engines fold a key's records into another row), and its
    full startup plans merge every level including 0.  On
    deletion-vector tables both need 'deletion-vectors.merge-on-read' (see
    pk_stream_extra_options); first-row tables have no such option: Java's
    batch scan always hides their level-0 files."""
    o = pk_stream_options(schema, opts)
    engine = str(o.get("merge-engine", "deduplicate")).lower()
    if engine == "first-row":
        return ("streaming read of a primary-key table with merge-engine first-row (its plans "
                "read level-0 files: the full startup merged first-row, each delta unmerged; "
                "every batch read of a first-row table hides level 0 and no option shows it)")
    if engine != "deduplicate":
        return ("streaming read of a primary-key table with merge-engine %s (incremental-between "
                "folds a key's records with the engine, the stream's delta plans read them "
                "unmerged)" % engine)
    producer = str(o.get("changelog-producer", "none")).lower()
    if producer != "none":
        return ("streaming read of a primary-key table with changelog-producer %s (the stream "
                "reads changelog files)" % producer)
    return None


def pk_stream_extra_options(schema, opts):
    """Options every batch read of a primary-key stream adds: on tables with
    deletion vectors the stream sees level-0 files (DataTableStreamScan sets
    no level filter) while a batch scan hides them unless
    'deletion-vectors.merge-on-read' is true (CoreOptions.batchScanSkipLevel0),
    so the full startup and the incremental reads set it."""
    o = pk_stream_options(schema, opts)
    if str(o.get("deletion-vectors.enabled", "false")).lower() == "true":
        return [("deletion-vectors.merge-on-read", "true")]
    return []


def pk_stream_predicate_ignored(case, schema):
    """Delta splits of a stream apply only predicates on key and partition
    fields; a predicate on other fields changes no row of them, so the plans
    run without it (None), else the reason to skip."""
    names = set()

    def walk(e):
        if isinstance(e, list):
            if len(e) >= 2 and isinstance(e[0], str) and isinstance(e[1], str) \
                    and e[0] not in ("and", "or", "not"):
                names.add(e[1])
            for x in e[1:]:
                walk(x)
    if case.get("predicate_expr"):
        walk(case["predicate_expr"])
    else:
        text = str(case.get("predicate"))
        names = set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=|<>|!=|<=|>=|<|>|\bIS\b|\bIN\b)",
                               text.split("(")[0]))
        if not names:
            return "streaming predicate not understood: %s" % text
    keys = set(schema.get("primaryKeys") or []) | set(schema.get("partitionKeys") or [])
    if names & keys:
        return ("streaming predicate on key or partition fields %s (it prunes delta splits)"
                % ", ".join(sorted(names & keys)))
    return None


def pk_delta_sql(cols, table):
    """The rows and row kinds of an incremental read, plus one extra row if
    the read merged any key (fewer rows than its files hold): a stream reads
    delta files unmerged, so only a read that merged nothing equals it."""
    return ("SELECT json_build_array(%s) FROM %s UNION ALL "
            "SELECT json_build_array('incremental read merged rows, the stream would not') "
            "WHERE (SELECT count(*) FROM %s) <> "
            "(SELECT coalesce(sum(row_count), 0) FROM tablescan_files(%s::regclass))"
            % (", ".join(x for x in (cols, quote_ident("_ROW_KIND")) if x), table, table,
               quote_literal(table)))


# ---------------------------------------------------------------------------
# Turning a case into work: skips, foreign table DDL and queries
# ---------------------------------------------------------------------------

class Query:
    """One comparison of a case: a SELECT plus how to judge its output."""

    def __init__(self, name, sql, kind, expected=None, types=None,
                 subset_ok=False, skip=None, mock_rows=None, tolerate=None):
        self.name = name            # printed name: case or case#label
        self.make_sql = sql         # table name -> SELECT giving one JSON array per line
        self.sql = None             # the SELECT as run
        self.kind = kind            # "rows", "count" or "plan"
        self.expected = expected    # rows / expected count / expected_splits
        self.types = types          # [PType] of the projected columns
        self.subset_ok = subset_ok  # plan: extra files allowed
        self.skip = skip            # reason when this comparison is skipped
        self.mock_skip = None       # reason to skip it under --mock only
        self.mock_rows = mock_rows  # --mock: rows to load into the stand-in table
        self.tolerate = tolerate    # rows allowed on either side (see microsecond_ambiguity)
        self.table_sets = None      # [[(key, value)]] foreign tables read (UNION ALL); None = the case's
        self.ordered = False        # meta: compare in order
        self.after_sql = None       # table name -> a statement run after it, not judged


class CasePlan:
    """Everything needed to run one case file in one psql session."""

    def __init__(self, case):
        self.case = case
        self.name = case["case"]
        self.skip = None            # reason when the whole case is skipped
        self.columns = []           # [(name, PType)] of the foreign table
        self.hidden = []            # more foreign table columns, never projected
        self.table_options = []     # [(key, value)]
        self.table_sets = None      # [[(key, value)]] read as UNION ALL; None = [table_options]
        self.split_probe = None     # SplitProbe: check the hand-built split mapping first
        self.split_skip_prefix = "reads hand-built splits and has no equivalent table scan: "
        self.queries = []


def _option_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def without_system_columns(case):
    """A copy of the case with the Paimon system columns projected away
    (--without-system-columns): the remaining columns are still compared as
    a multiset; predicates on system columns become untranslatable."""
    keep = [i for i, c in enumerate(case["columns"]) if not is_system_column(c)]

    def proj(rows):
        if rows is None:
            return None
        return [[r[i] for i in keep] for r in rows]
    out = dict(case)
    out["columns"] = [case["columns"][i] for i in keep]
    for k in ("rows", "rows_after_filter"):
        if k in out:
            out[k] = proj(out[k])
    if out.get("subcases"):
        subs = []
        for sc in out["subcases"]:
            sc = dict(sc)
            for k in ("rows", "rows_after_filter"):
                if k in sc:
                    sc[k] = proj(sc[k])
            subs.append(sc)
        out["subcases"] = subs
    return out


def build_case(case, shared_dir, drop_system=False):
    """Decide what to run for a case (or why to skip it)."""
    cp = CasePlan(case)
    scope = case.get("scope")
    ets = case.get("equivalent_table_scan")
    opts = case.get("options") or {}

    if case.get("table") is None:
        cp.skip = "raw file / manifest case without a table (covered by C unit tests)"
        return cp
    streaming = case.get("mode") == "streaming" or case.get("stream_plans") is not None \
        or bool(opts.get("streaming"))
    file_split = None
    if scope == "data_file" and not ets:
        file_split, why = data_file_split(shared_dir, case)
        if why:
            cp.skip = "reads a single data file, not a table scan: %s (covered by C unit tests)" % why
            return cp
        case = dict(case, read_splits=file_split)
    elif scope in META_SCOPES and not ets:
        cp.skip = meta_case_setup(cp, case, shared_dir)
        return cp
    elif scope in FILE_SCOPES and not ets:
        cp.skip = "reads a single data/manifest file, not a table scan (covered by C unit tests)"
        return cp
    hand_built = (scope in SPLIT_SCOPES or file_split is not None) and not ets and not streaming
    if any(is_system_column(c) for c in case.get("columns") or []):
        if drop_system:
            case = without_system_columns(case)
        else:
            other = [c["name"] for c in case["columns"]
                     if is_system_column(c) and c["name"] not in SUPPORTED_SYSTEM_COLUMNS]
            if other:
                cp.skip = "system columns not supported (%s)" % ", ".join(other)
                return cp

    try:
        cp.columns = [(c["name"], parse_type(c["type"])) for c in case.get("columns") or []]
        for _, t in cp.columns:
            pg_type(t)
    except ValueError as e:
        cp.skip = "column type not mapped: %s" % e
        return cp
    coltypes = dict(cp.columns)
    types = [t for _, t in cp.columns]

    # ---- foreign table options ----
    topts = table_location(shared_dir, case["table"])
    paimon = {k: _option_value(v) for k, v in opts.items() if k not in NON_PAIMON_OPTIONS}
    snapshot = case.get("snapshot")
    branch = case.get("branch")
    if ets:
        snapshot = ets.get("snapshot")
        if ets.get("branch"):
            branch = ets["branch"]
        if ets.get("fallback_branch"):
            paimon["scan.fallback-branch"] = ets["fallback_branch"]
    if snapshot is not None and "scan.snapshot-id" not in paimon \
            and "scan.mode" not in paimon and "scan.tag-name" not in paimon:
        paimon["scan.snapshot-id"] = str(snapshot)
    if branch and branch != "main":
        topts.append(("branch", branch))
    if case.get("partition_filter") is not None:
        topts.append(("partition_filter", json.dumps(case["partition_filter"], ensure_ascii=False)))
    if case.get("bucket_filter") is not None:
        topts.append(("bucket_filter", str(case["bucket_filter"])))
    rw = case.get("external_path_rewrite")
    if rw and rw.get("from") and rw.get("to") and "external-path-map" not in paimon:
        # manifests name FILE:/tmp/external/...: point that prefix at the copy
        # under testdata (the extension's "external-path-map" FROM=>TO option)
        paimon["external-path-map"] = "%s=>%s" % (
            rw["from"], data_location(shared_dir, rw["to"]))
    topts += sorted(paimon.items())
    cp.table_options = topts
    limit = opts.get("limit")

    if streaming:
        cp.skip = stream_queries(cp, case, shared_dir, topts, types)
        if cp.skip:
            cp.skip = "streaming scan not mapped to batch reads: " + cp.skip
        return cp
    if hand_built:
        if file_split is not None:
            cp.split_skip_prefix = "reads a single data file and no table scan reads just it: "
        cp.skip = split_case_setup(cp, case, shared_dir, topts)
        if cp.skip:
            cp.skip = cp.split_skip_prefix + cp.skip
            return cp

    # ---- plan-only ----
    if case.get("mode") == "scan_plan_only" or (case.get("rows") is None
                                                and case.get("expected_splits") is not None):
        if case.get("expected_splits") is None:
            cp.skip = "plan-only case without expected_splits"
            return cp
        subset_ok = bool(case.get("predicate_expr")) or limit is not None
        cp.queries.append(Query(cp.name, None, "plan", case["expected_splits"],
                                subset_ok=subset_ok))
        return cp

    # ---- row comparisons ----
    def select_sql(where, lim=None):
        """The SELECT as a function of the (schema-qualified) table name."""
        cols = ", ".join(quote_ident(n) for n, _ in cp.columns)
        tail = (" WHERE " + where if where else "") + \
            (" LIMIT %d" % int(lim) if lim is not None else "")
        return lambda table: "SELECT json_build_array(%s) FROM %s%s" % (cols, table, tail)

    def row_id_where(ranges):
        """A row-id range selection as SQL on the "_ROW_ID" system column."""
        if drop_system:
            return None
        if "_ROW_ID" not in coltypes and "_ROW_ID" not in [n for n, _ in cp.hidden]:
            cp.hidden.append(("_ROW_ID", parse_type("BIGINT")))
        return "(%s)" % " OR ".join('("_ROW_ID" BETWEEN %d AND %d)' % (int(a), int(b))
                                    for a, b in ranges)

    def row_query(name, item, universe):
        """Query for a case or subcase dict item ("rows", predicate...)."""
        ranges = None
        if item.get("row_id_ranges"):
            ranges = row_id_where(item["row_id_ranges"])
            if ranges is None:
                return Query(name, None, "rows",
                             skip="row-id range selection needs the _ROW_ID column")
        q = plain_row_query(name, item, universe, ranges)
        if ranges and "_ROW_ID" not in coltypes:
            q.mock_skip = "row-id range selection reads the hidden _ROW_ID column"
        return q

    def plain_row_query(name, item, universe, ranges):
        kinds = item.get("row_kinds") or []
        if any(k != "+I" for k in kinds):
            return Query(name, None, "rows", skip="asserts non-insert row kinds (changelog)")
        expr = item.get("predicate_expr")
        where = None
        if expr:
            try:
                where = predicate_sql(expr, coltypes)
            except (KeyError, ValueError) as e:
                return Query(name, None, "rows", skip="predicate not translatable: %s" % e)
        if ranges:
            where = "%s AND %s" % (ranges, where) if where else ranges
        rows = item.get("rows")
        if expr and item.get("predicate_exact") is False:
            rows = item.get("rows_after_filter")
        if rows is None:
            return Query(name, None, "rows", skip="no row expectation")
        if limit is not None:
            q = Query(name, select_sql(where, limit), "count",
                      min(int(limit), len(rows)), types,
                      mock_rows=item.get("rows"))
            q.universe = rows           # the LIMIT's rows are some of these
            return q
        return Query(name, select_sql(where), "rows", rows, types,
                     mock_rows=universe,
                     tolerate=microsecond_ambiguity(expr, cp.columns))

    if not cp.columns:
        cp.skip = "no columns to read"
        return cp
    subs = case.get("subcases")
    if subs:
        full = None
        for s in subs:
            if not s.get("predicate_expr") and not s.get("row_id_ranges"):
                full = s.get("rows")
                break
        for s in subs:
            cp.queries.append(row_query("%s#%s" % (cp.name, s.get("label")), s,
                                        full if full is not None else s.get("rows")))
    else:
        if case.get("rows") is None:
            cp.skip = "no row expectation"
            return cp
        cp.queries.append(row_query(cp.name, case, case.get("rows")))
    return cp


# ---------------------------------------------------------------------------
# Manifest-list and manifest cases of a table: tablescan_manifests() and
# tablescan_manifest_entries() of the snapshot that lists the file
# ---------------------------------------------------------------------------

META_SCOPES = {"manifest_list", "manifest_file"}
# expected_entries keys -> tablescan_manifest_entries() columns
ENTRY_COLUMNS = {"kind": "kind", "partition": "partition", "bucket": "bucket",
                 "total_buckets": "total_buckets", "file": "file_name",
                 "file_name": "file_name", "file_size": "file_size",
                 "row_count": "row_count", "min_sequence_number": "min_sequence_number",
                 "max_sequence_number": "max_sequence_number", "schema_id": "schema_id",
                 "level": "level", "delete_row_count": "delete_row_count",
                 "file_source": "file_source"}
# expected_manifest_file_metas keys taken as they are (partition_stats is mapped)
LIST_COLUMNS = ("file_name", "file_size", "num_added_files", "num_deleted_files",
                "schema_id", "min_bucket", "max_bucket", "min_level", "max_level",
                "min_row_id", "max_row_id")
# how many snapshots a manifest case searches for the manifest (oldest first)
MAX_META_SNAPSHOTS = 200


def snapshot_lists(meta_dir):
    """[(id, baseManifestList, deltaManifestList)] of <meta_dir>/snapshot, ascending."""
    out = []
    for sid in snapshot_ids(meta_dir):
        try:
            with open(os.path.join(meta_dir, "snapshot", "snapshot-%d" % sid),
                      encoding="utf-8") as fh:
                snap = json.load(fh)
        except (OSError, ValueError):
            continue
        out.append((sid, snap.get("baseManifestList"), snap.get("deltaManifestList")))
    return out


def table_branches(shared_dir, case):
    """None (main) then the table's branch names."""
    try:
        names = sorted(os.listdir(os.path.join(shared_dir, "testdata", case["table"], "branch")))
    except OSError:
        names = []
    return [None] + [n[7:] for n in names if n.startswith("branch-")]


def _partition_object(keys, values):
    """A partition given as a list (in key order) as {key: value}."""
    if isinstance(values, list):
        if len(values) != len(keys):
            raise ValueError("%d partition values for partition keys %s" % (len(values), keys))
        return dict(zip(keys, values))
    return values


def expected_manifest_meta(m, keys):
    """One expected_manifest_file_metas item as tablescan_manifests() columns
    (only what the case states is compared)."""
    out = {k: m[k] for k in LIST_COLUMNS if k in m}
    ps = m.get("partition_stats", "absent")
    if ps == "empty":
        out.update(partition_min={}, partition_max={}, partition_null_counts={})
    elif ps is None:
        out.update(partition_min=None, partition_max=None, partition_null_counts=None)
    elif isinstance(ps, dict):
        for src, dst in (("min", "partition_min"), ("max", "partition_max"),
                         ("null_counts", "partition_null_counts")):
            if src in ps:
                out[dst] = _partition_object(keys, ps[src])
    return out


def expected_manifest_entry(e, keys):
    """One expected_entries item as tablescan_manifest_entries() columns."""
    out = {}
    for k, col in ENTRY_COLUMNS.items():
        if k in e:
            out[col] = _partition_object(keys, e[k]) if k == "partition" else e[k]
    return out


def _canon(v):
    """A JSON value in one comparable form (integral numbers as int)."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float, decimal.Decimal)):
        d = decimal.Decimal(v) if not isinstance(v, float) else decimal.Decimal(repr(v))
        return int(d) if d == d.to_integral_value() else str(d.normalize())
    if isinstance(v, list):
        return [_canon(x) for x in v]
    if isinstance(v, dict):
        return {k: _canon(x) for k, x in v.items()}
    return v


def compare_meta(expected, actual, ordered):
    """Expected metadata rows (dicts of the columns they state) against the
    function's rows (dicts of all its columns), in order or as a multiset.
    Returns (ok, reason, diff)."""
    def key(d):
        return json.dumps(_canon(d), sort_keys=True, default=str)

    def shown(e, a):
        return key({k: a.get(k) for k in e})
    if ordered:
        bad = [i for i, (e, a) in enumerate(zip(expected, actual)) if key(e) != shown(e, a)]
        if not bad and len(expected) == len(actual):
            return True, "", ""
        lines = ["    row %d: expected %s\n            got %s" % (i, key(expected[i]),
                                                                 shown(expected[i], actual[i]))
                 for i in bad[:10]]
        lines += ["    missing %s" % key(e) for e in expected[len(actual):][:10]]
        lines += ["    unexpected %s" % key(a) for a in actual[len(expected):][:10]]
        return False, "expected %d rows in order, got %d, %d differ" % (
            len(expected), len(actual), len(bad)), "\n".join(lines)
    left = list(actual)
    missing = []
    for e in expected:
        hit = next((i for i, a in enumerate(left) if key(e) == shown(e, a)), None)
        if hit is None:
            missing.append(e)
        else:
            left.pop(hit)
    if not missing and not left:
        return True, "", ""
    lines = ["    missing %s" % key(e) for e in missing[:10]] + \
        ["    unexpected %s" % key(a) for a in left[:10]]
    return False, "rows differ: %d missing, %d unexpected" % (len(missing), len(left)), \
        "\n".join(lines)


def meta_case_setup(cp, case, shared_dir):
    """A manifest_list / manifest_file case of a table: find the snapshot
    whose base or delta manifest list is the case's file (manifest_list;
    from the snapshot JSON files) or search the snapshots' lists for the
    manifest in SQL (manifest_file), and query the metadata function of a
    foreign table at that snapshot filtered to that list / manifest.
    Returns a skip reason or None."""
    scope = case["scope"]
    name = os.path.basename(case.get("file") or "")
    if not name:
        return "no file named"
    if scope == "manifest_list":
        rows = case.get("expected_manifest_file_metas")
        conv = expected_manifest_meta
    else:
        rows = case.get("expected_entries")
        conv = expected_manifest_entry
    if rows is None:
        return "no expectation for the %s" % scope.replace("_", " ")
    for branch in table_branches(shared_dir, case):
        meta_dir = table_meta_dir(shared_dir, case, branch)
        lists = snapshot_lists(meta_dir)
        if scope == "manifest_list":
            lists = [s for s in lists if name in (s[1], s[2])][:1]
        else:
            lists = lists[:MAX_META_SNAPSHOTS]
        if lists:
            break
    else:
        return "the manifest list is not the base or delta list of any snapshot" \
            if scope == "manifest_list" else "the table has no snapshot"
    schema = latest_schema(meta_dir) or {}
    keys = schema.get("partitionKeys") or []
    try:
        expected = [conv(r, keys) for r in rows]
    except ValueError as e:
        return "expectation not understood: %s" % e
    base = table_location(shared_dir, case["table"])
    if branch:
        base.append(("branch", branch))
    sets = [base + [("scan.snapshot-id", str(s[0]))] for s in lists]

    if scope == "manifest_list":
        def make_sql(tables):
            return ("SELECT row_to_json(m) FROM tablescan_manifests(%s::regclass) "
                    "WITH ORDINALITY m WHERE m.manifest_list = %s ORDER BY m.ordinality"
                    % (quote_literal(tables[0]), quote_literal(name)))
    else:
        def make_sql(tables):
            cands = ", ".join("(%s::regclass, %d)" % (quote_literal(t), i)
                              for i, t in enumerate(tables))
            pick = ("SELECT v.t FROM (VALUES %s) v(t, o) WHERE EXISTS (SELECT 1 FROM "
                    "tablescan_manifests(v.t) m WHERE m.file_name = %s) ORDER BY v.o LIMIT 1"
                    % (cands, quote_literal(name)))
            # a manifest no snapshot lists: one marker row (SKIP)
            return ("(SELECT row_to_json(e) FROM (%s) pick, LATERAL "
                    "tablescan_manifest_entries(pick.t) WITH ORDINALITY e "
                    "WHERE e.manifest = %s ORDER BY e.ordinality) "
                    "UNION ALL SELECT '{\"__not_listed\": true}'::json WHERE NOT EXISTS (%s)"
                    % (pick, quote_literal(name), pick))
    q = Query(cp.name, make_sql, "meta", expected)
    q.ordered = bool(case.get("ordered"))
    q.table_sets = sets
    q.mock_skip = "reads manifests through the metadata functions"
    cp.queries.append(q)
    return None


# ---------------------------------------------------------------------------
# Running: one psql session per case
# ---------------------------------------------------------------------------

MARK = "@@TSCONF"


def session_preamble():
    return "\n".join([
        "SET client_min_messages = warning;",
        "SET TIME ZONE 'UTC';",
        "SET extra_float_digits = 3;",
        "SET bytea_output = 'hex';",
        "SET DateStyle = 'ISO, YMD';",
        "SET IntervalStyle = 'iso_8601';",
        "SET statement_timeout = '120s';",
    ])


def _step(tag, sql):
    """A statement framed by markers; afterwards psql's :ERROR tells whether
    it failed and :LAST_ERROR_MESSAGE / :LAST_ERROR_SQLSTATE say why."""
    return "\n".join([
        "\\echo %s BEGIN %s" % (MARK, tag),
        sql.rstrip().rstrip(";") + ";",
        "\\echo %s END %s :ERROR :LAST_ERROR_SQLSTATE" % (MARK, tag),
        "\\echo %s MSG :LAST_ERROR_MESSAGE" % MARK,
    ])


def _mock_plan_function(cp, schema):
    """--mock: a stand-in tablescan_files() returning the expected splits."""
    plan = [q for q in cp.queries if q.kind == "plan"]
    if not plan:
        return []
    rows = []
    for sp in plan[0].expected:
        metas = {m["file"]: m for m in sp.get("file_meta") or []}
        for f in sp.get("files") or []:
            m = metas.get(f, {})
            rows.append("(%s::jsonb, %d, %d, %s, %d, %d, %d, %d)" % (
                quote_literal(json.dumps(sp.get("partition"))), sp["bucket"],
                sp["total_buckets"], quote_literal(f), m.get("level", 0),
                m.get("row_count", 0), m.get("file_size", 0), m.get("schema_id", 0)))
    body = ("SELECT * FROM (VALUES %s) v" % ", ".join(rows)) if rows else \
        "SELECT NULL::jsonb, 0, 0, ''::text, 0, 0::bigint, 0::bigint, 0::bigint WHERE false"
    return ["CREATE FUNCTION %s.tablescan_files(regclass) RETURNS TABLE (partition jsonb, "
            "bucket int, total_buckets int, file_name text, level int, row_count bigint, "
            "file_size bigint, schema_id bigint) LANGUAGE sql AS %s"
            % (schema, quote_literal(body))]


def query_tables(cp, schema):
    """Name the foreign tables the case's queries read: ([(name, options)],
    {id(query): [names]}).  The first is <schema>.t; a query without its
    own table_sets reads the case's (cp.table_sets or its table_options)."""
    names = collections.OrderedDict()
    per_query = {}

    def name_for(opts):
        key = tuple(opts)
        if key not in names:
            names[key] = "%s.t" % schema if not names else "%s.t%d" % (schema, len(names))
        return names[key]
    case_sets = cp.table_sets or [cp.table_options]
    for q in cp.queries:
        if not q.skip:
            per_query[id(q)] = [name_for(o) for o in (q.table_sets or case_sets)]
    return [(n, list(k)) for k, n in names.items()], per_query


def relation_sql(tables):
    """What a query reads: one table, or the UNION ALL of several."""
    if len(tables) == 1:
        return tables[0]
    return "(%s) u" % " UNION ALL ".join("SELECT * FROM %s" % t for t in tables)


def build_script(cp, schema, mock):
    lines = [session_preamble(),
             "DROP SCHEMA IF EXISTS %s CASCADE;" % schema,
             "CREATE SCHEMA %s;" % schema]
    tables, per_query = query_tables(cp, schema)
    setup = []
    if mock:
        # plain tables; each query's first table holds the union of the
        # universes of the queries reading it first
        setup += _mock_plan_function(cp, schema)
        cols = ", ".join("%s %s" % (quote_ident(n), pg_type(t)) for n, t in cp.columns)
        loads = collections.defaultdict(list)
        for q in cp.queries:
            if id(q) in per_query and q.mock_rows is not None:
                loads[per_query[id(q)][0]].append(q.mock_rows)
        for name, _ in tables:
            setup.append("CREATE TABLE %s (%s)" % (name, cols))
            if cp.columns and loads.get(name):
                universe = max(loads[name], key=len)
                objs = [dict(zip([n for n, _ in cp.columns], r)) for r in universe]
                setup.append("INSERT INTO %s SELECT * FROM json_populate_recordset(NULL::%s, %s)"
                             % (name, name, quote_literal(json.dumps(objs, default=str))))
    else:
        for name, topts in tables:
            plain = (PLAIN_TABLE_OPTION, "true") in topts
            cols = ", ".join("%s %s" % (quote_ident(n), pg_type(t))
                             for n, t in cp.columns + ([] if plain else cp.hidden))
            opts = ", ".join("%s %s" % (quote_ident(k), quote_literal(v))
                             for k, v in topts if k != PLAIN_TABLE_OPTION)
            setup.append("CREATE FOREIGN TABLE %s (%s) SERVER %s OPTIONS (%s)"
                         % (name, cols, SERVER_NAME, opts))
    for i, s in enumerate(setup):
        lines.append(_step("setup%d" % i, s))
    files_fn = ("%s.tablescan_files" % schema) if mock else "tablescan_files"
    for i, q in enumerate(cp.queries):
        if q.skip:
            continue
        if q.kind == "meta":
            q.sql = q.make_sql(per_query[id(q)])
        elif q.kind == "plan":
            q.sql = "SELECT json_build_array(%s) FROM %s(%s::regclass)" % (
                ", ".join(PLAN_COLUMNS), files_fn, quote_literal(per_query[id(q)][0]))
        else:
            q.sql = q.make_sql(relation_sql(per_query[id(q)]))
        lines.append(_step("q%d" % i, q.sql))
        if q.after_sql is not None and not mock:
            lines.append(_step("after%d" % i, q.after_sql(per_query[id(q)][0])))
    lines.append("DROP SCHEMA IF EXISTS %s CASCADE;" % schema)
    lines.append("\\echo %s DONE" % MARK)
    return "\n".join(lines) + "\n"


def parse_session(out):
    """Split psql stdout into {tag: (ok, sqlstate, message, [output lines])}."""
    steps = {}
    cur = None
    buf = []
    done = False
    lines = out.split("\n")
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith(MARK + " BEGIN "):
            cur = ln[len(MARK) + 7:].strip()
            buf = []
        elif ln.startswith(MARK + " END ") and cur is not None:
            parts = ln[len(MARK) + 5:].split()
            failed = len(parts) > 1 and parts[1] == "true"
            sqlstate = parts[2] if len(parts) > 2 else ""
            msg = ""
            if i + 1 < len(lines) and lines[i + 1].startswith(MARK + " MSG"):
                i += 1
                msg = lines[i][len(MARK) + 4:].strip()
                # a multi-line message runs until the next marker
                while i + 1 < len(lines) and lines[i + 1] and not lines[i + 1].startswith(MARK):
                    i += 1
                    msg += " " + lines[i].strip()
            steps[cur] = (not failed, sqlstate, msg if failed else "", buf)
            cur = None
        elif ln.strip() == MARK + " DONE":
            done = True
        elif cur is not None:
            if ln != "":
                buf.append(ln)
        i += 1
    return steps, done


def run_psql(args, script, timeout):
    cmd = [args.psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=0", "-f", "-"]
    try:
        p = subprocess.run(cmd, input=script, capture_output=True, text=True,
                           timeout=timeout, encoding="utf-8", errors="replace")
    except subprocess.TimeoutExpired:
        return None, "timeout after %ds" % timeout, -1
    return p.stdout, p.stderr, p.returncode


def is_unsupported(msg):
    """A fail-closed refusal ("... is not supported yet") counts as SKIP."""
    return "not supported yet" in msg.lower()


def skip_group(reason):
    """Skip reason with paths and quoted names generalised, for grouping."""
    reason = re.sub(r"(?<![\w.])/[^\s\"',;)]+", "<path>", reason)
    return re.sub(r"\b(data|manifest|index)-[0-9a-f-]{36}-\d+(\.\w+)?", "<file>", reason)


class Result:
    def __init__(self, name, status, reason="", diff="", sql="", micro=False):
        self.name = name
        self.status = status        # PASS / FAIL / SKIP
        self.reason = reason
        self.diff = diff
        self.sql = sql
        self.micro = micro          # passed only with rows dropped by the 1 µs tolerance

    def line(self):
        if self.status == "PASS":
            return "PASS (µs) %s" % self.name if self.micro else "PASS %s" % self.name
        return "%s %s: %s" % (self.status, self.name, self.reason)


def judge(q, ok, msg, out_lines):
    if not ok:
        if is_unsupported(msg):
            return Result(q.name, "SKIP", msg, sql=q.sql)
        return Result(q.name, "FAIL", "ERROR: %s" % (msg or "unknown error"), sql=q.sql)
    try:
        got = [load_json_text(ln) for ln in out_lines]
    except ValueError as e:
        return Result(q.name, "FAIL", "output is not JSON: %s" % e, "\n".join(out_lines[:5]), q.sql)
    if q.kind == "count":
        if len(got) != q.expected:
            return Result(q.name, "FAIL", "LIMIT query returned %d rows, expected %d"
                          % (len(got), q.expected), sql=q.sql)
        good, reason, diff = compare_subset(q.types, getattr(q, "universe", None), got)
        return Result(q.name, "PASS" if good else "FAIL", reason, diff, q.sql)
    if q.kind == "meta":
        if any(isinstance(g, dict) and g.get("__not_listed") for g in got):
            return Result(q.name, "SKIP", "no snapshot of the table lists the manifest", sql=q.sql)
        good, reason, diff = compare_meta(q.expected, got, q.ordered)
    elif q.kind == "plan":
        good, reason, diff = compare_plan(q.expected, got, q.subset_ok)
    else:
        good, reason, diff = compare_multisets(q.types, q.expected, got, q.tolerate)
        if good and diff:               # rows were dropped by the µs tolerance
            return Result(q.name, "PASS", reason, diff, q.sql, micro=True)
    return Result(q.name, "PASS" if good else "FAIL", reason, diff, q.sql)


def _listed(table, name):
    """The baseline entry naming case name (exactly, or by a glob key)."""
    if name in table:
        return table[name]
    for k, v in table.items():
        if any(ch in k for ch in "*?[") and fnmatch.fnmatchcase(name, k):
            return v
    return None


def apply_baseline(r, base):
    """Hold a result to test/baseline.json (part "conformance"): a refusal
    ("not supported yet") stays SKIP only for a case listed under "refused",
    any other skip only for a case listed under "skips", a pass that needed
    the µs tolerance only for a case listed under "microseconds"; otherwise
    the result becomes a FAIL saying so."""
    if r.status == "SKIP":
        if is_unsupported(r.reason):
            if _listed(base["refused"], r.name) is None:
                r.status = "FAIL"
                r.reason = ("refused, and not listed as refused in test/baseline.json: %s"
                            % r.reason)
        elif _listed(base["skips"], r.name) is None:
            r.status = "FAIL"
            r.reason = "skipped, and not listed in test/baseline.json: %s" % r.reason
    elif r.status == "PASS" and r.micro and _listed(base["microseconds"], r.name) is None:
        r.status = "FAIL"
        r.reason = ("passes only by the 1 µs tolerance of TIMESTAMP(7..9), and is not explained "
                    "in test/baseline.json (\"microseconds\")")
    return r


# psql stderr when a session was killed or refused for the server's sake
COLLATERAL_RE = re.compile(r"crash of another server process|in recovery mode|"
                           r"is starting up|is shutting down|Connection refused|"
                           r"No such file or directory|administrator command")


def run_case(args, idx, cp):
    """Run one planned case; returns ([Result], collateral) where collateral
    says the session died because of the server's state (another backend's
    crash, recovery, shutdown) rather than by what this case ran."""
    if cp.skip:
        return [Result(cp.name, "SKIP", cp.skip)], False
    results = {}
    for q in cp.queries:
        if args.mock and q.mock_skip and not q.skip:
            q.skip = q.mock_skip
        if q.skip:
            results[id(q)] = Result(q.name, "SKIP", q.skip)
    runnable = [q for q in cp.queries if not q.skip]
    if not runnable:
        return [results[id(q)] for q in cp.queries], False
    schema = "%s%d" % (SCHEMA_PREFIX, idx)
    if cp.split_probe is not None and not args.mock:
        why = probe_splits(args, cp, schema)
        if why:
            why = cp.split_skip_prefix + why
            return [results.get(id(q)) or Result(q.name, "SKIP", why) for q in cp.queries], False
    script = build_script(cp, schema, args.mock)
    out, err, rc = run_psql(args, script, args.timeout)
    if out is None:
        for q in runnable:
            results[id(q)] = Result(q.name, "FAIL", err)
        return [results[id(q)] for q in cp.queries], False
    steps, done = parse_session(out)
    collateral = not done and bool(COLLATERAL_RE.search(err or ""))
    setup_fail = None
    for tag in sorted(t for t in steps if t.startswith("setup")):
        ok, _, msg, _ = steps[tag]
        if not ok:
            setup_fail = msg
            break
    for i, q in enumerate(cp.queries):
        if q.skip:
            continue
        if setup_fail is not None:
            if is_unsupported(setup_fail):
                results[id(q)] = Result(q.name, "SKIP", setup_fail)
            else:
                results[id(q)] = Result(q.name, "FAIL", "CREATE FOREIGN TABLE failed: %s"
                                        % setup_fail, sql=script)
            continue
        st = steps.get("q%d" % i)
        if st is None:                  # psql never finished this step
            last = [ln for ln in (err or "").strip().splitlines() if "FATAL" in ln] or \
                (err or "").strip().splitlines()
            results[id(q)] = Result(q.name, "FAIL", "%s%s" % (
                "server unavailable" if collateral else "backend crashed (connection lost)",
                ": " + last[-1].strip() if last else ""), sql=q.sql)
            continue
        ok, _, msg, lines = st
        results[id(q)] = judge(q, ok, msg, lines)
    return [results[id(q)] for q in cp.queries], collateral


def server_ready(args, wait=30.0):
    end = time.time() + wait
    while True:
        try:
            p = subprocess.run([args.psql, "-X", "-q", "-At", "-c", "SELECT 1"],
                               capture_output=True, text=True, timeout=10)
            if p.returncode == 0:
                return True
        except subprocess.TimeoutExpired:
            pass
        if time.time() > end:
            return False
        time.sleep(0.5)


def server_sql(args):
    """The foreign server (and user mapping) of the run's mode."""
    opts, mapping = [], []
    mode = getattr(args, "mode", "local")  # prune_diff.py's arguments have no mode
    if mode in ("s3", "rest-s3"):
        opts += [("s3.endpoint", args.s3_endpoint), ("s3.path.style.access", "true")]
    if mode == "s3":
        mapping = [("s3.access-key", "S3RVER"), ("s3.secret-key", "S3RVER")]
    if mode == "azure":
        opts = [("azure.endpoint", args.azure_endpoint)]
        mapping = [("azure.account-key", args.azure_key)]
    if mode in ("rest", "rest-s3"):
        opts = [("catalog", "rest"), ("uri", args.rest_uri), ("warehouse", "conformance")] + opts
        mapping = [("token", args.rest_token)]
    sql = "CREATE SERVER IF NOT EXISTS %s FOREIGN DATA WRAPPER tablescan_fdw%s;\n" % (
        SERVER_NAME, " OPTIONS (%s)" % ", ".join(
            "%s %s" % (quote_ident(k), quote_literal(v)) for k, v in opts) if opts else "")
    if mapping:
        sql += ("DROP USER MAPPING IF EXISTS FOR CURRENT_USER SERVER %s;\n"
                "CREATE USER MAPPING FOR CURRENT_USER SERVER %s OPTIONS (%s);\n" % (
                    SERVER_NAME, SERVER_NAME,
                    ", ".join("%s %s" % (quote_ident(k), quote_literal(v)) for k, v in mapping)))
    return sql


def global_setup(args):
    if args.mock:
        return None
    sql = ("SET client_min_messages = warning;\n"
           "CREATE EXTENSION IF NOT EXISTS tablescan_fdw;\n" + server_sql(args))
    p = subprocess.run([args.psql, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-f", "-"],
                       input=sql, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return (p.stderr or p.stdout).strip() or "psql exit status %d" % p.returncode
    return None


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

def default_shared():
    env = os.environ.get("TS_SHARED")
    if env:
        return env
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(os.path.dirname(repo), "shared")


def load_cases(shared):
    odir = os.path.join(shared, "oracle")
    names = sorted(f for f in os.listdir(odir)
                   if f.endswith(".json") and not f.endswith("_vectors.json"))
    cases = []
    for f in names:
        with open(os.path.join(odir, f), encoding="utf-8") as fh:
            d = json.load(fh, parse_float=decimal.Decimal)
        if isinstance(d, dict) and "case" in d:
            cases.append(d)
    share_equivalent_scans(cases)
    return cases


def share_equivalent_scans(cases):
    """A case reading the same serialized splits of the same table as a
    case that has an "equivalent_table_scan" gets that scan too (the same
    splits are the same scan, e.g. a projection of the fallback batch)."""
    known = {}
    for c in cases:
        sp = c.get("serialized_splits")
        if c.get("equivalent_table_scan") and sp:
            known.setdefault((c.get("table"), tuple(sp)), c["equivalent_table_scan"])
    for c in cases:
        sp = c.get("serialized_splits")
        if sp and not c.get("equivalent_table_scan") and c.get("scope") in SPLIT_SCOPES:
            ets = known.get((c.get("table"), tuple(sp)))
            if ets:
                c["equivalent_table_scan"] = dict(ets)


def matches(pattern, name):
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(name, pattern)
    return pattern in name


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=default_shared(),
                    help="the shared dir holding oracle/ and testdata/ (default: %(default)s)")
    ap.add_argument("--case", action="append", default=[], metavar="PATTERN",
                    help="only cases whose name contains PATTERN (glob if it has * ? [); repeatable")
    ap.add_argument("--strict", action="store_true", help="exit 1 if any case fails")
    ap.add_argument("--list-skips", action="store_true",
                    help="print the skip reasons grouped with counts before the summary")
    ap.add_argument("-v", "--verbose", action="store_true", help="print diffs and SQL of failures")
    ap.add_argument("-j", "--jobs", type=int, default=4, help="parallel psql sessions (default 4)")
    ap.add_argument("--timeout", type=int, default=180, help="seconds per case session")
    ap.add_argument("--psql", default="psql", help="psql binary")
    ap.add_argument("--mock", action="store_true",
                    help="check the runner itself: plain tables loaded with the oracle rows "
                         "instead of foreign tables (no extension needed)")
    ap.add_argument("--without-system-columns", action="store_true",
                    help="run cases that request _ROW_ID/_SEQUENCE_NUMBER with those columns "
                         "projected away instead of skipping them")
    ap.add_argument("--no-baseline", action="store_true",
                    help="report skips and µs passes as they are, without holding them to "
                         "test/baseline.json (exploring; the suite never passes this)")
    ap.add_argument("--mode", choices=("local", "s3", "rest", "rest-s3", "azure"), default="local",
                    help="where the tables are read: local paths, the object store copy "
                         "(--s3-prefix), the REST catalog (over local paths, or over the "
                         "object store copy); the summary line names the part "
                         "conformance[-MODE]")
    ap.add_argument("--s3-endpoint", default=os.environ.get("TS_S3_ENDPOINT"),
                    help="the object store (default $TS_S3_ENDPOINT; test/s3/start.sh)")
    ap.add_argument("--s3-prefix", default="s3://shared/testdata",
                    help="where testdata/ was uploaded (default %(default)s; test/s3/start.sh)")
    ap.add_argument("--azure-endpoint", default=os.environ.get("TS_AZURE_ENDPOINT"),
                    help="the Azure store (default $TS_AZURE_ENDPOINT; test/azure/start.sh)")
    ap.add_argument("--azure-key", default=os.environ.get("TS_AZURE_KEY"),
                    help="its account key (default $TS_AZURE_KEY)")
    ap.add_argument("--azure-prefix", default=os.environ.get("TS_AZURE_PREFIX"),
                    help="the abfs:// URI testdata/ was uploaded to (default $TS_AZURE_PREFIX)")
    ap.add_argument("--rest-uri", default=os.environ.get("TS_REST_URI"),
                    help="the REST catalog serving testdata (default $TS_REST_URI)")
    ap.add_argument("--rest-token", default=os.environ.get("TS_REST_TOKEN"),
                    help="its bearer token (default $TS_REST_TOKEN)")
    ap.add_argument("--self-test", action="store_true",
                    help="run the built-in unit checks of the runner (no server) and exit")
    args = ap.parse_args(argv)

    if args.self_test:
        return self_test()

    global SERVER_NAME
    part_name = "conformance" if args.mode == "local" else "conformance-" + args.mode
    shared = os.path.abspath(args.shared)
    if not os.path.isdir(os.path.join(shared, "oracle")):
        print("%s: no oracle directory under %s" % (part_name, shared), file=sys.stderr)
        return 2
    if args.mode in ("s3", "rest-s3") and not args.s3_endpoint:
        print("%s: no object store (--s3-endpoint, $TS_S3_ENDPOINT)" % part_name, file=sys.stderr)
        return 2
    if args.mode == "azure" and not (args.azure_endpoint and args.azure_key and args.azure_prefix):
        print("%s: no Azure store (--azure-endpoint/--azure-key/--azure-prefix, $TS_AZURE_*)"
              % part_name, file=sys.stderr)
        return 2
    if args.mode in ("rest", "rest-s3") and not (args.rest_uri and args.rest_token):
        print("%s: no REST catalog (--rest-uri/--rest-token, $TS_REST_URI/$TS_REST_TOKEN)"
              % part_name, file=sys.stderr)
        return 2
    LOCATION["mode"] = args.mode
    LOCATION["s3_prefix"] = args.s3_prefix
    LOCATION["azure_prefix"] = args.azure_prefix
    if args.mode != "local":
        SERVER_NAME = "tablescan_conformance_" + args.mode.replace("-", "_")
    cases = load_cases(shared)

    plans = []
    for c in cases:
        cp = build_case(c, shared, args.without_system_columns)
        if args.case:
            names = [cp.name] + [q.name for q in cp.queries]
            if not any(matches(p, n) for p in args.case for n in names):
                continue
            # a pattern naming a subcase keeps only matching subcases
            sub = [q for q in cp.queries if any(matches(p, q.name) for p in args.case)]
            if sub and not any(matches(p, cp.name) for p in args.case):
                cp.queries = sub
        plans.append(cp)

    if any(not cp.skip for cp in plans):
        err = global_setup(args)
        if err:
            print("%s: setup failed: %s" % (part_name, err), file=sys.stderr)
            return 2

    counts = collections.Counter()
    skips = collections.Counter()
    base = baseline.part(part_name)

    def report(res):
        for r in res:
            if not args.mock and not args.no_baseline:
                apply_baseline(r, base)
            counts[r.status] += 1
            if r.status == "PASS" and r.micro:
                counts["MICRO"] += 1
            print(r.line())
            if r.status == "SKIP":
                skips[skip_group(r.reason)] += 1
            if args.verbose and r.status == "FAIL":
                if r.diff:
                    print(r.diff)
                if r.sql:
                    print("    sql: %s" % r.sql.replace("\n", "\n         ")[:3000])
        sys.stdout.flush()

    server_down = False
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = [ex.submit(run_case, args, i, cp) for i, cp in enumerate(plans)]
        for i, fut in enumerate(futs):      # report in case order
            res, collateral = fut.result()
            tries = 0
            while collateral and tries < 3 and not server_down:
                # another case's backend crash took this session down: run
                # it again once the server accepts connections
                tries += 1
                if not server_ready(args):
                    server_down = True
                    break
                res, collateral = run_case(args, i, plans[i])
            report(res)

    if args.list_skips:
        print("skip reasons:")
        for reason, n in sorted(skips.items(), key=lambda x: (-x[1], x[0])):
            print("  %4d  %s" % (n, reason))
    print("%d of the passes are PASS (µs): rows within 1 µs of a TIMESTAMP(7..9) "
          "literal dropped on both sides (test/baseline.json, \"microseconds\")" % counts["MICRO"])
    print("%s: %d passed, %d failed, %d skipped"
          % (part_name, counts["PASS"], counts["FAIL"], counts["SKIP"]))
    return 1 if (args.strict and counts["FAIL"]) else 0


# ---------------------------------------------------------------------------
# --self-test: handwritten checks of the pure-Python pieces
# ---------------------------------------------------------------------------

def self_test():
    failures = []

    def check(label, got, want):
        if got != want:
            failures.append("%s: got %r, want %r" % (label, got, want))

    D = decimal.Decimal
    # type parsing and mapping
    T = parse_type
    check("int not null", pg_type(T("INT NOT NULL")), "integer")
    check("special", T("BIGINT (special field: row id)").kind, "BIGINT")
    check("tinyint", pg_type(T("TINYINT (avro int)")), "smallint")
    check("decimal", pg_type(T("DECIMAL(23, 5)")), "numeric(23,5)")
    check("decimal default", pg_type(T("DECIMAL")), "numeric(10,0)")
    check("ts9", pg_type(T("TIMESTAMP(9)")), "timestamp(6)")
    check("ts0", pg_type(T("TIMESTAMP(0)")), "timestamp(0)")
    check("ts default", pg_type(T("TIMESTAMP")), "timestamp(6)")
    check("ltz", pg_type(T("TIMESTAMP(3) WITH LOCAL TIME ZONE")), "timestamptz(3)")
    check("ltz alias", pg_type(T("TIMESTAMP_LTZ(9)")), "timestamptz(6)")
    check("time", pg_type(T("TIME(3)")), "time(3)")
    check("char", pg_type(T("CHAR(5)")), "char(5)")
    check("varchar", pg_type(T("VARCHAR(20)")), "varchar(20)")
    check("varchar max", pg_type(T("VARCHAR(2147483647)")), "text")
    check("bytes", pg_type(T("BYTES")), "bytea")
    check("array int", pg_type(T("ARRAY<INT>")), "integer[]")
    check("array float", pg_type(T("ARRAY<FLOAT NOT NULL>")), "real[]")
    check("array nested", pg_type(T("ARRAY<ARRAY<INT>>")), "jsonb")
    check("map", pg_type(T("MAP<INT, INT>")), "jsonb")
    row = T("ROW<f0 STRING, f1 INT, f2 ARRAY<INT>>")
    check("row", (pg_type(row), [n for n, _ in row.fields], row.fields[2][1].elem.kind),
          ("jsonb", ["f0", "f1", "f2"], "INT"))
    check("row quoted", [n for n, _ in T("ROW<`a b` INT NOT NULL, `c` MAP<STRING, BIGINT>>").fields],
          ["a b", "c"])
    check("system col", is_system_column({"name": "_ROW_ID", "type": "BIGINT"}), True)

    # system columns and row-id ranges
    sys_case = {"case": "x__t__y", "table": "parquet/t.db/t", "snapshot": None, "options": {},
                "columns": [{"name": "f0", "type": "INT"},
                            {"name": "_SEQUENCE_NUMBER", "type": "BIGINT (special field)"}],
                "subcases": [{"label": "all", "rows": [[1, 5], [2, 5]]},
                             {"label": "range", "row_id_ranges": [[0, 0], [3, 4]],
                              "predicate_expr": ["=", "f0", 1], "predicate_exact": True,
                              "rows": [[1, 5]]}]}
    scp = build_case(sys_case, "/shared")
    check("sys cols kept", (scp.skip, [n for n, _ in scp.columns], [n for n, _ in scp.hidden]),
          (None, ["f0", "_SEQUENCE_NUMBER"], ["_ROW_ID"]))
    check("row range sql", scp.queries[1].make_sql("t"),
          'SELECT json_build_array("f0", "_SEQUENCE_NUMBER") FROM t WHERE '
          '(("_ROW_ID" BETWEEN 0 AND 0) OR ("_ROW_ID" BETWEEN 3 AND 4)) AND ("f0" = (1))')
    check("row range mock", scp.queries[1].mock_skip is not None, True)

    # hand-built splits shared with a case that has an equivalent table scan
    split_cases = [{"case": "a", "table": "t", "scope": "serialized_splits",
                    "serialized_splits": ["s-0", "s-1"],
                    "equivalent_table_scan": {"fallback_branch": "rt"}},
                   {"case": "b", "table": "t", "scope": "serialized_splits",
                    "serialized_splits": ["s-0", "s-1"]},
                   {"case": "c", "table": "t", "scope": "serialized_splits",
                    "serialized_splits": ["s-0"]}]
    share_equivalent_scans(split_cases)
    check("shared ets", [c.get("equivalent_table_scan") for c in split_cases[1:]],
          [{"fallback_branch": "rt"}, None])
    vk = dict(sys_case, columns=[{"name": "_VALUE_KIND", "type": "TINYINT"}], subcases=None,
              rows=[[0]])
    check("other sys col", build_case(vk, "/shared").skip,
          "system columns not supported (_VALUE_KIND)")

    # hand-built splits as table scans: grouping, table layout, file match
    sp_case = {"read_splits": [
        {"partition": {"f1": 10}, "bucket": 0, "files": ["a.orc"],
         "deletion_files": [{"path": "index/i-0", "offset": 1, "length": 22, "cardinality": None}]},
        {"partition": {"f1": 20}, "bucket": 0, "files": ["b.orc", "c.orc"], "schema_ids": [0, 1]}]}
    groups = split_groups(sp_case)
    check("split groups", [(g["partition"], g["bucket"], list(g["files"])) for g in groups],
          [({"f1": 10}, 0, ["a.orc"]), ({"f1": 20}, 0, ["b.orc", "c.orc"])])
    check("split layout one bucket", [o for o, _ in split_layout(groups)],
          [[("partition_filter", '[{"f1": "10"}, {"f1": "20"}]'), ("bucket_filter", "0")]])
    check("split layout unaware", [o for o, _ in split_layout(groups, fixed_buckets=False)],
          [[("partition_filter", '[{"f1": "10"}, {"f1": "20"}]')]])
    two = split_groups({"read_splits": [{"partition": {"f1": 10}, "bucket": 0, "files": ["a"]},
                                        {"partition": {"f1": 10}, "bucket": 1, "files": ["b"]}]})
    check("split layout two buckets", [o for o, _ in split_layout(two)],
          [[("partition_filter", '[{"f1": "10"}]'), ("bucket_filter", "0")],
           [("partition_filter", '[{"f1": "10"}]'), ("bucket_filter", "1")]])
    check("union", relation_sql(["s.t", "s.t1"]), "(SELECT * FROM s.t UNION ALL SELECT * FROM s.t1) u")
    check("whole table split", [(g["partition"], g["bucket"]) for g in
                                split_groups({"files": ["x.orc"]})], [(None, None)])
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for name, pk in (("app", []), ("pk", ["id"])):
            os.makedirs(os.path.join(tmp, "testdata", name, "schema"))
            with open(os.path.join(tmp, "testdata", name, "schema", "schema-0"), "w") as fh:
                json.dump({"primaryKeys": pk}, fh)
        check("data file split", data_file_split(tmp, {"table": "app", "files": [
            "k%3D=a%2Fb/j=1/bucket-2/x.orc", "k%3D=a%2Fb/j=1/bucket-2/y.orc", "bucket-0/z.orc"]}),
            ([{"partition": {"k=": "a/b", "j": "1"}, "bucket": 2, "files": ["x.orc", "y.orc"]},
              {"partition": {}, "bucket": 0, "files": ["z.orc"]}], None))
        check("data file of a primary-key table", data_file_split(
            tmp, {"table": "pk", "files": ["bucket-0/z.orc"]})[0], None)
        check("data file outside a bucket", data_file_split(
            tmp, {"table": "app", "files": ["x/z.orc"]})[0], None)
    for bad in ({"read_splits": [{"partition": {}, "bucket": 0, "files": ["a", "a"]}]},
                {"read_splits": [{"partition": {"f": None}, "bucket": 0, "files": ["a"]}]}):
        try:
            split_layout(split_groups(bad))
            failures.append("bad split accepted: %r" % bad)
        except ValueError:
            pass
    live = [[{"f1": 10}, 0, "/t/f1=10/bucket-0/a.orc", 4, 0, "/t/index/i-0", 1, 22, None],
            [{"f1": 20}, 0, "b.orc", 0, 0, None, None, None, None],
            [{"f1": 20}, 0, "c.orc", 0, 1, None, None, None, None]]
    check("split match", match_split_files(groups, live), None)
    check("split extra file", match_split_files(groups, live + [[{"f1": 20}, 0, "d.orc", 0, 1,
                                                                  None, None, None, None]]),
          "files differ (0 of the split's files not live, 1 other live files)")
    check("split dv offset", match_split_files(groups, [live[0][:6] + [31, 22, None]] + live[1:]),
          "deletion vector of a.orc differs (i-0 31+22 vs the split's i-0 1+22)")
    check("split no dv", match_split_files(groups, [live[0][:5] + [None] * 4] + live[1:]),
          "the split applies a deletion vector to a.orc, the scan none")
    check("split extra dv", match_split_files(groups, live[:1] + [live[1][:5] + ["/t/index/i-1", 1,
                                                                                  9, 1]] + live[2:]),
          "the scan applies a deletion vector to b.orc, the split none")
    check("split schema", match_split_files(groups, live[:2] + [live[2][:4] + [0] + live[2][5:]]),
          "file c.orc has schema 0, the split says 1")
    check("split bucket", match_split_files(groups, live[:2] + [[{"f1": 20}, 1] + live[2][2:]]),
          "file c.orc lives in bucket 1")

    # a table directory for the mapping of whole cases
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        tdir = os.path.join(tmp, "testdata", "fmt", "t.db", "t")
        for sub in ("schema", "snapshot"):
            os.makedirs(os.path.join(tdir, sub))
        for n in (1, 2, 3, 4):
            with open(os.path.join(tdir, "snapshot", "snapshot-%d" % n), "w") as fh:
                json.dump({"id": n, "schemaId": 1 if n == 3 else 0}, fh)
        with open(os.path.join(tdir, "schema", "schema-0"), "w") as fh:
            json.dump({"primaryKeys": [], "options": {"bucket": "2"}}, fh)
        cols = [{"name": "f0", "type": "STRING"}]
        sc = {"case": "s", "table": "fmt/t.db/t", "snapshot": 2, "options": {},
              "scope": "explicit_split", "columns": cols, "rows": [["x"]],
              "read_splits": sp_case["read_splits"]}
        scp = build_case(sc, tmp)
        check("split case", (scp.skip, scp.split_probe.snapshots,
                             [(k, v) for k, v in scp.table_sets[0] if k != "path"]),
              (None, [2, 4, 1], [("scan.snapshot-id", "2"),
                                    ("partition_filter", '[{"f1": "10"}, {"f1": "20"}]'),
                                    ("bucket_filter", "0")]))
        tabs, per_q = query_tables(scp, "s")
        check("split case tables", ([n for n, _ in tabs], per_q[id(scp.queries[0])]),
              (["s.t"], ["s.t"]))
        mo = dict(sc, options={"merge-engine": "deduplicate"})
        with open(os.path.join(tdir, "schema", "schema-1"), "w") as fh:
            json.dump({"primaryKeys": [], "options": {"bucket": "2", "ignore-delete": "true"}}, fh)
        mcp = build_case(mo, tmp)
        check("split merge override", (mcp.skip, [(k, v) for k, v in mcp.table_sets[0]
                                                  if k in ("merge-engine", "ignore-delete")]),
              (None, [("ignore-delete", "false"), ("merge-engine", "deduplicate")]))
        with open(os.path.join(tdir, "schema", "schema-1"), "w") as fh:
            json.dump({"primaryKeys": [], "options": {"bucket": "2", "sequence.field": "v"}}, fh)
        check("split merge override kept", build_case(mo, tmp).skip,
              "reads hand-built splits and has no equivalent table scan: the case overrides "
              "merge options at read time but not the table's sequence.field, which a table "
              "scan would keep")
        # a split reading byte-identical copies under an external path
        edir = os.path.join(tmp, "testdata", "fmt", "t.db", "ext", "bucket-0")
        os.makedirs(edir)
        os.makedirs(os.path.join(tdir, "bucket-0"))
        for d, body in ((edir, b"PAR1"), (os.path.join(tdir, "bucket-0"), b"PAR1")):
            with open(os.path.join(d, "data-1.parquet"), "wb") as fh:
                fh.write(body)
            open(os.path.join(d, "data-1.parquet.index"), "w").close()
        ext_case = {"case": "e", "table": "fmt/t.db/t", "external_path": "fmt/t.db/ext/bucket-0/"}
        check("external copies", external_copies(tmp, ext_case), (["data-1.parquet"], None))
        with open(os.path.join(edir, "data-1.parquet"), "wb") as fh:
            fh.write(b"PAR2")
        check("external copy differs", external_copies(tmp, ext_case),
              (None, "data-1.parquet differs from the table's file"))
        stc = {"case": "st", "table": "fmt/t.db/t", "snapshot": None, "columns": cols,
               "options": {"scan.snapshot-id": "2", "streaming": True}, "mode": "streaming",
               "stream_plans": [{"snapshot": None, "rows": [], "row_kinds": []},
                                {"snapshot": 2, "rows": [["a"]], "row_kinds": ["+I"]},
                                {"snapshot": 3, "rows": [["b"]], "row_kinds": ["+I"]}],
               "stream_end": "no more"}
        stp = build_case(stc, tmp)
        check("stream plans", [(q.name, [(k, v) for k, v in q.table_sets[0] if k != "path"],
                                q.expected) for q in stp.queries],
              [("st#snapshot-2", [("incremental-between", "1,2")], [["a"]]),
               ("st#stream-2", [], [["a"]]),
               ("st#snapshot-3", [("incremental-between", "2,3")], [["b"]]),
               ("st#stream-3", [], [["b"]]),
               ("st#end", [("incremental-between", "3,4")], []),
               ("st#stream-end", [], [])])
        tabs, per_q = query_tables(stp, "s")
        check("stream tables", [per_q[id(q)] for q in stp.queries],
              [["s.t"], ["s.t1"], ["s.t2"], ["s.t1"], ["s.t3"], ["s.t1"]])
        check("stream range sql", [stp.queries[i].make_sql("s.t1") for i in (1, 5)],
              ["SELECT json_build_array(\"f0\") FROM tablescan_changes(NULL::s.t1, "
               "from_snapshot => 2, to_snapshot => 2)",
               "SELECT json_build_array(\"f0\") FROM tablescan_changes(NULL::s.t1, "
               "from_snapshot => 4, to_snapshot => 4)"])
        full = dict(stc, options={"scan.mode": "latest-full", "streaming": True},
                    stream_plans=[{"snapshot": 3, "rows": [["a"], ["b"]], "row_kinds": ["+I"] * 2},
                                  {"snapshot": 4, "rows": [], "row_kinds": []}])
        check("stream full", [(q.name, [(k, v) for k, v in q.table_sets[0] if k != "path"])
                              for q in build_case(full, tmp).queries],
              [("st#snapshot-3-full", [("scan.snapshot-id", "3")]),
               ("st#stream-3-full", [(PLAIN_TABLE_OPTION, "true"), ("scan.mode", "latest-full")]),
               ("st#snapshot-4", [("incremental-between", "3,4")]),
               ("st#stream-4", [])])
        fq = build_case(full, tmp).queries[1]
        check("stream full sql", (fq.make_sql("s.t2"), fq.after_sql("s.t2")),
              ("SELECT json_build_array(\"f0\") FROM tablescan_changes(NULL::s.t2, "
               "consumer => 'conformance', max_snapshots => 1)",
               "SELECT tablescan_consumer_drop('s.t2'::regclass, 'conformance')"))
        check("stream changelog", build_case(dict(stc, stream_plans=[
            {"snapshot": 2, "rows": [["a"]], "row_kinds": ["-D"]}]), tmp).skip,
              "streaming scan not mapped to batch reads: streaming plan asserts non-insert row kinds")
        with open(os.path.join(tdir, "schema", "schema-2"), "w") as fh:
            json.dump({"primaryKeys": ["f0"], "options": {}}, fh)
        pkp = build_case(dict(stc, stream_plans=[
            {"snapshot": None, "rows": [], "row_kinds": []},
            {"snapshot": 2, "rows": [["a"], ["b"]], "row_kinds": ["+U", "-D"]}]), tmp)
        check("stream pk", [(q.name, [(k, v) for k, v in q.table_sets[0] if k != "path"],
                             q.expected) for q in pkp.queries],
              [("st#snapshot-2", [("incremental-between", "1,2")], [["a", "+U"], ["b", "-D"]]),
               ("st#stream-2", [], [["a", "+U"], ["b", "-D"]]),
               ("st#end", [("incremental-between", "2,4")], []),
               ("st#stream-end", [], [])])
        check("stream pk range sql", pkp.queries[1].make_sql("s.t1"),
              "SELECT json_build_array(\"f0\", \"_ROW_KIND\") FROM tablescan_changes(NULL::s.t1, "
              "from_snapshot => 2, to_snapshot => 2)")
        check("stream pk kind column", [n for n, _ in pkp.hidden], ["_ROW_KIND"])
        check("stream pk sql", "tablescan_files('s.t'::regclass)" in pkp.queries[0].make_sql("s.t"),
              True)
        check("stream pk predicate on key", build_case(dict(stc, predicate="f0 = 'a'"), tmp).skip,
              "streaming scan not mapped to batch reads: streaming predicate on key or partition "
              "fields f0 (it prunes delta splits)")
        check("stream pk predicate ignored", build_case(dict(stc, predicate="f3 > 1"), tmp).skip,
              None)
        with open(os.path.join(tdir, "schema", "schema-3"), "w") as fh:
            json.dump({"primaryKeys": ["f0"],
                       "options": {"deletion-vectors.enabled": "true"}}, fh)
        mor = ("deletion-vectors.merge-on-read", "true")
        check("stream pk dv", [(q.name, [(k, v) for k, v in q.table_sets[0] if k != "path"])
                               for q in build_case(dict(full, stream_plans=[
                                   {"snapshot": 3, "rows": [["a"]], "row_kinds": ["+I"]},
                                   {"snapshot": 4, "rows": [["a"]], "row_kinds": ["-D"]}]),
                                   tmp).queries],
              [("st#snapshot-3-full", [mor, ("scan.snapshot-id", "3")]),
               ("st#stream-3-full", [(PLAIN_TABLE_OPTION, "true"), ("scan.mode", "latest-full")]),
               ("st#snapshot-4", [mor, ("incremental-between", "3,4")]),
               ("st#stream-4", [])])
        check("stream pk dv merge-on-read once", [
            sorted((k, v) for k, v in q.table_sets[0] if k == mor[0])
            for q in build_case(dict(stc, options=dict(stc["options"], **{
                "deletion-vectors.merge-on-read": "false"})), tmp).queries],
              [[mor], [(mor[0], "false")]] * 3)
        with open(os.path.join(tdir, "schema", "schema-4"), "w") as fh:
            json.dump({"primaryKeys": ["f0"], "options": {"merge-engine": "first-row"}}, fh)
        frp = build_case(full, tmp)
        check("stream pk first-row: the stream function only",
              (frp.skip, [q.name for q in frp.queries]), (None, ["st#stream-3-full", "st#stream-4"]))

    # predicate translation
    ct = {"f0": T("STRING"), "f1": T("INT"), "f3": T("DOUBLE"), "f4": T("TIMESTAMP(9)"),
          "f5": T("DECIMAL(23, 5)"), "f6": T("BYTES"), "f7": T("FLOAT"), "d": T("DATE"),
          "b": T("BOOLEAN"), "Mixed": T("BIGINT")}
    check("eq str", predicate_sql(["=", "f0", "O'Brien"], ct), "(\"f0\" = 'O''Brien'::text)")
    check("lt str", predicate_sql(["<", "f0", "Lucy"], ct), "(\"f0\" COLLATE \"C\" < 'Lucy'::text)")
    check("ne int", predicate_sql(["!=", "f1", -3], ct), "(\"f1\" <> (-3))")
    check("double", predicate_sql(["<=", "f3", D("30.0")], ct),
          "(\"f3\" <= '30.0'::double precision)")
    check("float", predicate_sql([">", "f7", 1.1], ct), "(\"f7\" > '1.1'::real)")
    check("int vs fraction", predicate_sql(["<", "f1", D("20.5")], ct),
          "(\"f1\" < '20.5'::numeric)")
    check("decimal", predicate_sql([">", "f5", "0"], ct), "(\"f5\" > '0'::numeric)")
    check("bytes", predicate_sql([">", "f6", "zoo"], ct), "(\"f6\" > '\\x7a6f6f'::bytea)")
    check("bytes hex", predicate_sql(["=", "f6", "\\x6164"], ct), "(\"f6\" = '\\x6164'::bytea)")
    check("quoted ident", predicate_sql(["is_null", "Mixed"], ct), "(\"Mixed\" IS NULL)")
    check("bool", predicate_sql(["=", "b", True], ct), "(\"b\" = true)")
    check("date", predicate_sql([">", "d", "1970-01-01"], ct), "(\"d\" > '1970-01-01'::date)")
    check("in with null", predicate_sql(["in", "f1", [1, None, 3]], ct), "(\"f1\" IN ((1), (3)))")
    check("not_in", predicate_sql(["not_in", "f0", ["a", "b"]], ct),
          "(\"f0\" NOT IN ('a'::text, 'b'::text))")
    check("nested", predicate_sql(
        ["and", [["or", [[">", "f5", "0"], ["<", "f4", "1899-01-01T00:59:20.001001002"],
                         ["is_null", "d"]]], ["is_not_null", "f6"]]], ct),
        "(((\"f5\" > '0'::numeric) OR (\"f4\" < '1899-01-01T00:59:20.001001002'::timestamp) "
        "OR (\"d\" IS NULL)) AND (\"f6\" IS NOT NULL))")
    try:
        predicate_sql(["=", "nope", 1], ct)
        failures.append("unknown column accepted")
    except KeyError:
        pass

    # value normalisation
    N = normalise
    check("ts nanos", N(T("TIMESTAMP(9)"), "2033-05-18T03:33:20.000001001"),
          N(T("TIMESTAMP(6)"), "2033-05-18T03:33:20.000001"))
    check("ts .0", N(T("TIMESTAMP(9)"), "2033-05-18T03:33:20.0"),
          N(T("TIMESTAMP(6)"), "2033-05-18T03:33:20"))
    check("ts epoch", N(T("TIMESTAMP(3)"), "1970-01-01T00:00:00.001"), 1000)
    check("ts pre-1970 nanos", N(T("TIMESTAMP(9)"), "1899-01-01T00:59:20.001001001"),
          N(T("TIMESTAMP(6)"), "1899-01-01T00:59:20.001001"))
    check("ts negative", N(T("TIMESTAMP(6)"), "1969-12-31T23:59:59.999999"), -1)
    check("ts rounding", [round_nanos_to_micros(n) for n in (1499, 1500, 2500, -1500, -1501)],
          [1, 2, 3, -1, -2])
    check("ts space", N(T("TIMESTAMP(6)"), "2024-11-26 06:38:56"),
          N(T("TIMESTAMP(6)"), "2024-11-26T06:38:56"))
    check("ltz Z vs offset", N(T("TIMESTAMP(3) WITH LOCAL TIME ZONE"), "1970-01-01T00:00:00.002Z"),
          N(T("TIMESTAMP(3) WITH LOCAL TIME ZONE"), "1970-01-01T00:00:00.002+00:00"))
    check("ltz offset", N(T("TIMESTAMP_LTZ(0)"), "1970-01-01T09:00:00+09:00"), 0)
    check("ts BC", N(T("TIMESTAMP(0)"), "0001-01-01T00:00:00 BC"),
          _days_from_civil(0, 1, 1) * 86400 * 1000000)
    check("civil", _days_from_civil(2000, 3, 1), 11017)
    check("date", N(T("DATE"), "1970-01-02"), 1)
    check("time", N(T("TIME(3)"), "01:00:00.5"), 3600500000)
    check("decimal scale", N(T("DECIMAL(23, 5)"), D("12.3")), "12.30000")
    check("decimal str", N(T("DECIMAL(23, 5)"), "12.30000"), "12.30000")
    check("decimal -0", N(T("DECIMAL(23, 5)"), "-0.00000"), "0.00000")
    check("float32", N(T("FLOAT"), D("1.1")), N(T("FLOAT"), D("1.100000023841858")))
    check("float32 ne", N(T("FLOAT"), D("1.1")) == N(T("FLOAT"), D("1.1000001")), False)
    check("double", N(T("DOUBLE"), D("11.1")), 11.1)
    check("double nan", N(T("DOUBLE"), "NaN"), "NaN")
    check("int", N(T("INT"), 5), 5)
    check("char pad", N(T("CHAR(5)"), "ab   "), N(T("CHAR(5)"), "ab"))
    check("bytes", N(T("BYTES"), "\\x4C69"), "\\x4c69")
    check("map pairs vs object",
          N(T("MAP<INT, INT>"), [[105, 105], [5, 5]]), N(T("MAP<INT, INT>"), {"5": 5, "105": 105}))
    check("row obj", N(row, {"f0": "str-5", "f1": 500, "f2": [5, None, 6]}),
          ("row", "str-5", 500, ("array", 5, None, 6)))
    check("row order-free", N(row, {"f2": [1], "f1": 1, "f0": "x"}), N(row, ["x", 1, [1]]))
    check("array float", N(T("ARRAY<FLOAT>"), [D("1.1"), None]),
          N(T("ARRAY<FLOAT>"), [D("1.100000023841858"), None]))
    for bad_t, bad_v in (("INT", "abc"), ("STRING", 5), ("BOOLEAN", 3), ("TIMESTAMP(3)", "x")):
        try:
            N(T(bad_t), bad_v)
            failures.append("%s accepted %r" % (bad_t, bad_v))
        except (ValueError, decimal.InvalidOperation):
            pass

    # multiset comparison with PostgreSQL-style JSON output
    types = [T("STRING"), T("INT"), T("DOUBLE"), T("TIMESTAMP(9)"), T("DECIMAL(23, 5)"), T("BYTES")]
    exp = [["Alice", 10, D("11.1"), "2033-05-18T03:33:20.000001001", "12.30000", "\\x616464"],
           ["Bob", None, None, None, None, None]]
    act = [load_json_text(s) for s in (
        '["Bob", null, null, null, null, null]',
        '["Alice", 10, 11.1, "2033-05-18T03:33:20.000001", 12.30000, "\\\\x616464"]')]
    check("multiset equal", compare_multisets(types, exp, act)[0], True)
    check("multiset dup", compare_multisets(types, exp, act + act[:1])[1],
          "rows differ: 0 missing, 1 unexpected (expected 2 rows, got 3)")

    # sub-microsecond timestamp comparisons: rows within 1us of the literal
    # are tolerated on either side, others still count
    cols = [("f0", T("STRING")), ("f4", T("TIMESTAMP(9)"))]
    tol = microsecond_ambiguity(["<=", "f4", "2025-04-25T01:00:02.000123000"], cols)
    exp = [["Lucy", "2025-04-25T01:00:02.000123000"]]
    act = [["Lucy", "2025-04-25T01:00:02.000123"], ["Tony", "2025-04-25T01:00:02.000123"]]
    check("tolerate tony", compare_multisets([T("STRING"), T("TIMESTAMP(9)")], exp, act, tol)[0], True)
    check("no tolerance far", compare_multisets([T("STRING"), T("TIMESTAMP(9)")], exp,
                                                act + [["Paul", "2025-04-25T01:00:02.000125"]], tol)[0],
          False)
    # a row equal to the literal at nanoseconds and at microseconds is not ambiguous
    tol_eq = microsecond_ambiguity(["=", "f4", "2025-04-25T01:01:42.000123000"], cols)
    bob = [["Bob", "2025-04-25T01:01:42.000123000"]]
    check("exact equal must be returned", compare_multisets([T("STRING"), T("TIMESTAMP(9)")], bob, [],
                                                            tol_eq)[0], False)
    check("exact equal returned, no tolerance used",
          compare_multisets([T("STRING"), T("TIMESTAMP(9)")], bob,
                            [["Bob", "2025-04-25T01:01:42.000123"]], tol_eq), (True, "", ""))
    check("no atoms", microsecond_ambiguity(["=", "f0", "x"], cols), None)
    check("p6 exact literal", microsecond_ambiguity(["<", "f4", "2020-01-01T00:00:00"],
                                                    [("f4", T("TIMESTAMP(6)"))]), None)

    # plan comparison
    splits = [{"partition": {"f1": 10}, "bucket": 0, "total_buckets": 2, "files": ["a.orc"],
               "file_meta": [{"file": "a.orc", "row_count": 1, "level": 0, "file_size": 5,
                              "schema_id": 0}]}]
    prow = [{"f1": "10"}, 0, 2, "/x/f1=10/bucket-0/a.orc", 0, 1, 5, 0]
    check("plan eq", compare_plan(splits, [prow], False)[0], True)
    check("plan extra", compare_plan(splits, [prow, [{"f1": 20}, 0, 2, "b.orc", 0, 1, 5, 0]],
                                     False)[0], False)
    check("plan extra ok", compare_plan(splits, [prow, [{"f1": 20}, 0, 2, "b.orc", 0, 1, 5, 0]],
                                        True)[0], True)
    check("plan rowcount", compare_plan(splits, [prow[:5] + [2, 5, 0]], False)[0], False)
    check("plan empty", compare_plan([], [], False)[0], True)
    # manifest-list / manifest expectations against the metadata functions' rows
    ml = {"file_name": "m-0", "file_size": 10, "num_added_files": 2, "num_deleted_files": 0,
          "partition_stats": {"min": [10], "max": [20], "null_counts": [0]}, "schema_id": 0}
    check("meta list", expected_manifest_meta(ml, ["f1"]),
          {"file_name": "m-0", "file_size": 10, "num_added_files": 2, "num_deleted_files": 0,
           "partition_min": {"f1": 10}, "partition_max": {"f1": 20},
           "partition_null_counts": {"f1": 0}, "schema_id": 0})
    check("meta list empty", expected_manifest_meta(
        {"partition_stats": "empty", "min_row_id": 0}, []),
        {"partition_min": {}, "partition_max": {}, "partition_null_counts": {}, "min_row_id": 0})
    check("meta entry", expected_manifest_entry(
        {"kind": "ADD", "file": "d.orc", "partition": {"f1": 10}, "level": 0, "other": 1}, ["f1"]),
        {"kind": "ADD", "file_name": "d.orc", "partition": {"f1": 10}, "level": 0})
    check("meta entry list partition", expected_manifest_entry({"partition": [1, "a"]}, ["p", "q"]),
          {"partition": {"p": 1, "q": "a"}})
    r1 = {"kind": "ADD", "file_name": "a", "row_count": D(3), "partition": {"f1": D(10)},
          "ordinality": 1, "file_source": None}
    r2 = dict(r1, kind="DELETE", file_name="b", ordinality=2)
    e1 = {"kind": "ADD", "file_name": "a", "row_count": 3, "partition": {"f1": 10}}
    e2 = {"kind": "DELETE", "file_name": "b"}
    check("meta ordered", compare_meta([e1, e2], [r1, r2], True)[0], True)
    check("meta ordered swapped", compare_meta([e2, e1], [r1, r2], True)[0], False)
    check("meta unordered swapped", compare_meta([e2, e1], [r1, r2], False)[0], True)
    check("meta missing row", compare_meta([e1, e2], [r1], True)[0], False)
    check("meta extra row", compare_meta([e1], [r1, r2], False)[0], False)
    check("meta value", compare_meta([dict(e1, row_count=4)], [r1], True)[0], False)
    check("meta null stated", compare_meta([{"file_source": None}], [r1], True)[0], True)
    check("meta empty", compare_meta([], [], True)[0], True)

    # psql output parsing
    out = ("%s BEGIN setup0\n%s END setup0 false 00000\n%s MSG \n"
           "%s BEGIN q0\n[1]\n[2]\n%s END q0 true XX000\n%s MSG data file format 'orc' is "
           "not supported yet\n%s DONE\n") % ((MARK,) * 7)
    steps, done = parse_session(out)
    check("parse done", done, True)
    check("parse q0", steps.get("q0"), (False, "XX000",
                                        "data file format 'orc' is not supported yet", ["[1]", "[2]"]))
    check("parse setup", steps.get("setup0")[0], True)
    check("unsupported", is_unsupported("Manifest format 'orc' is NOT supported yet"), True)
    # returned values are held strictly: no rounding of decimals, no missing ROW fields
    D = decimal.Decimal
    dt = parse_type("DECIMAL(10, 2)")
    check("decimal strict ok", normalise(dt, D("1.50"), True), "1.50")
    check("decimal oracle rounds", normalise(dt, D("1.506")), "1.51")
    try:
        normalise(dt, D("1.505"), True)
        check("decimal strict digits", "accepted", "ValueError")
    except ValueError:
        pass
    rt = parse_type("ROW<a INT, b STRING>")
    check("row strict ok", normalise(rt, {"a": 1, "b": "x"}, True), ("row", 1, "x"))
    try:
        normalise(rt, {"a": 1}, True)
        check("row strict missing", "accepted", "ValueError")
    except ValueError:
        pass
    check("row missing reported", compare_multisets([rt], [[{"a": 1, "b": None}]], [[{"a": 1}]])[0],
          False)
    # the baseline: unlisted skips / refusals / µs passes become FAILs
    base = {"skips": {"c1": "why"}, "refused": {"c2*": "feature"}, "microseconds": {}}
    check("baseline skip listed", apply_baseline(Result("c1", "SKIP", "no mapping"), base).status, "SKIP")
    check("baseline skip unlisted", apply_baseline(Result("c3", "SKIP", "no mapping"), base).status, "FAIL")
    check("baseline refusal listed", apply_baseline(Result("c2#a", "SKIP", "x is not supported yet"),
                                                    base).status, "SKIP")
    check("baseline refusal as skip", apply_baseline(Result("c1", "SKIP", "x is not supported yet"),
                                                     base).status, "FAIL")
    check("baseline µs unlisted", apply_baseline(Result("c1", "PASS", micro=True), base).status, "FAIL")
    check("skip group", skip_group("data file format 'orc' is not supported yet: "
                                   "/a/b/data-4e30d6c0-f109-4300-a010-4ba03047dd9d-0.orc"),
          "data file format 'orc' is not supported yet: <path>")
    steps, done = parse_session("%s BEGIN q0\n" % MARK)     # psql lost the connection
    check("parse crash", (done, "q0" in steps), (False, False))

    for f in failures:
        print("self-test FAIL: %s" % f)
    print("self-test: %d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
