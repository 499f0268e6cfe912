// bench/duck.mjs - the DuckDB side of bench/run.sh (npm @duckdb/node-api, threads=1,
// or DUCK_THREADS).
//
//   node duck.mjs write <csv> <dir> <nfiles> <columns-json> <field-ids-json>
//       reads the CSV PostgreSQL exported (the same rows as the heap table),
//       writes <nfiles> Parquet files (zstd, Paimon field ids) data-pq-K.parquet
//       into <dir>, and prints "name:rows" per file for ts_pq_register.
//       DUCK_ROW_GROUP_SIZE sets their row groups' rows (DuckDB's default if unset).
//   node duck.mjs time <glob> <runs> <queries-json>
//       prints "name<TAB>best ms<TAB>result" per query over read_parquet(<glob>)
//       (DUCK_STAT=median: the median ms); result: the rows' fields joined by ','
//       and the rows by ';'.  DUCK_VIEWS='{"name": "glob"}' adds a view per glob.
import { DuckDBInstance } from '@duckdb/node-api';

const [mode, ...args] = process.argv.slice(2);
const threads = String(Number(process.env.DUCK_THREADS || 1));
const db = await DuckDBInstance.create(':memory:', { threads });
const con = await db.connect();
await con.run(`SET threads = ${threads}`);

if (mode === 'write') {
	const [csv, dir, nfilesArg, columnsJson, idsJson] = args;
	const nfiles = Number(nfilesArg);
	const columns = JSON.parse(columnsJson);	// {name: duckdb type}
	const ids = JSON.parse(idsJson);			// {name: field id}
	const colSpec = '{' + Object.entries(columns).map(([k, v]) => `'${k}': '${v}'`).join(', ') + '}';
	const idSpec = '{' + Object.entries(ids).map(([k, v]) => `${k}: ${v}`).join(', ') + '}';
	await con.run(`CREATE TABLE t AS SELECT *, row_number() OVER () - 1 AS _rn
		FROM read_csv('${csv}', header = false, nullstr = '', columns = ${colSpec}, auto_detect = false,
		              delim = ',', quote = '"', escape = '"')`);
	const total = Number((await con.runAndReadAll('SELECT count(*) FROM t')).getRows()[0][0]);
	const names = Object.keys(columns).join(', ');
	const rowGroups = process.env.DUCK_ROW_GROUP_SIZE ? `, ROW_GROUP_SIZE ${Number(process.env.DUCK_ROW_GROUP_SIZE)}` : '';
	for (let k = 0; k < nfiles; k++) {
		const lo = Math.floor(total * k / nfiles), hi = Math.floor(total * (k + 1) / nfiles);
		const name = `data-pq-${k}.parquet`;
		await con.run(`COPY (SELECT ${names} FROM t WHERE _rn >= ${lo} AND _rn < ${hi} ORDER BY _rn)
			TO '${dir}/${name}' (FORMAT parquet, COMPRESSION zstd, FIELD_IDS ${idSpec}${rowGroups})`);
		console.log(`${name}:${hi - lo}`);
	}
} else if (mode === 'time') {
	const [glob, runsArg, queriesJson] = args;
	const runs = Number(runsArg);
	const queries = JSON.parse(queriesJson);	// {name: sql with FROM pq}
	await con.run(`CREATE VIEW pq AS SELECT * FROM read_parquet('${glob}')`);
	for (const [view, g] of Object.entries(JSON.parse(process.env.DUCK_VIEWS || '{}')))
		await con.run(`CREATE VIEW ${view} AS SELECT * FROM read_parquet('${g}')`);
	const median = process.env.DUCK_STAT === 'median';
	for (const [name, sql] of Object.entries(queries)) {
		const times = [];
		let result;
		for (let r = 0; r < runs; r++) {
			const t0 = performance.now();
			const reader = await con.runAndReadAll(sql);
			times.push(performance.now() - t0);
			result = reader.getRows();
		}
		times.sort((a, b) => a - b);
		const n = times.length;
		const ms = !median ? times[0] : n % 2 ? times[(n - 1) / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
		console.log(`${name}\t${ms.toFixed(3)}\t${result.map(row => row.map(String).join(',')).join(';')}`);
	}
} else {
	console.error('usage: node duck.mjs write|time ...');
	process.exit(2);
}
