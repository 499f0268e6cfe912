// bench/csv_duck.mjs - the DuckDB side of bench/csv.sh (npm @duckdb/node-api).
//
//   node csv_duck.mjs <csv> <runs> <threads>
//       times the benchmark query over read_csv(<csv>) (the columns given,
//       no sniffing) with SET threads = <threads>; prints "best ms<TAB>result".
import { DuckDBInstance } from '@duckdb/node-api';

const [csv, runsArg, threadsArg] = process.argv.slice(2);
const threads = String(Number(threadsArg || 1));
const db = await DuckDBInstance.create(':memory:', { threads });
const con = await db.connect();
await con.run(`SET threads = ${threads}`);
const q = `SELECT count(*), sum(id), sum(big), sum(amount), max(s), max(day), max(ts)
	FROM read_csv('${csv}', header = false, nullstr = '', auto_detect = false, delim = ',', quote = '"',
	              columns = {'id': 'INTEGER', 'big': 'BIGINT', 'amount': 'DECIMAL(18,4)', 's': 'VARCHAR',
	                         'day': 'DATE', 'ts': 'TIMESTAMP'})`;
let best = Infinity, result = '';
for (let i = 0; i < Number(runsArg); i++) {
	const t0 = process.hrtime.bigint();
	const rows = (await con.runAndReadAll(q)).getRows();
	const ms = Number(process.hrtime.bigint() - t0) / 1e6;
	if (ms < best) best = ms;
	result = rows.map((r) => r.map(String).join(',')).join(';');
}
console.log(`${best.toFixed(1)}\t${result}`);
