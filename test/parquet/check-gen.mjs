// check-gen.mjs - check the Parquet files of ts_gen --format parquet
// (src/tools/ts_gen_parquet.h) without our reader: DuckDB (npm
// @duckdb/node-api) reads every data file of the table test/parquet/
// check-gen.sh wrote, and each value is compared with the generator's value
// formulas (the VALUES comment of src/tools/ts_gen.c) computed here.  The
// nested columns (LIST / MAP / struct groups with repetition and definition
// levels, VECTOR stored as a LIST) are the point.  Prints "N passed,
// N failed" (one check per column of each file); exits 1 on a mismatch.
//
//   node check-gen.mjs <table_dir> <null_every>
import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const [dir, nullEvery] = [process.argv[2], Number(process.argv[3])];
// the columns of check-gen.sh, in order (position = index)
const T = (kind, extra = {}) => ({ kind, ...extra });
const COLUMNS = [
	['id', T('INT')],
	['a', T('ARRAY', { e: T('INT') })],
	['s', T('ARRAY', { e: T('STRING') })],
	['m', T('MAP', { k: T('INT'), v: T('STRING') })],
	['r', T('ROW', { f: [['x', T('INT')], ['y', T('STRING')], ['z', T('DATE')]] })],
	['ar', T('ARRAY', { e: T('ROW', { f: [['p', T('INT')], ['q', T('ARRAY', { e: T('DOUBLE') })]] }) })],
	['mm', T('MAP', { k: T('STRING'), v: T('ARRAY', { e: T('BOOLEAN') }) })],
	['v', T('VECTOR', { e: T('FLOAT'), n: 3 })],
	['rv', T('ROW', { f: [['a', T('INT')], ['v', T('VECTOR', { e: T('DOUBLE'), n: 2 })]] })],
];

function f(t, name, n) {
	const range = (len) => Array.from({ length: len }, (_, k) => k);
	switch (t.kind) {
	case 'INT': return n;
	case 'FLOAT': return n * 0.5;
	case 'DOUBLE': return n * 1.25;
	case 'BOOLEAN': return n % 2 === 1;
	case 'STRING': return `${name}_${n}`;
	case 'DATE': return new Date(Date.UTC(2020, 0, 1 + n)).toISOString().slice(0, 10);
	case 'ARRAY': return range(n % 4).map((k) => f(t.e, name, n + k));
	case 'VECTOR': return range(t.n).map((k) => f(t.e, name, n + k));
	case 'MAP': return range(n % 3).map((k) => ({ key: f(t.k, name, n + k), value: f(t.v, name, n + k) }));
	case 'ROW': return Object.fromEntries(t.f.map(([fn, ft]) => [fn, f(ft, fn, n)]));
	default: throw new Error(`no formula for ${t.kind}`);
	}
}

const files = readdirSync(join(dir, 'bucket-0')).filter((x) => x.endsWith('.parquet')).sort();
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
let passed = 0, failed = 0;
for (const file of files) {
	const path = join(dir, 'bucket-0', file);
	const res = await con.runAndReadAll(`SELECT * FROM read_parquet('${path.replaceAll("'", "''")}')`);
	const rows = res.getRowsJson();
	COLUMNS.forEach(([name, type], c) => {
		let bad = null;
		for (const row of rows) {
			const i = row[0];
			const want = c > 0 && nullEvery > 0 && i % nullEvery === c % nullEvery ? null : f(type, name, i);
			if (JSON.stringify(row[c]) !== JSON.stringify(want)) {
				bad = `row ${i}: got ${JSON.stringify(row[c])}, want ${JSON.stringify(want)}`;
				break;
			}
		}
		if (rows.length === 0)
			bad = 'no rows';
		if (bad) {
			failed++;
			console.log(`FAIL ${file} column ${name}: ${bad}`);
		} else
			passed++;
	});
}
if (files.length === 0) {
	failed++;
	console.log(`FAIL no Parquet files in ${dir}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
