// difftest.mjs - differential test of our Parquet reader against DuckDB.
//
// DuckDB writes Parquet files with every type Paimon uses (flat, nested,
// nulls, pre-1970 values), for each codec, data page v1/v2, dictionary on
// and off, with and without FIELD_IDS, several row groups; then both DuckDB
// and pq_dump (our reader, built by run.sh) read each file and the values
// are compared one by one.  Usage: node difftest.mjs PQ_DUMP WORKDIR
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';

const [pqDump, workDir] = process.argv.slice(2);
mkdirSync(workDir, { recursive: true });

const N = 5000;
// name, DuckDB SQL expression over i (BIGINT), Paimon type JSON, field id
const cols = [
  ['b', `CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 = 0 END`, 'BOOLEAN', 0],
  ['i8', `CASE WHEN i % 7 = 1 THEN NULL ELSE ((i * 37) % 256 - 128)::TINYINT END`, 'TINYINT', 1],
  ['i16', `CASE WHEN i % 7 = 2 THEN NULL ELSE ((i * 997) % 65536 - 32768)::SMALLINT END`, 'SMALLINT', 2],
  ['i32', `CASE WHEN i % 11 = 3 THEN NULL ELSE (i * 2654435761 % 4294967296 - 2147483648)::INTEGER END`, 'INT', 3],
  ['i64', `CASE WHEN i % 13 = 4 THEN NULL ELSE (i * 6364136223846793005::HUGEINT % 18446744073709551616 - 9223372036854775808)::BIGINT END`, 'BIGINT', 4],
  ['f32', `CASE WHEN i % 7 = 5 THEN NULL WHEN i = 6 THEN 'nan'::FLOAT WHEN i = 8 THEN '-inf'::FLOAT ELSE (i * 1.37 - 3000)::FLOAT END`, 'FLOAT', 5],
  ['f64', `CASE WHEN i % 7 = 6 THEN NULL WHEN i = 9 THEN 'inf'::DOUBLE ELSE i / 7.0 - 300.125 END`, 'DOUBLE', 6],
  ['dec9', `CASE WHEN i % 9 = 0 THEN NULL ELSE ((i * 12345) % 2000000 - 1000000) / 100.0 END::DECIMAL(9,2)`, 'DECIMAL(9, 2)', 7],
  ['dec18', `CASE WHEN i % 9 = 1 THEN NULL ELSE ((i * 1234567891) % 2000000000000 - 1000000000000) / 10000.0 END::DECIMAL(18,4)`, 'DECIMAL(18, 4)', 8],
  ['dec30', `CASE WHEN i % 9 = 2 THEN NULL ELSE (i::HUGEINT * 98765432109876543 - 123456789012345678901) / 100000 END::DECIMAL(30,5)`, 'DECIMAL(30, 5)', 9],
  ['s', `CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN '' ELSE 'str-' || (i % 50) || CASE WHEN i % 17 = 0 THEN ' ünïcødé ✓' ELSE '' END END`, 'STRING', 10],
  ['sl', `CASE WHEN i % 5 = 2 THEN NULL ELSE repeat(chr(65 + (i % 26)::INTEGER), (i % 40)::INTEGER) || i END`, 'STRING', 11],
  ['bl', `CASE WHEN i % 6 = 0 THEN NULL ELSE ('\\x' || lpad(printf('%x', i % 256), 2, '0') || '\\x00\\xFF')::BLOB END`, 'BYTES', 12],
  ['dt', `CASE WHEN i % 8 = 0 THEN NULL ELSE DATE '1970-01-01' + (i * 37 % 40000 - 20000)::INTEGER END`, 'DATE', 13],
  ['tm', `CASE WHEN i % 8 = 1 THEN NULL ELSE TIME '00:00:00' + to_microseconds((i * 1234567891) % 86400000000) END`, 'TIME(3)', 14],
  ['ts', `CASE WHEN i % 8 = 2 THEN NULL ELSE TIMESTAMP '1970-01-01' + to_microseconds(i * 98765432101 - 200000000000000) END`, 'TIMESTAMP(6)', 15],
  ['ts_ms', `CASE WHEN i % 8 = 3 THEN NULL ELSE (TIMESTAMP '1970-01-01' + to_milliseconds(i * 9876543211 - 20000000000000))::TIMESTAMP_MS END`, 'TIMESTAMP(3)', 16],
  ['ts_ns', `CASE WHEN i % 8 = 4 THEN NULL ELSE make_timestamp_ns(i * 987654321012345 - 2000000000000000000) END`, 'TIMESTAMP(9)', 17],
  ['tstz', `CASE WHEN i % 8 = 5 THEN NULL ELSE make_timestamp(i * 98765432101 - 100000000000000)::TIMESTAMPTZ END`, 'TIMESTAMP(6) WITH LOCAL TIME ZONE', 18],
  ['arr', `CASE WHEN i % 10 = 0 THEN NULL WHEN i % 10 = 1 THEN []::INTEGER[] ELSE [i::INTEGER, NULL, (i * 3)::INTEGER][1:(i % 4)::INTEGER] END`, { type: 'ARRAY', element: 'INT' }, 19],
  ['sarr', `CASE WHEN i % 9 = 0 THEN NULL ELSE ['a' || i, CASE WHEN i % 2 = 0 THEN NULL ELSE 'b' END, 'ccc'][1:(i % 4)::INTEGER] END`, { type: 'ARRAY', element: 'STRING' }, 20],
  ['arr2', `CASE WHEN i % 6 = 0 THEN NULL ELSE [[i::INTEGER], [], NULL, [1, 2, NULL]][1:(i % 5)::INTEGER] END`, { type: 'ARRAY', element: { type: 'ARRAY', element: 'INT' } }, 21],
  ['st', `CASE WHEN i % 7 = 3 THEN NULL ELSE {'a': CASE WHEN i % 3 = 0 THEN NULL ELSE i::INTEGER END, 'b': 'v' || i, 'c': CASE WHEN i % 4 = 0 THEN NULL ELSE [i / 2.0, NULL]::DOUBLE[] END} END`,
    { type: 'ROW', fields: [{ id: 100, name: 'a', type: 'INT' }, { id: 101, name: 'b', type: 'STRING' }, { id: 102, name: 'c', type: { type: 'ARRAY', element: 'DOUBLE' } }] }, 22],
  ['m', `CASE WHEN i % 8 = 7 THEN NULL WHEN i % 8 = 6 THEN MAP {}::MAP(VARCHAR, INTEGER) ELSE MAP {'k' || i: i::INTEGER, 'z': CASE WHEN i % 2 = 0 THEN NULL ELSE 1 END} END`,
    { type: 'MAP', key: 'STRING NOT NULL', value: 'INT' }, 23],
  ['lst', `CASE WHEN i % 5 = 4 THEN NULL ELSE [{'x': i::INTEGER, 'y': 'y' || i}, NULL, {'x': NULL, 'y': NULL}][1:(i % 4)::INTEGER] END`,
    { type: 'ARRAY', element: { type: 'ROW', fields: [{ id: -1, name: 'x', type: 'INT' }, { id: -1, name: 'y', type: 'STRING' }] } }, 24],
];

const fieldIds = '{' + cols.map(([n, , t, id]) => {
  if (typeof t === 'object' && t.type === 'ROW')
    return `${n}: {__duckdb_field_id: ${id}, ${t.fields.map((f) => `${f.name}: ${f.id}`).join(', ')}}`;
  return `${n}: ${id}`;
}).join(', ') + '}';

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run(`SET TimeZone = 'UTC'`);
await con.run(`CREATE TABLE t AS SELECT ${cols.map(([n, e]) => `${e} AS ${n}`).join(', ')} FROM (SELECT range AS i FROM range(${N}))`);

function typeKind(t) {
  if (typeof t === 'object') return t.type.split(' ')[0];
  return t.split(/[ (]/)[0];
}

function hex(bytes) {
  return '\\x' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function floorDiv(a, b) {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

function num(s) {
  if (s === 'nan' || s === '-nan') return NaN;
  if (s === 'inf') return Infinity;
  if (s === '-inf') return -Infinity;
  return Number(s);
}

// compare our canonical JSON value with DuckDB's value; returns '' or a reason
function cmp(ours, duck, t, path) {
  if (duck === null || duck === undefined)
    return ours === null ? '' : `${path}: expected NULL, got ${JSON.stringify(ours)}`;
  if (ours === null) return `${path}: got NULL, expected ${String(duck)}`;
  const k = typeKind(t);
  let want;
  switch (k) {
    case 'BOOLEAN':
      return ours === duck ? '' : `${path}: ${ours} != ${duck}`;
    case 'TINYINT': case 'SMALLINT': case 'INT': case 'BIGINT':
      want = String(duck); break;
    case 'FLOAT': {
      const a = Math.fround(num(ours)), b = Math.fround(Number(duck));
      return (a === b || (Number.isNaN(a) && Number.isNaN(b))) ? '' : `${path}: ${ours} != ${duck}`;
    }
    case 'DOUBLE': {
      const a = num(ours), b = Number(duck);
      return (a === b || (Number.isNaN(a) && Number.isNaN(b))) ? '' : `${path}: ${ours} != ${duck}`;
    }
    case 'DECIMAL': want = String(duck.value); break;
    case 'STRING': want = duck; break;
    case 'BYTES': want = hex(duck.bytes); break;
    case 'DATE': want = String(duck.days); break;
    case 'TIME': want = String(floorDiv(BigInt(duck.micros), 1000n)); break;
    case 'TIMESTAMP':
      if (duck.nanos !== undefined) want = String(duck.nanos);
      else if (duck.millis !== undefined) want = String(BigInt(duck.millis) * 1000000n);
      else want = String(BigInt(duck.micros) * 1000n);
      break;
    case 'ARRAY': {
      const items = duck.items;
      if (!Array.isArray(ours) || ours.length !== items.length)
        return `${path}: array length ${ours.length} != ${items.length}`;
      for (let j = 0; j < items.length; j++) {
        const r = cmp(ours[j], items[j], t.element, `${path}[${j}]`);
        if (r) return r;
      }
      return '';
    }
    case 'MAP': {
      const es = duck.entries;
      if (!Array.isArray(ours) || ours.length !== es.length)
        return `${path}: map size ${ours.length} != ${es.length}`;
      for (let j = 0; j < es.length; j++) {
        const r = cmp(ours[j][0], es[j].key, t.key, `${path}{key ${j}}`) ||
          cmp(ours[j][1], es[j].value, t.value, `${path}{value ${j}}`);
        if (r) return r;
      }
      return '';
    }
    case 'ROW': {
      for (let j = 0; j < t.fields.length; j++) {
        const f = t.fields[j];
        const r = cmp(ours[j], duck.entries[f.name], f.type, `${path}.${f.name}`);
        if (r) return r;
      }
      return '';
    }
    default:
      return `${path}: type ${k} not handled`;
  }
  return ours === want ? '' : `${path}: ${ours} != ${want}`;
}

const configs = [];
for (const codec of ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw'])
  for (const version of ['V1', 'V2'])
    for (const dict of [true, false])
      configs.push({ codec, version, dict, ids: true });
configs.push({ codec: 'zstd', version: 'V1', dict: true, ids: false });
configs.push({ codec: 'snappy', version: 'V2', dict: false, ids: false });

let passed = 0, failed = 0;
const encodings = new Set();
for (const cfg of configs) {
  const name = `${cfg.codec}_${cfg.version}_${cfg.dict ? 'dict' : 'plain'}_${cfg.ids ? 'ids' : 'noids'}`;
  const file = `${workDir}/${name}.parquet`;
  const opts = [`FORMAT parquet`, `COMPRESSION ${cfg.codec}`, `PARQUET_VERSION ${cfg.version}`,
    `ROW_GROUP_SIZE 2048`];
  if (!cfg.dict) opts.push('DICTIONARY_SIZE_LIMIT 0');
  if (cfg.ids) opts.push(`FIELD_IDS ${fieldIds}`);
  await con.run(`COPY t TO '${file}' (${opts.join(', ')})`);
  const meta = await con.runAndReadAll(`SELECT DISTINCT unnest(string_split(encodings, ',')) FROM parquet_metadata('${file}')`);
  for (const r of meta.getRows()) encodings.add(String(r[0]).trim());

  const spec = cols.map(([n, , t, id]) => ({ id: cfg.ids ? id : -1, name: n, type: t }));
  const res = await con.runAndReadAll(`SELECT * FROM read_parquet('${file}')`);
  const rows = res.getRows();
  let out;
  try {
    // read as 1..4 byte ranges (a parallel scan's tasks): the same rows in the same order
    const nranges = 1 + (configs.indexOf(cfg) % 4);
    // ZSTD files: the next row group decompressed ahead in the helper thread, as in the FDW
    const ahead = cfg.codec === 'zstd' ? ['--ahead'] : [];
    out = execFileSync(pqDump, [file, JSON.stringify(spec), '--batch', String(700), '--ranges', String(nranges), ...ahead],
      { encoding: 'utf8', maxBuffer: 1 << 30 });
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: pq_dump exited ${e.status}: ${String(e.stdout).slice(0, 500)}`);
    continue;
  }
  const lines = out.split('\n').filter((l) => l.length);
  let why = '';
  if (lines.length !== rows.length) why = `${lines.length} rows, DuckDB has ${rows.length}`;
  for (let r = 0; !why && r < rows.length; r++) {
    const ours = JSON.parse(lines[r]);
    for (let c = 0; !why && c < cols.length; c++) {
      why = cmp(ours[c], rows[r][c], cols[c][2], `row ${r} ${cols[c][0]}`);
    }
  }
  if (why) {
    failed++;
    console.log(`FAIL ${name}: ${why}`);
  } else {
    passed++;
    console.log(`ok   ${name} (${rows.length} rows x ${cols.length} columns)`);
  }
}

// projection + missing column: a subset in another order plus an unknown id
{
  const file = `${workDir}/zstd_V2_dict_ids.parquet`;
  const spec = [{ id: 22, name: 'st', type: cols[22][2] }, { id: 999, name: 'nope', type: 'INT' }, { id: 3, name: 'i32', type: 'INT' }];
  const out = execFileSync(pqDump, [file, JSON.stringify(spec)], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const rows = (await con.runAndReadAll(`SELECT st, NULL, i32 FROM read_parquet('${file}')`)).getRows();
  const lines = out.split('\n').filter((l) => l.length);
  let why = lines.length !== rows.length ? 'row count' : '';
  for (let r = 0; !why && r < rows.length; r++) {
    const o = JSON.parse(lines[r]);
    why = cmp(o[0], rows[r][0], spec[0].type, `row ${r} st`) || (o[1] === null ? '' : `row ${r} missing column not NULL`) ||
      cmp(o[2], rows[r][2], 'INT', `row ${r} i32`);
  }
  if (why) { failed++; console.log(`FAIL projection: ${why}`); } else { passed++; console.log('ok   projection + missing column'); }
}

// MULTISET<STRING> is a MAP<STRING, INT count> in Paimon's Parquet files
{
  const file = `${workDir}/multiset.parquet`;
  await con.run(`COPY (SELECT CASE WHEN range % 4 = 0 THEN NULL ELSE MAP {'a' || (range % 3): (range % 3 + 1)::INTEGER, 'b': 1} END AS ms
    FROM range(3000)) TO '${file}' (FORMAT parquet, FIELD_IDS {ms: 7})`);
  const spec = [{ id: 7, name: 'ms', type: { type: 'MULTISET', element: 'STRING NOT NULL' } }];
  const out = execFileSync(pqDump, [file, JSON.stringify(spec)], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const rows = (await con.runAndReadAll(`SELECT ms FROM read_parquet('${file}')`)).getRows();
  const lines = out.split('\n').filter((l) => l.length);
  let why = lines.length !== rows.length ? 'row count' : '';
  for (let r = 0; !why && r < rows.length; r++) {
    const o = JSON.parse(lines[r])[0];
    const d = rows[r][0];
    const want = d === null ? null : d.entries.flatMap((e) => Array(e.value).fill(e.key));
    if (JSON.stringify(o) !== JSON.stringify(want)) why = `row ${r}: ${lines[r]} != ${JSON.stringify(want)}`;
  }
  if (why) { failed++; console.log(`FAIL multiset: ${why}`); } else { passed++; console.log('ok   multiset'); }
}

// a larger file: many pages per column chunk, default row groups
{
  const file = `${workDir}/large.parquet`;
  await con.run(`COPY (SELECT range::BIGINT AS a, CASE WHEN range % 3 = 0 THEN NULL ELSE md5(range::VARCHAR) END AS h,
    CASE WHEN range % 5 = 0 THEN NULL ELSE [range::INTEGER, NULL][1:(range % 3)::INTEGER] END AS l
    FROM range(400000)) TO '${file}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 150000)`);
  const spec = [{ id: -1, name: 'a', type: 'BIGINT' }, { id: -1, name: 'h', type: 'STRING' }, { id: -1, name: 'l', type: { type: 'ARRAY', element: 'INT' } }];
  const out = execFileSync(pqDump, [file, JSON.stringify(spec)], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const rows = (await con.runAndReadAll(`SELECT a, h, l FROM read_parquet('${file}')`)).getRows();
  const lines = out.split('\n').filter((l) => l.length);
  let why = lines.length !== rows.length ? `row count ${lines.length} != ${rows.length}` : '';
  for (let r = 0; !why && r < rows.length; r++) {
    const o = JSON.parse(lines[r]);
    for (let c = 0; !why && c < 3; c++) why = cmp(o[c], rows[r][c], spec[c].type, `row ${r} ${spec[c].name}`);
  }
  if (why) { failed++; console.log(`FAIL large: ${why}`); } else { passed++; console.log(`ok   large (${rows.length} rows)`); }
  // 7 byte ranges over its 3 row groups: each row group read once, every row once
  const { spawnSync } = await import('node:child_process');
  const ranged = spawnSync(pqDump, [file, JSON.stringify(spec), '--count', '--metrics', '--ranges', '7'], { encoding: 'utf8' });
  const groups = (await con.runAndReadAll(`SELECT count(DISTINCT row_group_id) FROM parquet_metadata('${file}')`)).getRows()[0][0];
  const want = `row_groups=${groups}/${groups}`;
  if (ranged.status !== 0 || ranged.stdout.trim() !== String(rows.length) || !ranged.stderr.includes(want)) {
    failed++; console.log(`FAIL large in 7 ranges: ${ranged.stdout.trim()} rows, ${ranged.stderr.trim()} (want ${rows.length}, ${want})`);
  } else { passed++; console.log(`ok   large in 7 ranges (${groups} row groups)`); }
  // read ahead: the same rows, and the helper thread did decompress pages
  const ahead = spawnSync(pqDump, [file, JSON.stringify(spec), '--metrics', '--ahead', '--batch', '1000'],
    { encoding: 'utf8', maxBuffer: 1 << 30 });
  const pages = Number((/ahead=(\d+)/.exec(ahead.stderr) || [])[1] || 0);
  if (ahead.status !== 0 || ahead.stdout !== out || pages < 2) {
    failed++; console.log(`FAIL large read ahead: exit ${ahead.status}, ${pages} pages ahead, same rows: ${ahead.stdout === out}`);
  } else { passed++; console.log(`ok   large read ahead (${pages} pages decompressed ahead)`); }
}

// column chunks of several pages (DuckDB starts a new page past ~100 MB): the
// page after the current one is decompressed ahead; the same rows either way
{
  const { execSync } = await import('node:child_process');
  const file = `${workDir}/pages.parquet`;
  await con.run(`COPY (SELECT range::BIGINT AS a, repeat(md5(range::VARCHAR), 30) AS h FROM range(300000))
    TO '${file}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 300000)`);
  const spec = JSON.stringify([{ id: -1, name: 'a', type: 'BIGINT' }, { id: -1, name: 'h', type: 'STRING' }]);
  const run = (extra) => execSync(`'${pqDump}' '${file}' '${spec}' --metrics ${extra} 2>'${file}.metrics' | md5sum`,
    { encoding: 'utf8', shell: '/bin/bash' }).trim() + ' ' + readMetrics();
  const readMetrics = () => execSync(`cat '${file}.metrics'`, { encoding: 'utf8' }).trim();
  const plain = run('');
  const ahead = run('--ahead');
  const pages = Number((/ahead=(\d+)/.exec(ahead) || [])[1] || 0);
  const want = (await con.runAndReadAll(`SELECT count(*) FROM read_parquet('${file}')`)).getRows()[0][0];
  if (plain.split(' ')[0] !== ahead.split(' ')[0] || pages < 2 || !plain.includes(`rows_read=${want} `)) {
    failed++; console.log(`FAIL pages read ahead: ${plain} / ${ahead}`);
  } else { passed++; console.log(`ok   pages read ahead (${want} rows, ${pages} pages decompressed ahead, same rows)`); }
}

// fuzz: byte flips (uncompressed files, so the decoders see the damage)
// must give rows or a clean error (exit 0/1), never a sanitizer report
{
  const { readFileSync, writeFileSync } = await import('node:fs');
  const { spawnSync } = await import('node:child_process');
  const asan = pqDump + '_asan';
  let seed = 987654321;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed; };
  for (const name of ['uncompressed_V1_dict_ids', 'uncompressed_V2_plain_ids', 'uncompressed_V2_dict_ids', 'zstd_V1_dict_noids']) {
    const orig = readFileSync(`${workDir}/${name}.parquet`);
    const spec = cols.map(([n, , t, id]) => ({ id: name.endsWith('noids') ? -1 : id, name: n, type: t }));
    const iters = Number(process.env.FUZZ_ITERS || 60);
    let bad = '', errors = 0;
    for (let it = 0; it < iters && !bad; it++) {
      const d = Buffer.from(orig);
      const flips = 1 + (it % 6);
      for (let k = 0; k < flips; k++) d[rnd() % d.length] ^= 1 + (rnd() % 255);
      const f = `${workDir}/fuzz.parquet`;
      writeFileSync(f, d);
      const res = spawnSync(asan, [f, JSON.stringify(spec), '--count', '--ahead', '--batch', '500'], { encoding: 'utf8', maxBuffer: 1 << 28 });
      if (res.status === 1) errors++;
      else if (res.status !== 0) bad = `iteration ${it}: exit ${res.status} signal ${res.signal}\n${String(res.stderr).slice(0, 1500)}`;
    }
    if (bad) { failed++; console.log(`FAIL fuzz ${name}: ${bad}`); }
    else { passed++; console.log(`ok   fuzz ${name} (${iters} mutants, ${errors} clean errors)`); }
  }
}

console.log(`encodings written by DuckDB: ${[...encodings].sort().join(', ')}`);
console.log(`${passed} passed, ${failed} failed, 0 skipped`);
process.exit(failed ? 1 : 0);
