// s3.mjs - a hostile S3-compatible store on 127.0.0.1 for test/hostile/run.sh.
//
// Owns: answers no honest store gives, one behaviour per bucket (path-style
// requests: /<bucket>/<key>, ListObjectsV2 as GET /<bucket>/?list-type=2):
//   huge     lists schema/ as holding schema-0; every GET of an object says
//            Content-Length: 2 GB and streams bytes until the client hangs up
//   endless  the same with a chunked body that never ends
//   loop     every listing is truncated and hands out the same continuation token
//   missing  lists schema/ as holding schema-0; every GET is 404 NoSuchKey
//   denied   every request is 403 AccessDenied
// and records what it saw: GET /__stats gives per bucket the requests and
// listings, whether any request carried a header named x-injected, and
// whether any came virtual-hosted (Host: <bucket>.<ip>).  Nothing is signed
// or checked: the client's behaviour is what the tests look at.
// Prints "PORT=<n>" once listening.  Node's standard library only.
import http from 'node:http';

const stats = {};
const seen = (b) => (stats[b] ??= { requests: 0, lists: 0, injected: 0, virtualHosted: 0 });

const listPage = (prefix, keys, truncated, token) =>
  '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult>' +
  `<Prefix>${prefix}</Prefix><IsTruncated>${truncated}</IsTruncated>` +
  (token ? `<NextContinuationToken>${token}</NextContinuationToken>` : '') +
  keys.map((k) => `<Contents><Key>${k}</Key><Size>10</Size></Contents>`).join('') +
  '</ListBucketResult>';

const errorBody = (code) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>no</Message></Error>`;

// write 1 MB chunks until the client goes away (or 2 GB were sent)
function stream(res, total) {
  const chunk = Buffer.alloc(1 << 20, 0x7b);
  let sent = 0;
  const more = () => {
    while (total < 0 || sent < total) {
      sent += chunk.length;
      if (!res.write(chunk)) return res.once('drain', more);
    }
    res.end();
  };
  res.on('close', () => { total = 0; sent = 1; });
  more();
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/__stats') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify(stats));
  }
  const [, bucket = '', ...rest] = url.pathname.split('/');
  const key = decodeURIComponent(rest.join('/'));
  const st = seen(bucket);
  st.requests++;
  if (Object.keys(req.headers).some((h) => h.toLowerCase() === 'x-injected')) st.injected++;
  if (!/^127\.0\.0\.1(:\d+)?$/.test(req.headers.host ?? '')) st.virtualHosted++;
  const isList = url.searchParams.get('list-type') === '2';
  if (isList) st.lists++;
  const prefix = url.searchParams.get('prefix') ?? '';

  if (bucket === 'denied') {
    res.writeHead(403, { 'Content-Type': 'application/xml' });
    return res.end(errorBody('AccessDenied'));
  }
  if (isList && bucket === 'loop') {
    res.writeHead(200, { 'Content-Type': 'application/xml' });
    return res.end(listPage(prefix, [prefix + 'schema-0'], true, 'same-token'));
  }
  if (isList) {
    const keys = prefix.endsWith('schema/') ? [prefix + 'schema-0'] : [];
    res.writeHead(200, { 'Content-Type': 'application/xml' });
    return res.end(listPage(prefix, keys, false));
  }
  if (req.method === 'HEAD') {
    res.writeHead(404);
    return res.end();
  }
  if (bucket === 'huge') {
    res.writeHead(200, { 'Content-Length': String(2 ** 31) });
    return stream(res, 2 ** 31);
  }
  if (bucket === 'endless') {
    res.writeHead(200, { 'Transfer-Encoding': 'chunked' });
    return stream(res, -1);
  }
  res.writeHead(404, { 'Content-Type': 'application/xml' });
  res.end(errorBody('NoSuchKey'));
  void key;
});

server.listen(0, '127.0.0.1', () => {
  console.log(`PORT=${server.address().port}`);
});
