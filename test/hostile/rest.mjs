// rest.mjs - a hostile Paimon REST catalog of the project's own (node's standard
// library only), for test/hostile/rest.sh.  One process, two ports on 127.0.0.1:
//   catalog port: GET /v1/... is the catalog; any other path is a "foreign" object
//     store (an endpoint a data token names), which logs every request it gets;
//   home port: the object store the SERVER's own s3.endpoint names; logs the same.
// Every store request is logged as one JSON line {store, path, key (the access key
// of the SigV4 Credential), session, injected, t (ms), expired} to --log, so the test
// can tell which credentials reached which endpoint, and whether a key reached a store
// at or past the expiry its token was given with (expired: true).  The home store
// serves the objects under --data DIR (DIR/<bucket>/<key>: GET with Range, HEAD,
// ListObjectsV2); every other request answers 404 NoSuchKey.
// Tables of database "h" (each a way a catalog can lie; see rest.sh):
//   redirect    token names the catalog port's store as endpoint, no keys
//   partial     token names an endpoint and an access key, no secret key
//   fileep      token endpoint file:///etc (with keys)
//   owntoken    token with endpoint, keys and session token, expiresAtMillis in 2 h
//   keysonly    token with keys only (no endpoint), expiresAtMillis in 2 h
//   noexpiry    token with endpoint and keys, no expiry at all
//   soon        expiresAtMillis in 30 min (inside the one-hour refresh margin)
//   expired     expiresAtMillis 60 s in the past;  expiredat: the same as expiresAt
//   nulpath     location with an escaped NUL;  nulschema: a field name with one;
//   nultoken    a token value with one;  crlftoken: a session token with CR LF and a header
//   local       location file:/etc (the server's own files)
//   huge        a 9 MB answer (a schema comment), past the cap of catalog answers
//   renew       keys only (the server's endpoint), a new access key RENEW-<n> at each
//               fetch, expiresAtMillis --renew-ms (default 8000) after it
//   renewdeny   the same once (DENY-1), then 403 to every fetch of its token
// Database "deny": lists tables a and b, answers 403 to getting either.
// Database "loop": every page of its tables gives the next page token "again".
//   node rest.mjs --token T --log FILE [--data DIR] [--renew-ms N]
//   (prints "CATALOG_PORT HOME_PORT")
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const args = {};
for (let i = 2; i < process.argv.length; i += 2)
  args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const bearer = args.token;
const logFile = args.log;
let catalogPort = 0;

const schema = (name = 'id') => ({ fields: [{ id: 0, name, type: 'INT' }],
  partitionKeys: [], primaryKeys: [], options: {} });
const foreign = () => `http://127.0.0.1:${catalogPort}`;
const keys = { 'fs.s3a.access.key': 'TOKENKEY', 'fs.s3a.secret.key': 'TOKENSECRET' };
const inTwoHours = () => Date.now() + 2 * 3600 * 1000;
// the keys of short-lived tokens, with the expiry each was given
const expiryOf = {};
const renewMs = Number(args['renew-ms'] ?? 8000);
const fetches = {};
function shortLived(prefix, denyAfterFirst) {
  return () => {
    const n = (fetches[prefix] = (fetches[prefix] ?? 0) + 1);
    if (denyAfterFirst && n > 1) return null;
    const key = `${prefix}-${n}`;
    expiryOf[key] = Date.now() + renewMs;
    return { token: { 'fs.s3a.access.key': key, 'fs.s3a.secret.key': 'S' }, expiresAtMillis: expiryOf[key] };
  };
}
const tables = {
  redirect: { token: () => ({ 'fs.s3a.endpoint': foreign(), 'fs.s3a.path.style.access': 'true' }) },
  partial: { token: () => ({ 's3.endpoint': foreign(), 's3.access-key': 'TOKENKEY' }) },
  fileep: { token: () => ({ 's3.endpoint': 'file:///etc', ...keys }) },
  owntoken: { token: () => ({ 'fs.s3a.endpoint': foreign(), 'fs.s3a.path.style.access': 'true',
    ...keys, 'fs.s3a.session.token': 'TOKENSESSION' }), expiresAtMillis: inTwoHours },
  keysonly: { token: () => ({ ...keys }), expiresAtMillis: inTwoHours },
  noexpiry: { token: () => ({ 'fs.s3a.endpoint': foreign(), 'fs.s3a.path.style.access': 'true',
    'fs.s3a.access.key': 'NOEXPIRYKEY', 'fs.s3a.secret.key': 'S' }) },
  soon: { token: () => ({ 'fs.s3a.endpoint': foreign(), 'fs.s3a.path.style.access': 'true',
    'fs.s3a.access.key': 'SOONKEY', 'fs.s3a.secret.key': 'S' }),
    expiresAtMillis: () => Date.now() + 30 * 60 * 1000 },
  expired: { token: () => ({ 'fs.s3a.endpoint': foreign(), 'fs.s3a.path.style.access': 'true',
    'fs.s3a.access.key': 'EXPIREDKEY', 'fs.s3a.secret.key': 'S' }),
    expiresAtMillis: () => Date.now() - 60000 },
  expiredat: { token: () => ({ 'fs.s3a.endpoint': foreign(), 'fs.s3a.path.style.access': 'true',
    'fs.s3a.access.key': 'EXPIREDKEY', 'fs.s3a.secret.key': 'S' }),
    expiresAt: () => Date.now() - 60000 },
  nulpath: { path: 's3://lake/wh/h.db/nulpath\u0000/../../other' },
  nulschema: { schema: schema('id\u0000; DROP') },
  nultoken: { token: () => ({ ...keys, 'fs.s3a.session.token': 'abc\u0000def' }) },
  crlftoken: { token: () => ({ 'fs.s3a.endpoint': foreign(), 'fs.s3a.path.style.access': 'true',
    ...keys, 'fs.s3a.session.token': 'abc\r\nX-Injected: yes' }) },
  local: { path: 'file:/etc' },
  huge: { comment: 'x'.repeat(9 << 20) },
  renew: { vend: shortLived('RENEW', false) },
  renewdeny: { vend: shortLived('DENY', true) },
};

function send(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

const listPage = (prefix, keys, dirs) =>
  '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult>' +
  `<Prefix>${prefix}</Prefix><IsTruncated>false</IsTruncated>` +
  keys.map(([k, size]) => `<Contents><Key>${k}</Key><Size>${size}</Size></Contents>`).join('') +
  dirs.map((d) => `<CommonPrefixes><Prefix>${d}</Prefix></CommonPrefixes>`).join('') +
  '</ListBucketResult>';

// the files under dir, as keys relative to root
function walk(root, dir, out) {
  let entries = [];
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return out; }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) walk(root, full, out);
    else out.push([path.relative(root, full), fs.statSync(full).size]);
  }
  return out;
}

// an object of --data (the home store only): true when answered
function serveData(req, res) {
  if (!args.data) return false;
  const url = new URL(req.url, 'http://127.0.0.1');
  const [, bucket = '', ...rest] = url.pathname.split('/').map(decodeURIComponent);
  const root = path.join(args.data, bucket);
  if (bucket === '' || bucket.includes('..') || rest.includes('..')) return false;
  if (url.searchParams.get('list-type') === '2') {
    const prefix = url.searchParams.get('prefix') ?? '';
    const delim = url.searchParams.get('delimiter');
    const all = walk(root, root, []).filter(([k]) => k.startsWith(prefix)).sort();
    const keys = [];
    const dirs = new Set();
    for (const [k, size] of all) {
      const cut = delim ? k.indexOf(delim, prefix.length) : -1;
      if (cut >= 0) dirs.add(k.slice(0, cut + 1));
      else keys.push([k, size]);
    }
    res.writeHead(200, { 'Content-Type': 'application/xml' });
    res.end(listPage(prefix, keys, [...dirs]));
    return true;
  }
  const file = path.join(root, ...rest);
  let body;
  try { body = fs.readFileSync(file); } catch { return false; }
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (req.method === 'HEAD') {
    res.writeHead(200, { 'Content-Length': body.length });
    res.end();
  } else if (range) {
    const from = Number(range[1]);
    const to = Math.min(range[2] === '' ? body.length - 1 : Number(range[2]), body.length - 1);
    if (from >= body.length) {
      res.writeHead(416, { 'Content-Range': `bytes */${body.length}` });
      res.end();
    } else {
      res.writeHead(206, { 'Content-Range': `bytes ${from}-${to}/${body.length}`,
        'Content-Length': to - from + 1 });
      res.end(body.subarray(from, to + 1));
    }
  } else {
    res.writeHead(200, { 'Content-Length': body.length });
    res.end(body);
  }
  return true;
}

function store(name, req, res) {
  const auth = req.headers.authorization ?? '';
  const m = /Credential=([^/]*)\//.exec(auth);
  const key = m ? m[1] : null;
  const now = Date.now();
  fs.appendFileSync(logFile, JSON.stringify({ store: name, path: req.url, key,
    session: req.headers['x-amz-security-token'] ?? null,
    injected: req.headers['x-injected'] ?? null, t: now,
    expired: key !== null && expiryOf[key] !== undefined && now >= expiryOf[key] }) + '\n');
  if (name === 'home' && serveData(req, res)) return;
  res.writeHead(404, { 'Content-Type': 'application/xml' });
  res.end('<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>no</Message></Error>');
}

function catalog(req, res) {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (req.headers.authorization !== `Bearer ${bearer}`)
    return send(res, 401, { message: 'Not authorized', code: 401 });
  if (url.pathname === '/v1/config')
    return send(res, 200, { defaults: { 'data-token.enabled': 'true' }, overrides: {} });
  const p = url.pathname.split('/').filter((s) => s !== '').map(decodeURIComponent);
  // v1 databases db tables [t [token]]
  if (p[1] !== 'databases' || p[3] !== 'tables')
    return send(res, 404, { message: 'no such endpoint', code: 404 });
  const db = p[2];
  if (p.length === 4) {
    if (db === 'loop') {
      fs.appendFileSync(logFile, JSON.stringify({ catalog: 'loop/tables' }) + '\n');
      return send(res, 200, { tables: ['t'], nextPageToken: 'again' });
    }
    const names = db === 'deny' ? ['a', 'b'] : db === 'h' ? Object.keys(tables) : null;
    if (names === null) return send(res, 404, { message: 'no such database', code: 404 });
    return send(res, 200, { tables: names, nextPageToken: null });
  }
  if (db === 'deny')
    return send(res, 403, { message: 'Forbidden: token not valid for deny', code: 403 });
  const t = db === 'h' ? tables[p[4]] : undefined;
  if (t === undefined) return send(res, 404, { message: 'no such table', code: 404 });
  fs.appendFileSync(logFile, JSON.stringify({ catalog: p.slice(4).join('/'), t: Date.now() }) + '\n');
  if (p.length === 5)
    return send(res, 200, { id: `h.${p[4]}`, name: p[4], path: t.path ?? `s3://lake/wh/h.db/${p[4]}`,
      isExternal: true, schemaId: 0,
      schema: t.comment ? { ...schema(), comment: t.comment } : t.schema ?? schema() });
  if (p.length === 6 && p[5] === 'token' && t.vend) {
    const answer = t.vend();
    if (answer === null)
      return send(res, 403, { message: `Forbidden: no new token for ${p[4]}`, code: 403 });
    return send(res, 200, answer);
  }
  if (p.length === 6 && p[5] === 'token') {
    const answer = { token: t.token ? t.token() : {} };
    if (t.expiresAtMillis) answer.expiresAtMillis = t.expiresAtMillis();
    if (t.expiresAt) answer.expiresAt = t.expiresAt();
    return send(res, 200, answer);
  }
  return send(res, 404, { message: 'no such endpoint', code: 404 });
}

const main = http.createServer((req, res) =>
  (req.url.startsWith('/v1/') ? catalog(req, res) : store('foreign', req, res)));
const home = http.createServer((req, res) => store('home', req, res));
main.listen(0, '127.0.0.1', () => {
  catalogPort = main.address().port;
  home.listen(0, '127.0.0.1', () => process.stdout.write(`${catalogPort} ${home.address().port}\n`));
});
