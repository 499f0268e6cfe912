// pq_rowgroups.mjs - Parquet files of many row groups for s3faults.sh,
// written by DuckDB (npm @duckdb/node-api, installed in test/parquet):
//   node pq_rowgroups.mjs DIR NFILES ROWS_PER_FILE ROW_GROUP_ROWS
// writes DIR/data-rg-K.parquet (zstd, Paimon field ids 0..2 for id BIGINT,
// name VARCHAR, v DOUBLE; id = K * ROWS_PER_FILE + i, name = md5 of id so
// that the files stay large) and prints "name:rows" per file (ts_pq_register).
import { createRequire } from "node:module";

const require = createRequire(new URL("../parquet/package.json", import.meta.url));
const { DuckDBInstance } = require("@duckdb/node-api");
const [dir, nfiles, per, rg] = process.argv.slice(2).map((a, i) => (i ? Number(a) : a));
const db = await DuckDBInstance.create(":memory:", { threads: "1" });
const con = await db.connect();
for (let k = 0; k < nfiles; k++) {
  const name = `data-rg-${k}.parquet`;
  await con.run(`COPY (SELECT i::BIGINT AS id, md5(i::VARCHAR) || md5((i * 7)::VARCHAR) AS name,
                       CASE WHEN i % 11 = 0 THEN NULL ELSE i * 0.5 END::DOUBLE AS v
                  FROM range(${k * per}, ${(k + 1) * per}) t(i))
                 TO '${dir}/${name}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rg},
                                      FIELD_IDS {id: 0, name: 1, v: 2})`);
  console.log(`${name}:${per}`);
}
