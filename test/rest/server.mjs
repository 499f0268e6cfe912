// server.mjs - a small Paimon REST catalog for the tests, over a local
// filesystem-catalog warehouse (node's standard library only).
//
// It serves what a read-only client asks (apache/paimon
// docs/static/rest-catalog-open-api.yaml): GET /v1/config, databases,
// tables (paged: maxResults / pageToken -> nextPageToken), a table (path,
// schemaId and schema read from the table's latest schema file, or from
// --extra for tables whose schema lives only in the catalog) and its data
// token.  An --extra entry may instead be {"like": "db.table"} (served as
// that table), with "schemaId": N (a schema id that may not exist under
// the path) and "fail": "twice" (each request answered 429 with
// Retry-After: 1, then 503 with Retry-After: 0, then normally) or
// "always" (503 every time).  Every request needs "Authorization: Bearer <--token>" (401
// otherwise).  Listens on 127.0.0.1 only; prints the port on stdout.
//
// Partitions (GET .../partitions, paged): an --extra entry's "partitions"
// (a list of specs, or 501: "not implemented", the client then lists the
// file system), else for a format table at a file: path its k=v
// directories; 501 for other tables.
//
// Data tokens (GET .../token): an entry's "token" map, expiring an hour
// from now, or "tokenExpiresIn" ms from now (3600000 + a few seconds: a
// client refreshing an hour ahead, as Java does, refreshes after those
// seconds); "tokenFail": "after-first" answers 403 to every request but
// the first.  Each token request appends "token <db>.<table>" to
// --token-log (tests count refreshes there).
//
// --testdata DIR [--testdata-location URI]: also serve the warehouses of a
// tree (../shared/testdata): table DIR/<group>/<db>.db/<t> as database
// <group>__<db> (a top-level <db>.db: <db>), table <t>, at URI/<group>/<db>.db/<t>
// (default file:DIR/...), with the data token --testdata-token (a JSON object, or a file holding one).
//
// Commits (POST .../tables/{t}/commit, Java's CommitTableRequest {tableId,
// baseSnapshotUuid, snapshot, statistics}), for tables at a file: path:
// 400 unless tableId is the table's id; {"success": false} when
// baseSnapshotUuid is not the uuid of the latest snapshot (null: none) or
// snapshot-<id> exists; else snapshot-<id> is created exclusively and whole
// (written aside, then linked; the snapshot JSON as sent, commitIdentifier
// kept exact), LATEST replaced by a rename and
// {"success": true} answered.  For tables at an s3:// path (with
// --s3-endpoint, test/s3/proxy.mjs: SigV4 with the S3RVER keys),
// snapshot-<id> is a PUT with If-None-Match: * (412: {"success": false};
// the proxy makes it atomic), then LATEST; the base uuid is not checked
// there.  An entry's "commit": 500 answers 500, "conflict"
// {"success": false} and 409 in turn, forever; "conflicts": N answers
// {"success": false} to its first N commits.  Each commit request appends
// one line {"table", "status", "body"} to --commit-log.
//
//   node server.mjs --warehouse DIR --token T [--prefix P] [--page-size N]
//                   [--extra FILE.json] [--port N] [--token-log FILE] [--commit-log FILE]
//                   [--s3-endpoint http://127.0.0.1:PORT]
//                   [--testdata DIR [--testdata-location URI] [--testdata-token JSON|FILE]]

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const args = {};
for (let i = 2; i < process.argv.length; i += 2)
  args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const warehouse = path.resolve(args.warehouse);
const token = args.token;
const prefix = args.prefix ?? 'ts';
const pageSize = Number(args['page-size'] ?? 100);
const extra = args.extra ? JSON.parse(fs.readFileSync(args.extra, 'utf8')) : {};
const tokenLog = args['token-log'];
const commitLog = args['commit-log'];
const s3Endpoint = args['s3-endpoint'];
const testdata = args.testdata ? path.resolve(args.testdata) : null;
const testdataLocation = (args['testdata-location'] ?? (testdata ? `file:${testdata}` : '')).replace(/\/$/, '');
const tdToken = args['testdata-token'];
const testdataToken = !tdToken ? {} : JSON.parse(tdToken.startsWith('{') ? tdToken : fs.readFileSync(tdToken, 'utf8'));

function send(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

function error(res, status, message, resourceType, resourceName) {
  send(res, status, { message, resourceType, resourceName, code: status });
}

function dirs(dir) {
  try {
    return fs.readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory()).map((d) => d.name).sort();
  } catch {
    return null;
  }
}

// testdata databases: every directory <rel>.db under DIR (at depth 1 or 2),
// named <rel> with '/' as "__" ("parquet/append_09.db" -> parquet__append_09);
// its tables are its subdirectories that hold a schema directory
function testdataDatabases() {
  if (!testdata) return new Map();
  const out = new Map();
  const add = (rel) => out.set(rel.slice(0, -3).replaceAll('/', '__'), rel);
  for (const a of dirs(testdata) ?? []) {
    if (a.endsWith('.db')) add(a);
    else for (const b of dirs(path.join(testdata, a)) ?? []) if (b.endsWith('.db')) add(`${a}/${b}`);
  }
  return out;
}
const testdataDbs = testdataDatabases();

function testdataTables(db) {
  const rel = testdataDbs.get(db);
  if (rel === undefined) return null;
  return (dirs(path.join(testdata, rel)) ?? [])
    .filter((t) => fs.existsSync(path.join(testdata, rel, t, 'schema')));
}

function databases() {
  const fromDirs = (dirs(warehouse) ?? []).filter((n) => n.endsWith('.db')).map((n) => n.slice(0, -3));
  const fromExtra = Object.keys(extra).map((k) => k.split('.')[0]);
  const fromTestdata = [...testdataDbs.keys()];
  return [...new Set([...fromDirs, ...fromExtra, ...fromTestdata])].sort();
}

function tables(db) {
  const listed = dirs(path.join(warehouse, `${db}.db`));
  const fromExtra = Object.keys(extra).filter((k) => k.split('.')[0] === db).map((k) => k.split('.')[1]);
  const fromTestdata = testdataTables(db);
  if (listed === null && fromExtra.length === 0 && fromTestdata === null) return null;
  const own = (listed ?? []).filter((t) => fs.existsSync(path.join(warehouse, `${db}.db`, t, 'schema')));
  return [...new Set([...own, ...fromExtra, ...(fromTestdata ?? [])])].sort();
}

// a format table's partition specs from its k=v directories (values unescaped)
function listPartitions(dir, keys) {
  const out = [];
  const walk = (d, depth, spec) => {
    if (depth === keys.length) { out.push(spec); return; }
    for (const n of dirs(d) ?? []) {
      const eq = n.indexOf('=');
      if (eq < 0 || decodeURIComponent(n.slice(0, eq)) !== keys[depth]) continue;
      walk(path.join(d, n), depth + 1, { ...spec, [keys[depth]]: decodeURIComponent(n.slice(eq + 1)) });
    }
  };
  walk(dir, 0, {});
  return out;
}

function latestSchema(dir) {
  const ids = (fs.readdirSync(path.join(dir, 'schema')))
    .filter((n) => /^schema-\d+$/.test(n)).map((n) => Number(n.slice(7))).sort((a, b) => a - b);
  const id = ids[ids.length - 1];
  const s = JSON.parse(fs.readFileSync(path.join(dir, 'schema', `schema-${id}`), 'utf8'));
  return { id, schema: { fields: s.fields, partitionKeys: s.partitionKeys ?? [],
    primaryKeys: s.primaryKeys ?? [], options: s.options ?? {}, comment: s.comment } };
}

function page(res, field, all, url) {
  const max = Math.min(Number(url.searchParams.get('maxResults') ?? pageSize), pageSize);
  const start = Number(url.searchParams.get('pageToken') ?? 0);
  const body = { [field]: all.slice(start, start + max) };
  if (start + max < all.length) body.nextPageToken = String(start + max);
  send(res, 200, body);
}

const failures = new Map();
const tokenCount = new Map();

function send503(res, retryAfter) {
  res.setHeader('Retry-After', String(retryAfter));
  error(res, 503, 'catalog unavailable');
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  // POST /__test/reset: the token counts and log start over (a suite run again
  // on the same servers sees what its first run saw)
  if (url.pathname === '/__test/reset' && req.method === 'POST') {
    tokenCount.clear();
    if (tokenLog) fs.writeFileSync(tokenLog, '');
    return send(res, 200, {});
  }
  if (req.method === 'POST' && /\/tables\/[^/]+\/commit$/.test(url.pathname) && req.body === undefined) {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => { req.body = Buffer.concat(chunks).toString('utf8'); server.emit('request', req, res); });
    return;
  }
  if (req.method !== 'GET' && !(req.method === 'POST' && req.body !== undefined))
    return error(res, 405, 'this test catalog takes POST for commits only');
  if (req.headers.authorization !== `Bearer ${token}`)
    return error(res, 401, 'Not authorized');
  if (url.pathname === '/v1/config')
    return send(res, 200, { defaults: { prefix, 'data-token.enabled': 'true' },
      overrides: { warehouse: url.searchParams.get('warehouse') ?? '' } });
  const parts = url.pathname.split('/').filter((p) => p !== '').map(decodeURIComponent);
  // v1 / prefix / databases [/ db / tables [/ t [/ token]]]
  if (parts[0] !== 'v1' || parts[1] !== prefix || parts[2] !== 'databases')
    return error(res, 404, `no such endpoint ${url.pathname}`);
  if (parts.length === 3) return page(res, 'databases', databases(), url);
  const db = parts[3];
  if (parts.length === 5 && parts[4] === 'tables') {
    const list = tables(db);
    if (list === null) return error(res, 404, 'The given database does not exist', 'DATABASE', db);
    return page(res, 'tables', list, url);
  }
  if (parts.length >= 6 && parts[4] === 'tables') {
    const name = parts[5];
    const key = `${db}.${name}`;
    const dir = path.join(warehouse, `${db}.db`, name);
    let answer;
    const fail = extra[key]?.fail;
    if (fail === 'always')
      return send503(res, 0);
    if (fail === 'twice') {
      const k = (failures.get(key) ?? 0);
      failures.set(key, (k + 1) % 3);
      if (k === 0) { res.setHeader('Retry-After', '1'); return error(res, 429, 'slow down'); }
      if (k === 1) return send503(res, 0);
    }
    const tdTables = extra[key] ? null : testdataTables(db);
    if (tdTables && tdTables.includes(name)) {
      const rel = `${testdataDbs.get(db)}/${name}`;
      const { id, schema } = latestSchema(path.join(testdata, rel));
      answer = { id: key, name, path: `${testdataLocation}/${rel}`, isExternal: true,
        schemaId: id, schema };
    } else if (extra[key]?.like) {
      const [ldb, lname] = extra[key].like.split('.');
      const ldir = path.join(warehouse, `${ldb}.db`, lname);
      const { id, schema } = latestSchema(ldir);
      answer = { id: key, name, path: `file:${ldir}`, isExternal: true,
        schemaId: extra[key].schemaId ?? id, schema };
    } else if (extra[key]) {
      answer = { id: key, name, path: extra[key].path, isExternal: true,
        schemaId: 0, schema: extra[key].schema };
    } else if (fs.existsSync(path.join(dir, 'schema'))) {
      try {
        const { id, schema } = latestSchema(dir);
        answer = { id: key, name, path: `file:${dir}`, isExternal: false, schemaId: id, schema };
      } catch (e) {
        return error(res, 500, `cannot read the schema of ${key}: ${e.message}`);
      }
    } else {
      return error(res, 404, 'The given table does not exist', 'TABLE', name);
    }
    if (parts.length === 7 && parts[6] === 'commit' && req.method === 'POST')
      return commit(res, key, answer, req.body);
    if (req.method !== 'GET') return error(res, 405, 'this test catalog takes POST for commits only');
    if (parts.length === 6) return send(res, 200, answer);
    if (parts.length === 7 && parts[6] === 'token') {
      const e = extra[key] ?? {};
      const k = (tokenCount.get(key) ?? 0) + 1;
      tokenCount.set(key, k);
      if (tokenLog) fs.appendFileSync(tokenLog, `token ${key}\n`);
      if (e.tokenFail === 'after-first' && k > 1)
        return error(res, 403, 'the token service refused to issue a new token', 'TABLE', name);
      const token = e.token ?? (tdTables && tdTables.includes(name) ? testdataToken : {});
      return send(res, 200, { token, expiresAt: Date.now() + Number(e.tokenExpiresIn ?? 3600 * 1000) });
    }
    if (parts.length === 7 && parts[6] === 'partitions') {
      const p = extra[key]?.partitions;
      let specs;
      if (p === 501)
        return error(res, 501, 'listing partitions is not implemented for this table');
      if (Array.isArray(p))
        specs = p;
      else if (answer.schema?.options?.type === 'format-table' && answer.path.startsWith('file:'))
        specs = listPartitions(answer.path.slice(5), answer.schema.partitionKeys ?? []);
      else
        return error(res, 501, 'the test catalog lists partitions of local format tables only');
      return page(res, 'partitions', specs.map((spec) => ({ spec, recordCount: 0,
        fileSizeInBytes: 0, fileCount: 0, lastFileCreationTime: 0 })), url);
    }
  }
  return error(res, 404, `no such endpoint ${url.pathname}`);
});

// PUT bucket/key (signed with the test store's keys, as test/s3/proxy.mjs checks); its status
async function s3Put(where, text, exclusive) {
  const { createRequire } = await import('node:module');
  const require = createRequire(new URL('../s3/package.json', import.meta.url));
  const { SignatureV4 } = require('@smithy/signature-v4');
  const crypto = await import('node:crypto');
  class Sha256 {
    constructor(secret) { this.h = secret === undefined ? crypto.createHash('sha256') : crypto.createHmac('sha256', secret); }
    update(d) { this.h.update(d); }
    async digest() { return new Uint8Array(this.h.digest()); }
  }
  const ep = new URL(s3Endpoint);
  const p = '/' + where.split('/').map(encodeURIComponent).join('/');
  const headers = { host: ep.host, 'content-length': String(Buffer.byteLength(text)),
    'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
  if (exclusive) headers['if-none-match'] = '*';
  const signer = new SignatureV4({ credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false });
  const signed = await signer.sign({ method: 'PUT', protocol: 'http:', hostname: ep.hostname,
    port: Number(ep.port), path: p, query: {}, headers });
  return new Promise((resolve, reject) => {
    const r = http.request({ host: ep.hostname, port: ep.port, method: 'PUT', path: p, headers: signed.headers },
      (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
    r.on('error', reject);
    r.end(text);
  });
}

// POST .../commit for table key (answer: its GET answer), atomically: node runs this to its end
const commitsSeen = new Map();
function commit(res, key, answer, text) {
  const log = (status, body) => {
    if (commitLog) fs.appendFileSync(commitLog, JSON.stringify({ table: key, status, body: text }) + '\n');
    return send(res, status, body);
  };
  const n = (commitsSeen.get(key) ?? 0) + 1;
  commitsSeen.set(key, n);
  const e = extra[key] ?? {};
  if (e.commit === 500) return log(500, { message: 'the catalog failed to commit', code: 500 });
  if (e.commit === 'conflict')
    return n % 2 ? log(200, { success: false }) : log(409, { message: 'snapshot exists', code: 409 });
  if (n <= Number(e.conflicts ?? 0)) return log(200, { success: false });
  // a Long the client sends exact (commitIdentifier = Long.MAX_VALUE) stays exact
  let body;
  try {
    body = JSON.parse(text.replace(/("commitIdentifier"\s*:\s*)(-?\d+)/g, '$1"$2"'));
  } catch {
    return log(400, { message: 'the body is not JSON', code: 400 });
  }
  if (body.tableId !== answer.id) return log(400, { message: `tableId ${body.tableId} is not ${answer.id}`, code: 400 });
  const snap = body.snapshot;
  if (!snap || !Number.isInteger(snap.id) || !Array.isArray(body.statistics))
    return log(400, { message: 'snapshot or statistics missing', code: 400 });
  const json = JSON.stringify(snap, null, 2).replace(/("commitIdentifier"\s*:\s*)"(-?\d+)"/, '$1$2');
  if (answer.path.startsWith('s3://') && s3Endpoint) {
    const where = answer.path.slice(5).replace(/\/$/, '');
    s3Put(`${where}/snapshot/snapshot-${snap.id}`, json, true)
      .then((status) => status === 412 ? log(200, { success: false }) :
        status !== 200 ? log(500, { message: `the store answered ${status}`, code: 500 }) :
          s3Put(`${where}/snapshot/LATEST`, String(snap.id), false).then(() => log(200, { success: true })))
      .catch((e) => log(500, { message: e.message, code: 500 }));
    return;
  }
  if (!answer.path.startsWith('file:')) return log(501, { message: 'commits to file: and s3:// tables only', code: 501 });
  const dir = path.join(answer.path.slice(5), 'snapshot');
  const ids = (fs.existsSync(dir) ? fs.readdirSync(dir) : [])
    .filter((f) => /^snapshot-\d+$/.test(f)).map((f) => Number(f.slice(9)));
  const latest = ids.length ? Math.max(...ids) : 0;
  const latestUuid = latest ? JSON.parse(fs.readFileSync(path.join(dir, `snapshot-${latest}`), 'utf8')).uuid ?? null : null;
  if ((body.baseSnapshotUuid ?? null) !== latestUuid) return log(200, { success: false });
  fs.mkdirSync(dir, { recursive: true });
  // As Java's file systems commit: the whole file is written aside, then
  // linked in place (fails if it exists), so a reader never sees it half
  // written; LATEST is replaced by a rename.
  const aside = path.join(dir, `.snapshot-${snap.id}.${process.pid}.tmp`);
  fs.writeFileSync(aside, json);
  try {
    fs.linkSync(aside, path.join(dir, `snapshot-${snap.id}`));
  } catch (err) {
    if (err.code === 'EEXIST') return log(200, { success: false });
    throw err;
  } finally {
    fs.unlinkSync(aside);
  }
  fs.writeFileSync(`${aside}.latest`, String(snap.id));
  fs.renameSync(`${aside}.latest`, path.join(dir, 'LATEST'));
  return log(200, { success: true });
}

server.listen(Number(args.port ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
