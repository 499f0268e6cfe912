#!/usr/bin/env python3
"""check-gen.py - check the ORC files of ts_gen --format orc without our reader.

usage: check-gen.py TABLE_DIR NULL_EVERY

Decodes every data file of a table that ts_gen wrote with --format orc (one
schema, column 0 "id" INT NOT NULL) with this file's own ORC decoder
(protobuf tail, stripe footer, PRESENT / DATA / LENGTH / SECONDARY streams,
RLE v1 integers, byte and boolean RLE, lists, maps and structs, compression
NONE),
and compares every value with the generator's VALUES formulas (the comment
at the top of src/tools/ts_gen.c).  It shares no code with src/format/orc.
Prints "N passed, N failed" (one check per column of each file: all its
values right); exits 1 on a mismatch.
"""
import glob
import json
import os
import re
import struct
import sys

# ---- protobuf -------------------------------------------------------------


def pb_fields(buf):
    """(field number, wire type, value) of a protobuf message."""
    i, out = 0, []
    while i < len(buf):
        key, i = varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 2:
            n, i = varint(buf, i)
            v, i = buf[i:i + n], i + n
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        out.append((num, wt, v))
    return out


def varint(buf, i):
    v = s = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << s
        s += 7
        if b < 0x80:
            return v, i


def unzigzag(u):
    return (u >> 1) ^ -(u & 1)


def one(fields, num, default=None):
    for n, _, v in fields:
        if n == num:
            return v
    return default


def every(fields, num):
    return [v for n, _, v in fields if n == num]

# ---- run-length decoders --------------------------------------------------


def byte_rle(buf):
    i, out = 0, []
    while i < len(buf):
        h = buf[i]
        i += 1
        if h < 128:                      # run of h + 3 copies
            out += [buf[i]] * (h + 3)
            i += 1
        else:                            # 256 - h literals
            n = 256 - h
            out += list(buf[i:i + n])
            i += n
    return out


def bool_rle(buf, n):
    bits = []
    for b in byte_rle(buf):
        bits += [(b >> (7 - k)) & 1 == 1 for k in range(8)]
    return bits[:n]


def int_rle_v1(buf, signed):
    i, out = 0, []
    while i < len(buf):
        h = buf[i]
        i += 1
        if h < 128:
            delta = struct.unpack('b', bytes([buf[i]]))[0]
            i += 1
            base, i = varint(buf, i)
            base = unzigzag(base) if signed else base
            out += [base + k * delta for k in range(h + 3)]
        else:
            for _ in range(256 - h):
                v, i = varint(buf, i)
                out.append(unzigzag(v) if signed else v)
    return out

# ---- the file -------------------------------------------------------------


def read_orc(path):
    b = open(path, 'rb').read()
    if b[:3] != b'ORC':
        raise ValueError("no ORC magic")
    pslen = b[-1]
    ps = pb_fields(b[-1 - pslen:-1])
    if one(ps, 8000) != b'ORC' or one(ps, 2, 0) != 0:
        raise ValueError("postscript: magic or compression")
    flen = one(ps, 1)
    footer = pb_fields(b[-1 - pslen - flen:-1 - pslen])
    types = [pb_fields(t) for t in every(footer, 4)]
    nrows = one(footer, 6)
    names = [n.decode() for n in every(types[0], 3)]
    subs = subtypes(types[0])
    cols = {}
    for st in every(footer, 3):
        s = pb_fields(st)
        off, ilen, dlen, slen, srows = (one(s, k, 0) for k in (1, 2, 3, 4, 5))
        sf = pb_fields(b[off + ilen + dlen:off + ilen + dlen + slen])
        pos = off
        streams = {}
        for m in every(sf, 1):
            f = pb_fields(m)
            kind, col, ln = one(f, 1, 0), one(f, 2, 0), one(f, 3, 0)
            streams[(col, kind)] = b[pos:pos + ln]
            pos += ln
        encs = [one(pb_fields(e), 1, 0) for e in every(sf, 2)]
        tz = one(sf, 3, b'').decode()
        if tz not in ('UTC', ''):
            raise ValueError("writer time zone %s" % tz)
        if any(e != 0 for e in encs) or len(encs) != len(types):
            raise ValueError("column encodings %s" % encs)
        for name, cid in zip(names, subs):
            cols.setdefault(name, []).extend(decode_column(types, streams, cid, srows))
    return nrows, names, cols


def subtypes(t):
    out = []
    for v in every(t, 2):
        j = 0
        while j < len(v):
            x, j = varint(v, j)
            out.append(x)
    return out


def decode_column(types, streams, cid, n):
    t = types[cid]
    kind = one(t, 1)
    present = bool_rle(streams[(cid, 0)], n) if (cid, 0) in streams else [True] * n
    m = sum(present)
    data = streams.get((cid, 1), b'')
    if kind in (10, 11):                 # list, map: LENGTH then the children
        lens = int_rle_v1(streams[(cid, 2)], False)[:m]
        sub = subtypes(t)
        kids = [decode_column(types, streams, c, sum(lens)) for c in sub]
        vals, p = [], 0
        for ln in lens:
            if kind == 10:
                vals.append(kids[0][p:p + ln])
            else:
                vals.append(list(zip(kids[0][p:p + ln], kids[1][p:p + ln])))
            p += ln
    elif kind == 12:                     # struct: a child value per non-NULL row
        names = [x.decode() for x in every(t, 3)]
        kids = [decode_column(types, streams, c, m) for c in subtypes(t)]
        vals = [dict(zip(names, row)) for row in zip(*kids)] if kids else [{}] * m
    elif kind == 0:
        vals = bool_rle(data, m)
    elif kind == 1:
        vals = [x - 256 if x > 127 else x for x in byte_rle(data)][:m]
    elif kind in (2, 3, 4, 15):
        vals = int_rle_v1(data, True)[:m]
    elif kind == 5:
        vals = list(struct.unpack('<%df' % m, data))
    elif kind == 6:
        vals = list(struct.unpack('<%dd' % m, data))
    elif kind in (7, 8, 16, 17):
        lens = int_rle_v1(streams[(cid, 2)], False)[:m]
        vals, p = [], 0
        for ln in lens:
            vals.append(data[p:p + ln])
            p += ln
    elif kind == 14:
        scales = int_rle_v1(streams[(cid, 5)], True)[:m]
        vals, p = [], 0
        for sc in scales:
            u = sh = 0
            while True:
                x = data[p]
                p += 1
                u |= (x & 0x7F) << sh
                sh += 7
                if x < 0x80:
                    break
            vals.append((unzigzag(u), sc))
    elif kind in (9, 18):
        secs = int_rle_v1(data, True)[:m]
        nraw = int_rle_v1(streams[(cid, 5)], False)[:m]
        vals = []
        for s, r in zip(secs, nraw):
            z, nanos = r & 7, r >> 3
            if z:
                nanos *= 10 ** (z + 1)
            s += 1420070400
            if s < 0 and nanos > 999999:
                s -= 1
            vals.append(s * 10**9 + nanos)
    else:
        raise ValueError("ORC type kind %d" % kind)
    it = iter(vals)
    return [next(it) if p else None for p in present]

# ---- the generator's formulas ---------------------------------------------


def expected(ptype, name, n):
    if isinstance(ptype, dict):
        kind = ptype['type'].replace(' NOT NULL', '')
        if kind == 'ARRAY':
            return [expected(ptype['element'], name, n + k) for k in range(n % 4)]
        if kind == 'MAP':
            return [(expected(ptype['key'], name, n + k), expected(ptype['value'], name, n + k))
                    for k in range(n % 3)]
        if kind == 'ROW':
            return {f['name']: expected(f['type'], f['name'], n) for f in ptype['fields']}
        raise ValueError("type %s" % kind)
    t = ptype.replace(' NOT NULL', '')
    m = re.match(r'(\w+(?: \w+)*?)(?:\((\d+)(?:, *(\d+))?\))?( WITH LOCAL TIME ZONE)?$', t)
    base, a1, a2 = m.group(1), m.group(2), m.group(3)
    if base == 'BOOLEAN':
        return n % 2 == 1
    if base == 'TINYINT':
        return n % 128
    if base == 'SMALLINT':
        return n % 32768
    if base == 'INT':
        return n
    if base == 'BIGINT':
        return n * 1000000007
    if base == 'FLOAT':
        return n * 0.5
    if base == 'DOUBLE':
        return n * 1.25
    if base == 'DECIMAL':
        p, s = int(a1), int(a2)
        return ((n * (10**18 + 1)) % 10**p, s)
    if base in ('CHAR', 'VARCHAR', 'STRING', 'BINARY', 'VARBINARY', 'BYTES'):
        ln = int(a1) if a1 else None
        v = ('%s_%d' % (name, n)).encode()
        if ln is not None and ln < 2147483647:
            v = v[:ln]
            if base == 'BINARY':
                v = v.ljust(ln, b'\0')
        return v
    if base == 'DATE':
        return 18262 + n
    if base == 'TIME':
        p = min(int(a1) if a1 else 0, 3)
        ms = (n * 1001) % 86400000
        return ms - ms % 10 ** (3 - p)
    if base == 'TIMESTAMP':
        p = int(a1) if a1 else 6
        us = 1577836800000000 + n * 1001001
        us -= us % 10 ** (6 - min(p, 6))
        return us * 1000
    raise ValueError("type %s" % ptype)


def main():
    table, k = sys.argv[1], int(sys.argv[2])
    schema = json.load(open(os.path.join(table, 'schema', 'schema-0')))
    ptypes = {f['name']: f['type'] for f in schema['fields']}
    order = [f['name'] for f in schema['fields']]
    passed = failed = 0
    files = sorted(glob.glob(os.path.join(table, '**', '*.orc'), recursive=True))
    for path in files:
        try:
            nrows, names, cols = read_orc(path)
        except (ValueError, IndexError, KeyError, StopIteration, struct.error) as e:
            print("%s: cannot decode: %r" % (path, e))
            failed += 1
            continue
        if names != order:
            print("%s: columns %s, schema has %s" % (path, names, order))
            failed += 1
            continue
        for c, name in enumerate(names):
            pt = ptypes[name]
            nullable = 'NOT NULL' not in (pt['type'] if isinstance(pt, dict) else pt)
            wrong = 0
            for r in range(nrows):
                n = cols['id'][r]
                want = None if (nullable and k > 0 and n % k == c % k) else expected(pt, name, n)
                got = cols[name][r]
                if got != want:
                    wrong += 1
                    if wrong <= 3:
                        print("%s row %d column %s: got %r, want %r" % (path, n, name, got, want))
            if wrong == 0 and len(cols[name]) == nrows:
                passed += 1
            else:
                failed += 1
    print("%d files" % len(files))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not files else 0)


if __name__ == '__main__':
    main()
