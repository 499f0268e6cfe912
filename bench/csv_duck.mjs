// bench/csv_duck.mjs - the DuckDB side of bench/csv.sh (npm @duckdb/node-api).
//
//   node csv_duck.mjs <file> <runs> <threads> [csv|json|text]
//       times the benchmark query over read_csv(<file>) (or read_json of
//       JSON lines; the columns given, no sniffing) with SET threads =
//       <threads>; prints "best ms<TAB>result", then the same for the
//       query of two columns (sum(big), max(s)).  text: the file's lines
//       as one string column, count(*), max(line), sum(strlen(line)) (bytes).
import { DuckDBInstance } from '@duckdb/node-api';

const [file, runsArg, threadsArg, format] = process.argv.slice(2);
const threads = String(Number(threadsArg || 1));
const db = await DuckDBInstance.create(':memory:', { threads });
const con = await db.connect();
await con.run(`SET threads = ${threads}`);
const columns = `{'id': 'INTEGER', 'big': 'BIGINT', 'amount': 'DECIMAL(18,4)', 's': 'VARCHAR',
	           'day': 'DATE', 'ts': 'TIMESTAMP'}`;
const source = format === 'json'
	? `read_json('${file}', format = 'newline_delimited', auto_detect = false, columns = ${columns})`
	: `read_csv('${file}', header = false, nullstr = '', auto_detect = false, delim = ',', quote = '"',
	            columns = ${columns})`;
// a TEXT file: every line one string (no delimiter, quote or escape in effect)
const lines = `read_csv('${file}', header = false, auto_detect = false, delim = '\x01', quote = '',
	            escape = '', columns = {'line': 'VARCHAR'})`;
const queries = format === 'text'
	? [`SELECT count(*), max(line), sum(strlen(line)) FROM ${lines}`]
	: [`SELECT count(*), sum(id), sum(big), sum(amount), max(s), max(day), max(ts) FROM ${source}`,
	   `SELECT sum(big), max(s) FROM ${source}`];
for (const q of queries) {
	let best = Infinity, result = '';
	for (let i = 0; i < Number(runsArg); i++) {
		const t0 = process.hrtime.bigint();
		const rows = (await con.runAndReadAll(q)).getRows();
		const ms = Number(process.hrtime.bigint() - t0) / 1e6;
		if (ms < best) best = ms;
		result = rows.map((r) => r.map(String).join(',')).join(';');
	}
	console.log(`${best.toFixed(1)}\t${result}`);
}
