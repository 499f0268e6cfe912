// duck_ref.mjs - an independent reference read for test/conformance/prune_diff.py:
// DuckDB (npm @duckdb/node-api) reads the live Parquet data files of a Paimon
// append table and writes their rows as a JSON array of objects, every value
// a string (or null), which PostgreSQL's json_populate_recordset reads back
// into a table of the foreign table's column types (each value through the
// type's input function).
//
//   node duck_ref.mjs <out.json> <columns-json> <file.parquet>...
//
// columns-json: [[name, kind], ...] with kind one of the Paimon root types
// (INT, DECIMAL, TIMESTAMP, TIMESTAMP_LTZ, BINARY, ...).  Values are written
// in a form PostgreSQL's input functions read exactly: timestamps rounded to
// microseconds (half up, as the extension does) and printed as text, binary
// as \x hex.  Exit status 1 with the error on stderr when DuckDB cannot read.
import { DuckDBInstance } from '@duckdb/node-api';

const [out, columnsJson, ...files] = process.argv.slice(2);
const columns = JSON.parse(columnsJson);
const ident = (s) => '"' + s.replaceAll('"', '""') + '"';
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";

function expr([name, kind]) {
	const c = ident(name);
	switch (kind) {
	case 'TIMESTAMP':
	case 'TIMESTAMP_LTZ': {
		// nanoseconds since the epoch, rounded half up to microseconds
		const ns = `CAST(epoch_ns(${c}) AS HUGEINT) + 500`;
		const us = `CAST(((${ns}) - (((${ns}) % 1000) + 1000) % 1000) // 1000 AS BIGINT)`;
		const text = `strftime(make_timestamp(${us}), '%Y-%m-%d %H:%M:%S.%f')`;
		return kind === 'TIMESTAMP_LTZ' ? `${text} || '+00'` : text;
	}
	case 'BINARY':
	case 'VARBINARY':
	case 'BYTES':
		return `'\\x' || hex(${c})`;
	default:
		return c;
	}
}

try {
	const db = await DuckDBInstance.create(':memory:', { threads: '1' });
	const con = await db.connect();
	const list = '[' + files.map(lit).join(', ') + ']';
	const select = columns.map((col) => `CAST(${expr(col)} AS VARCHAR) AS ${ident(col[0])}`).join(', ');
	await con.run(`COPY (SELECT ${select} FROM read_parquet(${list}, hive_partitioning = false))
		TO ${lit(out)} (FORMAT json, ARRAY true)`);
} catch (e) {
	console.error(String(e.message || e).split('\n')[0]);
	process.exit(1);
}
