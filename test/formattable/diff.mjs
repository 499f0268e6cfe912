// diff.mjs - differential test of format-table listing + CSV/JSON reading.
//
// DuckDB (npm @duckdb/node-api) writes hive-partitioned CSV trees with
// COPY ... (FORMAT csv, PARTITION_BY (region, year)) -- NULL partition
// values become __HIVE_DEFAULT_PARTITION__, values needing escaping are
// %XY-encoded -- and JSON-lines files into the same partition directories
// (this DuckDB refuses PARTITION_BY for FORMAT json, so each partition is
// COPY'd to its own file).  ft_dump (our C reader) lists and reads each
// tree; its rows must equal DuckDB's read_csv/read_json(hive_partitioning
// = true) of the same tree, value by value after type-aware
// normalisation.  Prints "N passed, N failed"; exit 1 on any mismatch.
//
// Usage: node diff.mjs FT_DUMP WORKDIR
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [ftDump, work] = process.argv.slice(2);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
await con.run(`SET TimeZone = 'UTC'`);

// Source table: 1500 rows covering every scalar type, awkward strings,
// NULLs, and partition values that need escaping.
await con.run(`
CREATE TABLE t AS
SELECT
  i::INTEGER AS id,
  CASE i % 9
    WHEN 0 THEN NULL
    WHEN 1 THEN 'plain'
    WHEN 2 THEN 'comma, "quoted"'
    WHEN 3 THEN 'tab' || chr(9) || 'here'
    WHEN 4 THEN 'üñí €'
    WHEN 5 THEN 'back\\slash'
    WHEN 6 THEN 'multi' || chr(10) || 'line'
    WHEN 7 THEN ''
    ELSE 'name-' || i END AS name,
  CASE WHEN i % 11 = 0 THEN NULL ELSE ((i * 7919) % 2000003 - 1000000)::DECIMAL(12,3) / 8 END AS amount,
  CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 1.0 / 7) * (CASE WHEN i % 2 = 0 THEN -1 ELSE 1 END) END::DOUBLE AS price,
  (i * 0.25)::FLOAT AS f,
  CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 = 0 END AS flag,
  (DATE '1969-12-25' + (i * 13))::DATE AS d,
  (TIMESTAMP '2023-12-31 23:59:59' + to_microseconds(i * 1000003))::TIMESTAMP AS ts,
  (TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_milliseconds(i::BIGINT * 86400123))::TIMESTAMPTZ AS tsz,
  (TIME '00:00:00' + to_milliseconds(i * 45679))::TIME AS tm,
  (i::BIGINT * 6148914691236517) - 4611686018427387904 AS big,
  (i % 256 - 128)::TINYINT AS tiny,
  CASE WHEN i % 17 = 0 THEN NULL ELSE [i, NULL, i * 2] END AS arr,
  {'a': i % 10, 'b': 'x' || i} AS st,
  MAP {'k' || (i % 3): i, 'z': NULL} AS m,
  CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN 'eu' WHEN 2 THEN 'a/b' WHEN 3 THEN 'x=y'
    WHEN 4 THEN 'sp ace%é:#' ELSE 'us' END AS region,
  CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN 2023 WHEN 2 THEN 2024 ELSE 9 END::INTEGER AS year
FROM (SELECT range::INTEGER AS i FROM range(1500)) r`);

const flatCols = [
  ['id', 'INT', 'INTEGER'], ['name', 'STRING', 'VARCHAR'], ['amount', 'DECIMAL(12,3)', 'DECIMAL(12,3)'],
  ['price', 'DOUBLE', 'DOUBLE'], ['f', 'FLOAT', 'FLOAT'], ['flag', 'BOOLEAN', 'BOOLEAN'],
  ['d', 'DATE', 'DATE'], ['ts', 'TIMESTAMP(6)', 'TIMESTAMP'], ['tsz', 'TIMESTAMP_LTZ(6)', 'TIMESTAMPTZ'],
  ['tm', 'TIME', 'TIME'], ['big', 'BIGINT', 'BIGINT'], ['tiny', 'TINYINT', 'TINYINT'],
];
const nestedCols = [
  ['arr', 'ARRAY<INT>', 'INTEGER[]'], ['st', 'ROW<a INT, b STRING>', 'STRUCT(a INTEGER, b VARCHAR)'],
  ['m', 'MAP<STRING,INT>', 'MAP(VARCHAR, INTEGER)'],
];
const keys = [['region', 'STRING', 'VARCHAR'], ['year', 'INT', 'INTEGER']];
const DEFAULT = '__HIVE_DEFAULT_PARTITION__';

const spec = (cols) => cols.map(([n, t]) => `${n}:${t}`).join(';');
const duckColumns = (cols) => '{' + cols.map(([n, , d]) => `'${n}': '${d}'`).join(', ') + '}';
const hiveTypes = `{'region': 'VARCHAR', 'year': 'INTEGER'}`;
const flatNames = flatCols.map((c) => c[0]).join(', ');

async function rowsOf(sql) {
  const r = await con.runAndReadAll(sql);
  return r.getRows();
}

// ---- normalisation -----------------------------------------------------
function tsMicros(s, tz) {
  // "2024-01-01[ T]10:00:00[.ffffff][Z|+00[:00]]" -> BigInt micros (UTC)
  const m = /^(-?\d{4,})-(\d\d)-(\d\d)[ T](\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?(Z|[+-]\d\d(?::?\d\d)?)?$/.exec(s);
  if (!m) return 'BAD:' + s;
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] || 0));
  let micros = BigInt(ms) * 1000n + BigInt(((m[7] || '') + '000000').slice(0, 6));
  if (m[8] && m[8] !== 'Z') {
    const sign = m[8][0] === '-' ? -1n : 1n;
    const hh = BigInt(m[8].slice(1, 3));
    const mm = BigInt(m[8].replace(':', '').slice(3, 5) || '0');
    micros -= sign * (hh * 3600n + mm * 60n) * 1000000n;
  }
  return micros.toString();
}
function timeMillis(s) {
  const m = /^(\d\d):(\d\d):(\d\d)(?:\.(\d+))?$/.exec(s);
  if (!m) return 'BAD:' + s;
  return ((+m[1] * 60 + +m[2]) * 60 + +m[3]) * 1000 + +((m[4] || '') + '000').slice(0, 3);
}
function canonNested(v) {
  // C renders MAP as [[k, v], ...]; DuckDB's to_json gives {"k": v}
  return JSON.stringify(v);
}
function norm(type, v, side, csv) {
  if (v === null || v === undefined) return null;
  const s = String(v);
  if (type === 'STRING') return csv && s === '' ? null : s; // Paimon CSV: "" is NULL
  if (/^(INT|BIGINT|TINYINT)$/.test(type)) return BigInt(s).toString();
  if (type === 'DOUBLE') return Number(s);
  if (type === 'FLOAT') return Math.fround(Number(s));
  if (type === 'BOOLEAN') return s.toLowerCase();
  if (type.startsWith('TIMESTAMP')) return tsMicros(s);
  if (type === 'TIME') return timeMillis(s);
  if (type.startsWith('MAP')) {
    const o = side === 'c' ? Object.fromEntries(JSON.parse(s)) : JSON.parse(s);
    return canonNested(o);
  }
  if (type.startsWith('ARRAY') || type.startsWith('ROW')) return canonNested(JSON.parse(s));
  return s; // DECIMAL, DATE: same text on both sides
}

function runDump(args) {
  const out = execFileSync(ftDump, args, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
  return out.split('\n').filter((x) => x.length).map((x) => JSON.parse(x));
}

let passed = 0, failed = 0;
function report(name, ok, detail) {
  if (ok) { passed++; console.log(`ok   ${name}`); }
  else { failed++; console.log(`FAIL ${name}: ${detail}`); }
}

// compare: expected rows from DuckDB (VARCHAR cells), actual from ft_dump
function compare(name, types, expected, actual, csv) {
  const key = (r) => BigInt(r[0]);
  const byId = (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  expected.sort(byId); actual.sort(byId);
  if (expected.length !== actual.length) {
    return report(name, false, `row count ${actual.length} != DuckDB ${expected.length}`);
  }
  for (let i = 0; i < expected.length; i++) {
    for (let c = 0; c < types.length; c++) {
      const e = norm(types[c], expected[i][c], 'duck', csv);
      const a = norm(types[c], actual[i][c], 'c', csv);
      const same = (typeof e === 'number' && typeof a === 'number') ? (e === a || (isNaN(e) && isNaN(a))) : e === a;
      if (!same) {
        return report(name, false, `row id=${expected[i][0]} column ${c} (${types[c]}): ours ${JSON.stringify(actual[i][c])} DuckDB ${JSON.stringify(expected[i][c])}`);
      }
    }
  }
  report(name, true);
}

// DuckDB's view of a tree, every cell as VARCHAR (nested as JSON)
async function duckRows(reader, cols, where = '') {
  const sel = cols.map(([n, t]) =>
    /^(ARRAY|ROW|MAP)/.test(t) ? `to_json(${n})::VARCHAR` : `${n}::VARCHAR`).join(', ');
  return rowsOf(`SELECT ${sel}, region::VARCHAR, year::VARCHAR FROM ${reader} ${where}`);
}

const csvTypes = [...flatCols.map((c) => c[1]), 'STRING', 'INT'];

// ---- case 1..4: CSV trees --------------------------------------------------
const csvCases = [
  { name: 'csv_plain', copy: `HEADER false`, ext: 'csv', opts: [] },
  { name: 'csv_header_pipe', copy: `HEADER true, DELIMITER '|'`, ext: 'csv',
    opts: ['csv.include-header=true', 'csv.field-delimiter=|'] },
  { name: 'csv_gzip', copy: `HEADER false, COMPRESSION gzip`, ext: 'csv.gz', opts: [] },
  { name: 'csv_zstd', copy: `HEADER false, COMPRESSION zstd`, ext: 'csv.zst', opts: [] },
];
for (const cc of csvCases) {
  const dir = path.join(work, cc.name);
  await con.run(`COPY (SELECT ${flatNames}, region, year FROM t) TO '${dir}'
                 (FORMAT csv, ${cc.copy}, PARTITION_BY (region, year))`);
  const delim = cc.copy.includes('|') ? '|' : ',';
  const reader = `read_csv('${dir}/**/*.${cc.ext}', hive_partitioning = true, hive_types = ${hiveTypes},
                  header = ${cc.copy.includes('HEADER true')}, delim = '${delim}', quote = '"', escape = '"',
                  columns = ${duckColumns(flatCols)})`;
  const expected = await duckRows(reader, flatCols);
  let actual;
  try {
    actual = runDump([dir, '--format', 'csv', '--keys', spec(keys), '--cols', spec(flatCols),
      '--opt', `partition.default-name=${DEFAULT}`, '--opt', 'csv.escape-character=',
      ...cc.opts.flatMap((o) => ['--opt', o])]);
  } catch (e) { report(cc.name, false, String(e.stderr || e)); continue; }
  compare(cc.name, csvTypes, expected, actual, true);
}

// ---- case 5: CSV projection by position (columns 10, 1, 0 of the file) ----
{
  const dir = path.join(work, 'csv_plain');
  const reader = `read_csv('${dir}/**/*.csv', hive_partitioning = true, hive_types = ${hiveTypes},
                  header = false, quote = '"', escape = '"', columns = ${duckColumns(flatCols)})`;
  const exp = await rowsOf(`SELECT id::VARCHAR, big::VARCHAR, name, region, year::VARCHAR FROM ${reader}`);
  try {
    // ft_dump puts requested columns first: big, name, id -> reorder to id, big, name
    const act = runDump([dir, '--format', 'csv', '--keys', spec(keys), '--cols', spec(flatCols),
      '--opt', `partition.default-name=${DEFAULT}`, '--opt', 'csv.escape-character=', '--select', '10,1,0'])
      .map((r) => [r[2], r[0], r[1], r[3], r[4]]);
    compare('csv_projection_by_position', ['INT', 'BIGINT', 'STRING', 'STRING', 'INT'], exp, act, true);
  } catch (e) { report('csv_projection_by_position', false, String(e.stderr || e)); }
}

// ---- case 6: JSON tree (same partition directories, nested columns) ---------
const jsonCols = [...flatCols, ...nestedCols];
const jsonDir = path.join(work, 'json');
{
  const csvDir = path.join(work, 'csv_plain');
  const parts = [];
  for (const r of fs.readdirSync(csvDir)) {
    for (const y of fs.readdirSync(path.join(csvDir, r))) parts.push([r, y]);
  }
  for (const [r, y] of parts) {
    const val = (name) => {
      const v = name.slice(name.indexOf('=') + 1);
      return v === DEFAULT ? null : decodeURIComponent(v);
    };
    const lit = (v) => (v === null ? 'NULL' : `'${v.replace(/'/g, "''")}'`);
    const out = path.join(jsonDir, r, y);
    fs.mkdirSync(out, { recursive: true });
    await con.run(`COPY (SELECT ${jsonCols.map((c) => c[0]).join(', ')} FROM t
                   WHERE region IS NOT DISTINCT FROM ${lit(val(r))}
                     AND year IS NOT DISTINCT FROM ${lit(val(y))}::INTEGER)
                   TO '${out}/data_0.json' (FORMAT json)`);
  }
  // a staging directory and a _SUCCESS marker that both readers must ignore
  fs.mkdirSync(path.join(jsonDir, '_temporary', 'region=zz', 'year=1'), { recursive: true });
  fs.writeFileSync(path.join(jsonDir, '_SUCCESS'), '');
}
const jsonReader = `read_json('${jsonDir}/region=*/year=*/*.json', hive_partitioning = true,
                    hive_types = ${hiveTypes}, format = 'newline_delimited', columns = ${duckColumns(jsonCols)})`;
const jsonTypes = [...jsonCols.map((c) => c[1]), 'STRING', 'INT'];
async function jsonCase(name, filters, where) {
  const expected = await duckRows(jsonReader, jsonCols, where);
  try {
    const actual = runDump([jsonDir, '--format', 'json', '--keys', spec(keys), '--cols', spec(jsonCols),
      '--opt', `partition.default-name=${DEFAULT}`, ...filters.flatMap((f) => ['--filter', f])]);
    compare(name, jsonTypes, expected, actual, false);
  } catch (e) { report(name, false, String(e.stderr || e)); }
}
await jsonCase('json_all', [], '');
// ---- case 7..9: partition filters (leading key, second key, OR, NULL) ------
await jsonCase('json_filter_leading_escaped', ['region=a/b'], `WHERE region = 'a/b'`);
await jsonCase('json_filter_second_key', ['year=2024'], `WHERE year = 2024`);
await jsonCase('json_filter_or_null', ['region=sp ace%é:#,year=9', `year=${DEFAULT}`],
  `WHERE (region = 'sp ace%é:#' AND year = 9) OR year IS NULL`);

// ---- case 10: ListPartitions vs DuckDB's distinct partitions ----------------
{
  const exp = (await rowsOf(`SELECT DISTINCT region, year FROM ${jsonReader}
                             ORDER BY year NULLS FIRST, region NULLS FIRST`)).map((r) => [r[0], r[1] === null ? null : String(r[1])]);
  try {
    // our order: by values in key order (region, year); DuckDB sorted by year
    // first above, so compare as sets after sorting both the same way
    const act = runDump([jsonDir, '--partitions', '--keys', spec(keys), '--opt', `partition.default-name=${DEFAULT}`])
      .map((o) => [o.region, o.year]);
    const ourOrderOk = act.every((r, i) => i === 0 || (() => {
      const p = act[i - 1];
      if (p[0] === r[0]) return p[1] === null || (r[1] !== null && +p[1] <= +r[1]);
      return p[0] === null || (r[0] !== null && Buffer.compare(Buffer.from(p[0]), Buffer.from(r[0])) < 0);
    })());
    const s = (a) => a.map((r) => JSON.stringify(r)).sort().join('\n');
    report('list_partitions', ourOrderOk && s(exp) === s(act),
      ourOrderOk ? `ours ${JSON.stringify(act)} DuckDB ${JSON.stringify(exp)}` : `not sorted: ${JSON.stringify(act)}`);
  } catch (e) { report('list_partitions', false, String(e.stderr || e)); }
}

console.log(`${passed} passed, ${failed} failed, 0 skipped`);
process.exit(failed ? 1 : 0);
