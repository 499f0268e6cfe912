#!/usr/bin/env python3
"""avro_edit.py - rewrite a Paimon Avro file (a manifest, an index manifest) for
hostile test fixtures: string values replaced, an index entry given an external
path, the result written uncompressed (codec null) in place.  A test helper only
(sql/security_index.sql); the generator is never involved.

  avro_edit.py FILE [--rename OLD=NEW]... [--external NAME=PATH]... [--schema]

--rename OLD=NEW    every Avro string OLD (length-prefixed) becomes NEW
--external NAME=PATH  the index manifest entry whose _FILE_NAME is NAME gets
                    _EXTERNAL_PATH PATH (its _EXTERNAL_PATH must be null)
--schema            print the file's schema and exit
"""
import json
import subprocess
import sys
import zlib


def read_long(b, i):
    shift = 0
    v = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            break
    return (v >> 1) ^ -(v & 1), i


def enc_long(n):
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while True:
        if n & ~0x7F:
            out.append((n & 0x7F) | 0x80)
            n >>= 7
        else:
            out.append(n)
            return bytes(out)


def enc_str(s):
    b = s.encode()
    return enc_long(len(b)) + b


def skip_ranges(b, j):
    """Past a _DELETIONS_VECTORS_RANGES value: null, or an array of
    nullable {f0 string, f1 int, f2 int, _CARDINALITY nullable long}."""
    u, j = read_long(b, j)
    if u == 0:
        return j
    while True:
        n, j = read_long(b, j)
        if n == 0:
            return j
        if n < 0:
            n = -n
            _, j = read_long(b, j)
        for _ in range(n):
            u, j = read_long(b, j)
            if u == 0:
                continue
            ln, j = read_long(b, j)
            j += ln
            _, j = read_long(b, j)
            _, j = read_long(b, j)
            u, j = read_long(b, j)
            if u == 1:
                _, j = read_long(b, j)


def main():
    args = sys.argv[1:]
    path = args.pop(0)
    data = open(path, "rb").read()
    assert data[:4] == b"Obj\x01", "not an Avro object container file"
    i = 4
    meta = {}
    while True:
        n, i = read_long(data, i)
        if n == 0:
            break
        if n < 0:
            n = -n
            _, i = read_long(data, i)
        for _ in range(n):
            kl, i = read_long(data, i)
            k = data[i:i + kl].decode()
            i += kl
            vl, i = read_long(data, i)
            meta[k] = data[i:i + vl]
            i += vl
    sync = data[i:i + 16]
    i += 16
    if "--schema" in args:
        print(json.dumps(json.loads(meta["avro.schema"]), indent=1))
        return
    codec = meta.get("avro.codec", b"null").decode()
    blocks = []
    while i < len(data):
        count, i = read_long(data, i)
        size, i = read_long(data, i)
        raw = data[i:i + size]
        i += size
        assert data[i:i + 16] == sync, "bad sync marker"
        i += 16
        if codec == "null":
            body = raw
        elif codec == "deflate":
            body = zlib.decompress(raw, -15)
        elif codec == "zstandard":
            body = subprocess.run(["zstd", "-d", "-c", "-q"], input=raw, check=True,
                                  stdout=subprocess.PIPE).stdout
        else:
            sys.exit("codec %s not handled" % codec)
        blocks.append([count, body])
    fields = [f["name"] for f in json.loads(meta["avro.schema"])["fields"]]
    ops = list(zip(args[0::2], args[1::2]))
    if any(op == "--external" for op, _ in ops) and not (
            "_EXTERNAL_PATH" in fields and fields.index("_EXTERNAL_PATH") > 0 and
            fields[fields.index("_EXTERNAL_PATH") - 1] == "_DELETIONS_VECTORS_RANGES"):
        sys.exit("%s: no _EXTERNAL_PATH after _DELETIONS_VECTORS_RANGES (fields %s)" % (path, fields))
    for op, val in ops:
        old, new = val.split("=", 1)
        done = 0
        for blk in blocks:
            if op == "--rename":
                done += blk[1].count(enc_str(old))
                blk[1] = blk[1].replace(enc_str(old), enc_str(new))
            elif op == "--external":
                body = blk[1]
                at = body.find(enc_str(old))
                while at >= 0:
                    j = at + len(enc_str(old))
                    _, j = read_long(body, j)      # _FILE_SIZE
                    _, j = read_long(body, j)      # _ROW_COUNT
                    j = skip_ranges(body, j)       # _DELETIONS_VECTORS_RANGES
                    assert body[j] == 0, "external path not null"
                    body = body[:j] + b"\x02" + enc_str(new) + body[j + 1:]
                    done += 1
                    at = body.find(enc_str(old), j)
                blk[1] = body
            else:
                sys.exit("unknown option " + op)
        if done == 0:
            sys.exit("%s %s: not found in %s" % (op, old, path))
    meta["avro.codec"] = b"null"
    out = bytearray(b"Obj\x01")
    out += enc_long(len(meta))
    for k, v in meta.items():
        out += enc_str(k) + enc_long(len(v)) + v
    out += enc_long(0) + sync
    for count, body in blocks:
        out += enc_long(count) + enc_long(len(body)) + body + sync
    open(path, "wb").write(out)


main()
