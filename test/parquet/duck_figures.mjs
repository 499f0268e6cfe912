// duck_figures.mjs - figures of Parquet files as DuckDB reads them, for the
// writes checks (duckdb.sh, s3.sh): one row of a SELECT list over
// read_parquet of the files named in a list file (one path a line), printed
// with '|' between values (as psql -At prints a row).  Beside the
// node_modules of npm @duckdb/node-api; run from here:
//   node duck_figures.mjs <file-list> "count(*), sum(id)"
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const [list, figures] = process.argv.slice(2);
const files = readFileSync(list, 'utf8').trim().split('\n').map((f) => "'" + f.replaceAll("'", "''") + "'");
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const r = await c.runAndReadAll('SELECT ' + figures + ' FROM read_parquet([' + files.join(',') + '])');
console.log(r.getRows()[0].map(String).join('|'));
