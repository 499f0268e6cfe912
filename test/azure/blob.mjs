// blob.mjs - an Azure Blob client of the tests' own (node's crypto and fetch),
// independent of src/base/azure*.c: it signs requests by Microsoft's
// "Authorize with Shared Key" rules written again here, and makes account
// SAS tokens.  Used by test/unit/test_azure.c (sign) and
// test/azure/azure-client.sh (container, upload, sas).
//
//   node blob.mjs sign < {"verb","account","key","url","headers":[[name,value],...]}
//        prints the Authorization value, then the string to sign as JSON
//   node blob.mjs container ENDPOINT ACCOUNT KEY CONTAINER
//   node blob.mjs upload ENDPOINT ACCOUNT KEY CONTAINER BLOB FILE
//   node blob.mjs upload-dir ENDPOINT ACCOUNT KEY CONTAINER DIR [PREFIX]
//        every file below DIR as PREFIX/<its path>, 16 at a time; prints the count
//   node blob.mjs sas ACCOUNT KEY                        an account SAS (rwdlc, 1 h)
//   node blob.mjs list ENDPOINT ACCOUNT KEY CONTAINER PREFIX
//        the names of every blob below PREFIX (no delimiter, all pages), one a line
//   node blob.mjs get ENDPOINT ACCOUNT KEY CONTAINER BLOB  the blob's bytes to stdout
//   node blob.mjs blocks ENDPOINT ACCOUNT KEY CONTAINER BLOB
//        the counts of its committed and uncommitted blocks ("committed N uncommitted M")
import { createHmac } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const STANDARD = ['content-encoding', 'content-language', 'content-length', 'content-md5',
    'content-type', 'date', 'if-modified-since', 'if-match', 'if-none-match',
    'if-unmodified-since', 'range'];

function stringToSign(verb, account, url, headers) {
    const h = new Map();
    for (const [n, v] of headers) h.set(n.toLowerCase(), String(v));
    const lines = [verb];
    for (const name of STANDARD) {
        let v = h.get(name) ?? '';
        if (name === 'content-length' && v === '0') v = '';
        lines.push(v);
    }
    const ms = [...h.entries()].filter(([n]) => n.startsWith('x-ms-'))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([n, v]) => `${n}:${v.replace(/\s+/g, ' ').trim()}`);
    const u = new URL(url);
    let resource = `/${account}${u.pathname}`;
    const params = new Map();
    for (const [k, v] of u.searchParams) {
        const key = k.toLowerCase();
        params.set(key, [...(params.get(key) ?? []), v]);
    }
    for (const k of [...params.keys()].sort())
        resource += `\n${k}:${params.get(k).sort().join(',')}`;
    return lines.join('\n') + '\n' + ms.map((l) => l + '\n').join('') + resource;
}

function authorization(verb, account, key, url, headers) {
    const sts = stringToSign(verb, account, url, headers);
    const sig = createHmac('sha256', Buffer.from(key, 'base64')).update(sts, 'utf8').digest('base64');
    return { auth: `SharedKey ${account}:${sig}`, sts };
}

async function uploadFile(endpoint, account, key, container, blob, file) {
    const body = readFileSync(file);
    const path = `${container}/${blob.split('/').map(encodeURIComponent).join('/')}`;
    const r = await send('PUT', endpoint, account, key, path, '',
        [['x-ms-blob-type', 'BlockBlob'], ['Content-Type', 'application/octet-stream']], body);
    if (r.status !== 201) throw new Error(`upload ${blob}: HTTP ${r.status} ${r.text}`);
}

// the files below dir, as [path relative to dir, full path]
function walk(dir, rel = '') {
    const out = [];
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) out.push(...walk(dir, r));
        else if (e.isFile()) out.push([r, join(dir, r)]);
    }
    return out;
}

async function send(verb, endpoint, account, key, path, query, headers, body) {
    const url = `${endpoint.replace(/\/+$/, '')}/${path}${query ? '?' + query : ''}`;
    const all = [['x-ms-date', new Date().toUTCString()], ['x-ms-version', '2020-10-02'], ...headers];
    if (body !== undefined) all.push(['Content-Length', String(body.length)]);
    const { auth } = authorization(verb, account, key, url, all);
    const init = { method: verb, headers: Object.fromEntries([...all, ['Authorization', auth]]) };
    if (body !== undefined) init.body = body;
    const res = await fetch(url, init);
    const text = await res.text();
    return { status: res.status, text };
}

const [cmd, ...a] = process.argv.slice(2);
if (cmd === 'sign') {
    const req = JSON.parse(readFileSync(0, 'utf8'));
    const { auth, sts } = authorization(req.verb, req.account, req.key, req.url, req.headers);
    console.log(auth);
    console.log(JSON.stringify(sts));
} else if (cmd === 'container') {
    const [endpoint, account, key, container] = a;
    const r = await send('PUT', endpoint, account, key, container, 'restype=container', []);
    if (r.status !== 201 && r.status !== 409) { console.error(`container: HTTP ${r.status} ${r.text}`); process.exit(1); }
} else if (cmd === 'upload') {
    const [endpoint, account, key, container, blob, file] = a;
    try { await uploadFile(endpoint, account, key, container, blob, file); } catch (e) { console.error(e.message); process.exit(1); }
} else if (cmd === 'upload-dir') {
    const [endpoint, account, key, container, dir, prefix] = a;
    const files = walk(dir);
    let next = 0;
    const worker = async () => {
        while (next < files.length) {
            const [rel, full] = files[next++];
            await uploadFile(endpoint, account, key, container, prefix ? `${prefix}/${rel}` : rel, full);
        }
    };
    try { await Promise.all(Array.from({ length: 16 }, worker)); } catch (e) { console.error(e.message); process.exit(1); }
    console.log(files.length);
} else if (cmd === 'sas') {
    // account SAS, version 2019-12-12: account, permissions, services, resource types,
    // start, expiry, IP, protocol, version (each followed by a newline)
    const [account, key] = a;
    const expiry = new Date(Date.now() + 3600e3).toISOString().replace(/\.\d+Z$/, 'Z');
    const f = { sv: '2019-12-12', ss: 'b', srt: 'sco', sp: 'rwdlc', se: expiry, spr: 'https,http' };
    const sts = [account, f.sp, f.ss, f.srt, '', f.se, '', f.spr, f.sv, ''].join('\n');
    const sig = createHmac('sha256', Buffer.from(key, 'base64')).update(sts, 'utf8').digest('base64');
    console.log(new URLSearchParams({ ...f, sig }).toString());
} else if (cmd === 'list') {
    const [endpoint, account, key, container, prefix] = a;
    let marker = '';
    do {
        const q = new URLSearchParams({ comp: 'list', prefix, restype: 'container' });
        if (marker) q.set('marker', marker);
        const r = await send('GET', endpoint, account, key, container, q.toString(), []);
        if (r.status !== 200) { console.error(`list: HTTP ${r.status} ${r.text}`); process.exit(1); }
        for (const m of r.text.matchAll(/<Blob>\s*<Name>([^<]*)<\/Name>/g)) console.log(m[1]);
        marker = (r.text.match(/<NextMarker>([^<]*)<\/NextMarker>/) || [])[1] || '';
    } while (marker);
} else if (cmd === 'get' || cmd === 'blocks') {
    const [endpoint, account, key, container, blob] = a;
    const path = `${container}/${blob.split('/').map(encodeURIComponent).join('/')}`;
    const r = await send('GET', endpoint, account, key, path,
        cmd === 'blocks' ? 'blocklisttype=all&comp=blocklist' : '', []);
    if (r.status !== 200) { console.error(`${cmd}: HTTP ${r.status} ${r.text}`); process.exit(1); }
    if (cmd === 'get') process.stdout.write(r.text);
    else {
        const part = (tag) => (r.text.match(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`)) || ['', ''])[1];
        const count = (x) => (x.match(/<Block>/g) || []).length;
        console.log(`committed ${count(part('CommittedBlocks'))} uncommitted ${count(part('UncommittedBlocks'))}`);
    }
} else {
    console.error('usage: node blob.mjs sign|container|upload|upload-dir|sas|list|get|blocks ...');
    process.exit(2);
}
