// stub.mjs - a misbehaving Blob endpoint on 127.0.0.1 for test/azure/azure-client.sh.
//   node stub.mjs busy    every request: 503 ServerBusy with Retry-After: 0
//   node stub.mjs hang    accepts connections and never answers
//   node stub.mjs short   a ranged GET answers 206 with half the bytes (Content-Length agrees)
//   node stub.mjs endless a GET answers 200 with an endless chunked body
//   node stub.mjs landed  Put Blob writes, then answers 500 (a reply lost); the retry finds
//                         the blob (409); HEAD gives the written blob's length and MD5, or
//                         another writer's when the path holds "theirs"
//   node stub.mjs listcut a List Blobs page cut short (200, agreeing Content-Length), then whole
//   node stub.mjs listloop every List Blobs page is truncated with the same NextMarker
// Prints PORT=<port>; counts requests at GET /__count (busy, short, endless).
import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';

const mode = process.argv[2];
let count = 0;
const written = new Map();
if (mode === 'hang') {
    const srv = net.createServer(() => {});
    srv.listen(0, '127.0.0.1', () => console.log(`PORT=${srv.address().port}`));
} else {
    const srv = http.createServer((req, res) => {
        if (req.url === '/__count') { res.end(String(count)); return; }
        count++;
        if (mode === 'busy') {
            res.writeHead(503, { 'x-ms-error-code': 'ServerBusy', 'Retry-After': '0' });
            res.end('<?xml version="1.0"?><Error><Code>ServerBusy</Code></Error>');
        } else if (mode === 'short') {
            const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range || '');
            const a = m ? Number(m[1]) : 0, b = m ? Number(m[2]) : 99;
            const half = Buffer.alloc(Math.max(1, Math.floor((b - a + 1) / 2)), 120);
            res.writeHead(206, { 'Content-Range': `bytes ${a}-${a + half.length - 1}/1000`,
                'Content-Length': String(half.length) });
            res.end(half);
        } else if (mode === 'endless') {
            res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
            const chunk = Buffer.alloc(1 << 16, 97);
            const pump = () => { while (res.write(chunk)) { /* until the socket pushes back */ } };
            res.on('drain', pump);
            res.on('close', () => res.off('drain', pump));
            pump();
        } else if (mode === 'listcut' || mode === 'listloop') {
            const page = '<?xml version="1.0" encoding="utf-8"?><EnumerationResults><Blobs>' +
                '<Blob><Name>wh/t/a</Name></Blob><BlobPrefix><Name>wh/t/b/</Name></BlobPrefix></Blobs>' +
                (mode === 'listloop' ? '<NextMarker>2!same</NextMarker>' : '<NextMarker/>') + '</EnumerationResults>';
            const body = mode === 'listcut' && count === 1 ? page.slice(0, 90) : page;
            res.writeHead(200, { 'Content-Type': 'application/xml', 'Content-Length': String(Buffer.byteLength(body)) });
            res.end(body);
        } else if (mode === 'landed') {
            const body = [];
            req.on('data', (c) => body.push(c));
            req.on('end', () => {
                const path = req.url.split('?')[0];
                if (req.method === 'PUT' && !written.has(path)) {
                    written.set(path, Buffer.concat(body));
                    res.writeHead(500, { 'x-ms-error-code': 'InternalError' });
                    res.end();
                } else if (req.method === 'PUT') {
                    res.writeHead(409, { 'x-ms-error-code': 'BlobAlreadyExists' });
                    res.end();
                } else if (req.method === 'HEAD' && written.has(path)) {
                    const b = path.includes('theirs') ? Buffer.from('another writer') : written.get(path);
                    res.writeHead(200, { 'Content-Length': String(b.length),
                        'Content-MD5': createHash('md5').update(b).digest('base64') });
                    res.end();
                } else {
                    res.writeHead(404, { 'x-ms-error-code': 'BlobNotFound' });
                    res.end();
                }
            });
        } else {
            res.writeHead(500);
            res.end();
        }
    });
    srv.listen(0, '127.0.0.1', () => console.log(`PORT=${srv.address().port}`));
}
