// proxy.mjs - the test object store: npm s3rver on 127.0.0.1 behind a proxy
// of ours that verifies every request's AWS SigV4 signature with
// @smithy/signature-v4 (the AWS SDK's signer) and refuses bad ones, since
// s3rver does not check secrets.  Anonymous requests are refused unless
// their bucket is named with --public.  Uploads directories given with
// --upload BUCKET/PREFIX=DIR before it listens, then prints its port; GET /
// HEAD of those objects (signature checked first) it answers from memory
// (serveUploaded), the rest goes to s3rver.
//
//   node proxy.mjs --dir /tmp/x --upload lake/wh=/path/to/warehouse [--public open]
//                  [--list-page-size N] [--delay MS] [--trace [--trace-times]]
//                  [--tls-key K.pem --tls-cert C.pem]
//
// ListObjectsV2 is answered by the proxy itself from s3rver's flat listing
// (s3rver's filesystem store finds no common prefixes below a delimiter),
// in pages of at most --list-page-size entries, to exercise pagination.
//
// Faults, for the reliability checks: in bucket "flaky" the first attempt of
// every request (method, URL, range) fails, by turns with 503 SlowDown, 500,
// a body cut short of its Content-Length, a connection reset mid-body, or
// 429 with Retry-After: 0; the second attempt is served.  In bucket "stall"
// nothing is ever answered (cancel and statement_timeout must still work).
//
// Writes: a PUT with "If-None-Match: *" is answered by the proxy as S3 does
// (s3rver ignores the header): under a lock per key, 412
// PreconditionFailed when the object exists, else forwarded; buckets named
// with --no-conditional pass the header on to s3rver, which ignores it (a
// store that does not honour conditional writes).  DELETE ?uploadId (abort
// a multipart upload, which s3rver lacks) is answered 204.  GET /__writes
// (unsigned) shows counts of signed write requests by kind (and of 412s,
// "412-snapshot" for snapshot-N keys; the extension's If-None-Match probe
// objects counted apart, "probe-<kind>"); ?hold=RE&holdms=N
// holds the next conditional PUT whose key matches RE before its check
// until ?release=1, at most N ms (a writer that loses the race for a
// snapshot id), ?lose=RE drops the
// answer of the next PUT whose key matches (the object stored, the
// connection closed: an answer lost on the way), ?reset=1 clears both and
// the counts.
//
// Seeded random faults (test/reliability/s3faults.sh), in bucket "chaos":
// each attempt of a request (method, URL, range, attempt number) draws, by
// a SHA-256 of the seed and those, whether it fails (--chaos-rate, or set
// at run time) and how: 503 SlowDown, 500, 429 Retry-After 0, a connection
// reset mid-body, a body cut short of a correct Content-Length, a body cut
// short with a LYING shorter Content-Length (a well-formed short answer),
// a ranged GET answered 200 with the whole object, a 206 with a wrong
// Content-Range (the header shifted off the bytes sent, or a consistent
// wider range), a stall of --chaos-stall-ms before the answer or mid-body;
// objects whose key matches the "doom" regular expression fail every
// attempt (503 / reset / short body by turns), those matching "stallre"
// stall every attempt, and those matching "liere" (an object's key, or a
// listing's prefix) get a well-formed lie on every odd attempt: a whole GET
// answered 200 with the first half of the object under a Content-Length
// that agrees (no Content-Range: a store ignoring the range), a ranged GET
// a consistent shorter 206, a HEAD a Content-Length of half the size, a
// LIST page cut in half under a Content-Length that agrees.  Every request waits a
// random 0..--chaos-latency ms first.  GET /__chaos (unsigned, this proxy
// only) shows the settings and counts; ?seed=&rate=&doom=&stallre=&liere=&latency=&stall=
// changes them, ?reset=1 also clears the counts and attempt numbers.
//
// Round trips on the critical path (bench/s3.sh, test/s3/latency.sh): every
// request gets a depth, one more than the deepest request answered before it
// arrived; the deepest so far is the number of round trips the client
// waited for one after another (with --delay well above the store's own
// time per request, requests sent together share a depth).  GET /__latency
// (unsigned) shows it with the requests by method; ?reset=1 clears them.
// --trace writes each request's depth, method, path (and Range) on stderr;
// with --trace-times each such line ends with " t=MS" (when it arrived, ms
// since the proxy started) and an answer adds a line "answered D t=MS": how
// far apart a wave's requests arrive and are answered (bench/RESULTS.md).
//
// --check-one-in N (benchmarks only, bench/manifest_wave.sh; never given by
// a test that asserts signatures): the signature of one request in N is
// computed and compared, the others are checked for everything else
// (well-formed Authorization, key id, signed host and x-amz-date, payload
// hash, token) and taken as signed: the test store's own CPU per request
// made small, to tell the client's share of a wave's spread from the store's.
import crypto from "node:crypto";
import http from "node:http";
import https from "node:https";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { SignatureV4 } from "@smithy/signature-v4";

const require = createRequire(import.meta.url);
const S3rver = require("s3rver");

const ACCESS_KEY = "S3RVER";
const SECRET_KEY = "S3RVER";
const REGION = "us-east-1";

const args = process.argv.slice(2);
const opt = (name) => {
  const out = [];
  for (let i = 0; i < args.length; i++) if (args[i] === name) out.push(args[i + 1]);
  return out;
};
const dir = opt("--dir")[0] || "/tmp/tablescan_fdw_s3";
const uploads = opt("--upload");
const publicBuckets = new Set(opt("--public"));
const listPageSize = Number(opt("--list-page-size")[0] || 1000);
const traceDepth = args.includes("--trace");	// each request's depth (and Range) on stderr
const traceTimes = args.includes("--trace-times");	// and when it arrived and was answered
const traceNow = () => (traceTimes ? ` t=${performance.now().toFixed(1)}` : "");
const delayMs = Number(opt("--delay")[0] || 0);	// added to every request (bench/s3.sh)
const checkOneIn = Math.max(1, Number(opt("--check-one-in")[0] || 1));	// benchmarks only: see above
let checkTurn = 0;
const chaos = { seed: String(opt("--chaos-seed")[0] || "1"), rate: Number(opt("--chaos-rate")[0] || 0),
                doom: opt("--chaos-doom")[0] || "", latency: Number(opt("--chaos-latency")[0] || 0),
                stall: Number(opt("--chaos-stall-ms")[0] || 2000), stallre: "", liere: "" };
const chaosCounts = {};
const noConditional = new Set(opt("--no-conditional"));
const writes = { hold: "", holdMs: 0, lose: "", counts: {} };
let releaseHeld = null;	// ends the hold of the conditional PUT held now
const keyLocks = new Map();	// "/bucket/key" -> the promise of the last conditional PUT holding it
const chaosAttempts = new Map();
const tls = opt("--tls-key")[0] && { key: fs.readFileSync(opt("--tls-key")[0]), cert: fs.readFileSync(opt("--tls-cert")[0]) };

function xmlError(res, status, code, message) {
  res.writeHead(status, { "Content-Type": "application/xml" });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code>` +
          `<Message>${message}</Message></Error>`);
}

// "AWS4-HMAC-SHA256 Credential=AK/20260101/us-east-1/s3/aws4_request, SignedHeaders=a;b, Signature=hex"
function parseAuthorization(h) {
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$/.exec(h || "");
  return m && { accessKey: m[1], date: m[2], region: m[3], service: m[4],
                signedHeaders: m[5].split(";"), signature: m[6] };
}

function amzDate(s) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s || "");
  return m && new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
}

// SHA-256 / HMAC-SHA256 of node:crypto (OpenSSL) in the shape the SDK's
// signer takes (the AWS SDK for JavaScript gives it @smithy/hash-node, the
// same): the pure-JavaScript SHA-256 the SDK uses by default cost most of the check.
class NodeSha256 {
  constructor(secret) {
    this.h = secret === undefined ? crypto.createHash("sha256")
      : crypto.createHmac("sha256", typeof secret === "string" ? Buffer.from(secret, "utf8") : secret);
  }
  update(data) {
    this.h.update(typeof data === "string" ? Buffer.from(data, "utf8") : data);
  }
  async digest() {
    return new Uint8Array(this.h.digest());
  }
}

// One signer per credential scope and session token, reused: a signer is
// stateless per request, and the SDK caches the derived signing key (per
// date, region, service and credentials) so a request costs the canonical
// request's hash and one HMAC.
const signers = new Map();
function signerFor(auth, token) {
  const k = `${auth.accessKey}/${auth.region}/${auth.service}/${token ?? ""}`;
  let s = signers.get(k);
  if (!s) {
    s = new SignatureV4({
      credentials: { accessKeyId: auth.accessKey, secretAccessKey: SECRET_KEY, sessionToken: token },
      region: auth.region, service: auth.service, sha256: NodeSha256, uriEscapePath: false,
    });
    signers.set(k, s);
  }
  return s;
}

// The signature the request should carry, computed by the AWS SDK's signer.
async function expectedSignature(req, auth) {
  const url = new URL(req.url, "http://placeholder");
  const query = {};
  for (const [k, v] of url.searchParams) query[k] = v;
  const headers = {};
  for (const h of auth.signedHeaders) {
    const v = req.headers[h];
    if (v === undefined) return null;
    headers[h] = Array.isArray(v) ? v.join(",") : v;
  }
  const signer = signerFor(auth, req.headers["x-amz-security-token"]);
  const signed = await signer.sign({
    method: req.method, protocol: tls ? "https:" : "http:", hostname: (headers.host || "").split(":")[0],
    path: url.pathname, query, headers,
  }, { signingDate: amzDate(req.headers["x-amz-date"]), signableHeaders: new Set(auth.signedHeaders) });
  const m = /Signature=([0-9a-f]{64})/.exec(signed.headers.authorization || "");
  return m && m[1];
}

function bucketOf(req) {
  return decodeURIComponent(new URL(req.url, "http://x").pathname.split("/")[1] || "");
}

async function check(req) {
  const h = req.headers.authorization;
  if (!h) {
    if (publicBuckets.has(bucketOf(req)) && (req.method === "GET" || req.method === "HEAD"))
      return null;
    return [403, "AccessDenied", "Anonymous access is forbidden for this bucket"];
  }
  const auth = parseAuthorization(h);
  if (!auth) return [400, "AuthorizationHeaderMalformed", "Malformed Authorization header"];
  if (auth.accessKey !== ACCESS_KEY)
    return [403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist"];
  if (!auth.signedHeaders.includes("host") || !auth.signedHeaders.includes("x-amz-date"))
    return [403, "SignatureDoesNotMatch", "host and x-amz-date must be signed"];
  if (req.headers["x-amz-content-sha256"] !== "UNSIGNED-PAYLOAD" &&
      !/^[0-9a-f]{64}$/.test(req.headers["x-amz-content-sha256"] || ""))
    return [400, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256"];
  const token = req.headers["x-amz-security-token"];
  if (token !== undefined && token !== "test-session-token")
    return [403, "InvalidToken", "The provided token is malformed or otherwise invalid"];
  if (checkOneIn > 1 && checkTurn++ % checkOneIn !== 0)
    return null;	// --check-one-in: taken as signed
  const want = await expectedSignature(req, auth);
  if (want !== auth.signature)
    return [403, "SignatureDoesNotMatch",
            "The request signature we calculated does not match the signature you provided"];
  return null;
}

const faultCounts = new Map();
const faultKinds = ["503", "truncate", "reset", "500", "429"];
let faultTurn = 0;
function faultFor(req, bucket) {
  if (bucket === "stall") return "stall";
  if (bucket !== "flaky") return null;
  const key = req.method + " " + req.url + " " + (req.headers.range || "");
  const n = (faultCounts.get(key) || 0) + 1;
  faultCounts.set(key, n);
  if (n > 1) return null;
  let kind = faultKinds[faultTurn++ % faultKinds.length];
  if (req.method === "HEAD" && (kind === "truncate" || kind === "reset")) kind = "503";
  return kind;
}

// a number in [0, 1) drawn from the seed and the parts
function draw(...parts) {
  const h = crypto.createHash("sha256").update(chaos.seed + "\0" + parts.join("\0")).digest();
  return h.readUInt32BE(0) / 4294967296;
}
const chaosKinds = ["503", "500", "429", "reset", "truncate", "lie", "full200", "badrange", "stall"];
const doomKinds = ["503", "reset", "truncate"];
// The fault of this attempt in bucket "chaos" (null: served as asked) and the extra latency.
function chaosFor(req, url) {
  const key = req.method + " " + req.url + " " + (req.headers.range || "");
  const n = (chaosAttempts.get(key) || 0) + 1;
  chaosAttempts.set(key, n);
  const latency = chaos.latency > 0 ? Math.floor(draw("latency", key, n) * chaos.latency) : 0;
  const objectKey = decodeURIComponent(url.pathname.split("/").slice(2).join("/"));
  const ranged = !!req.headers.range;
  const body = req.method === "GET";
  let kind = null;
  const listPrefix = url.searchParams.get("list-type") === "2" ? url.searchParams.get("prefix") || "" : null;
  const lieKey = listPrefix !== null ? listPrefix : objectKey;
  if (chaos.liere && lieKey && new RegExp(chaos.liere).test(lieKey) && n % 2 === 1) {
    kind = "liar";
  } else if (chaos.stallre && objectKey && new RegExp(chaos.stallre).test(objectKey)) {
    kind = "stall";
  } else if (chaos.doom && objectKey && new RegExp(chaos.doom).test(objectKey)) {
    kind = doomKinds[n % doomKinds.length];
  } else if (draw("rate", key, n) < chaos.rate) {
    const kinds = chaosKinds.filter((k) => (body || !["reset", "truncate", "lie", "stall"].includes(k)) &&
      (ranged || !["full200", "badrange"].includes(k)));
    kind = kinds[Math.floor(draw("kind", key, n) * kinds.length)];
  }
  if (kind && !body && ["reset", "lie"].includes(kind)) kind = "503";
  if (kind) chaosCounts[kind] = (chaosCounts[kind] || 0) + 1;
  chaosCounts.requests = (chaosCounts.requests || 0) + 1;
  return { kind, latency, n, key };
}

function chaosControl(url, res) {
  const q = url.searchParams;
  if (q.has("seed")) chaos.seed = q.get("seed");
  if (q.has("rate")) chaos.rate = Number(q.get("rate"));
  if (q.has("doom")) chaos.doom = q.get("doom");
  if (q.has("latency")) chaos.latency = Number(q.get("latency"));
  if (q.has("stall")) chaos.stall = Number(q.get("stall"));
  if (q.has("stallre")) chaos.stallre = q.get("stallre");
  if (q.has("liere")) chaos.liere = q.get("liere");
  if (q.get("reset") === "1") {
    // bucket "flaky" too: its first attempts fail again, in the same order
    faultCounts.clear();
    faultTurn = 0;
    chaosAttempts.clear();
    for (const k of Object.keys(chaosCounts)) delete chaosCounts[k];
  }
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ ...chaos, counts: chaosCounts }) + "\n");
}

// Serve req (bucket "chaos") from s3rver with fault f (chaosFor) applied.
function serveChaos(targetPort, req, res, f) {
  const kind = f.kind;
  const headers = { ...req.headers };
  delete headers.authorization;
  // the whole object, 200 (a liar's whole GET: cut below)
  const wholeGet = !req.headers.range || /^bytes=0-$/.test(req.headers.range);
  if (kind === "full200" || (kind === "liar" && wholeGet)) delete headers.range;
  const up = http.request({ host: "127.0.0.1", port: targetPort, method: req.method, path: req.url, headers }, (ur) => {
    const chunks = [];
    ur.on("data", (c) => chunks.push(c));
    ur.on("end", async () => {
      let body = Buffer.concat(chunks);
      const h = { ...ur.headers };
      const ok = ur.statusCode >= 200 && ur.statusCode < 300;
      if (kind === "stall") {
        if (!ok || body.length < 2 || draw("stallwhere", f.key, f.n) < 0.5) {
          await new Promise((r) => setTimeout(r, chaos.stall));
        } else {	// mid-body: half, a pause, the rest
          res.writeHead(ur.statusCode, h);
          res.write(body.subarray(0, body.length >> 1));
          await new Promise((r) => setTimeout(r, chaos.stall));
          return res.end(body.subarray(body.length >> 1));
        }
      }
      if (ok && req.method === "GET" && (kind === "reset" || kind === "truncate") && body.length > 1) {
        res.writeHead(ur.statusCode, h);
        res.write(body.subarray(0, body.length >> 1));
        if (kind === "reset") res.socket.destroy();
        else res.socket.end();		// fewer bytes than Content-Length
        return;
      }
      if (ok && kind === "liar" && req.method === "HEAD" && Number(h["content-length"]) > 1) {
        h["content-length"] = String(Math.floor(Number(h["content-length"]) / 2));	// a lying size
      } else if (ok && kind === "liar" && req.method === "GET" && wholeGet && body.length > 1) {
        body = body.subarray(0, body.length >> 1);	// half the object, 200, announced as such
        h["content-length"] = String(body.length);
        delete h["content-range"];
      }
      if (ok && req.method === "GET" && (kind === "lie" || (kind === "liar" && !wholeGet)) && body.length > 1) {
        body = body.subarray(0, body.length >> 1);	// a shorter body, announced as such
        h["content-length"] = String(body.length);
        if (ur.statusCode === 206 && h["content-range"]) {
          const m = /bytes (\d+)-(\d+)\/(\d+|\*)/.exec(h["content-range"]);
          if (m) h["content-range"] = `bytes ${m[1]}-${Number(m[1]) + body.length - 1}/${m[3]}`;
        }
      }
      if (ur.statusCode === 206 && kind === "badrange" && h["content-range"]) {
        const m = /bytes (\d+)-(\d+)\/(\d+)/.exec(h["content-range"]);
        if (m) {
          const a = Number(m[1]), b = Number(m[2]), total = Number(m[3]);
          if (draw("badhow", f.key, f.n) < 0.5 || total === 0) {
            // the header shifted off the bytes actually sent
            const shift = a > 0 ? -1 : 1;
            h["content-range"] = `bytes ${a + shift}-${b + shift}/${total}`;
          } else {
            // a wider range than asked, consistently (as a store may answer)
            const wa = Math.max(0, a - 7), wb = Math.min(total - 1, b + 5);
            const whole = await new Promise((resolve, reject) => {
              const hh = { ...headers, range: `bytes=${wa}-${wb}` };
              http.get({ host: "127.0.0.1", port: targetPort, path: req.url, headers: hh }, (r2) => {
                const c2 = [];
                r2.on("data", (c) => c2.push(c));
                r2.on("end", () => resolve(Buffer.concat(c2)));
              }).on("error", reject);
            }).catch(() => null);
            if (whole && whole.length === wb - wa + 1) {
              body = whole;
              h["content-range"] = `bytes ${wa}-${wb}/${total}`;
              h["content-length"] = String(body.length);
            }
          }
        }
      }
      res.writeHead(ur.statusCode, h);
      res.end(body);
    });
  });
  up.on("error", (e) => xmlError(res, 502, "BadGateway", e.message));
  req.pipe(up);
}

function countWrite(kind) {
  writes.counts[kind] = (writes.counts[kind] || 0) + 1;
}

function writesControl(url, res) {
  const q = url.searchParams;
  if (q.get("reset") === "1") {
    writes.hold = ""; writes.holdMs = 0; writes.lose = "";
    for (const k of Object.keys(writes.counts)) delete writes.counts[k];
  }
  if (q.has("hold")) writes.hold = q.get("hold");
  if (q.has("holdms")) writes.holdMs = Number(q.get("holdms"));
  if (q.has("lose")) writes.lose = q.get("lose");
  if (q.get("release") === "1" && releaseHeld) releaseHeld();
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify(writes) + "\n");
}

function headStatus(port, p) {
  return new Promise((resolve, reject) => {
    const r = http.request({ host: "127.0.0.1", port, method: "HEAD", path: p }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    r.on("error", reject);
    r.end();
  });
}

// Forward req (body included) to s3rver; the answer is passed on, or
// dropped (the connection closed) when lose.
function forward(targetPort, req, res, lose) {
  return new Promise((resolve) => {
    const headers = { ...req.headers };
    delete headers.authorization;
    delete headers["if-none-match"];
    delete headers.expect;	// node answered "100 Continue" to the client already
    const up = http.request({ host: "127.0.0.1", port: targetPort, method: req.method,
                              path: req.url, headers }, (ur) => {
      if (lose) {
        ur.resume();
        ur.on("end", () => { res.socket.destroy(); resolve(); });
        return;
      }
      res.writeHead(ur.statusCode, ur.headers);
      ur.pipe(res);
      ur.on("end", resolve);
    });
    up.on("error", (e) => { xmlError(res, 502, "BadGateway", e.message); resolve(); });
    req.pipe(up);
  });
}

// A write request (signature checked): conditional PUTs and aborts answered here.
async function handleWrite(targetPort, req, res, url, bucket) {
  const q = url.searchParams;
  const kind = req.method === "PUT" ? (q.has("partNumber") ? "part" : req.headers["if-none-match"] !== undefined ?
    "conditional" : "put") : req.method === "POST" ? (q.has("uploads") ? "start" : "complete")
    : q.has("uploadId") ? "abort" : "delete";
  const probe = url.pathname.includes(".tablescan-conditional-put-probe-");
  countWrite(probe ? "probe-" + kind : kind);
  forgetBucket(bucket);
  const key = url.pathname;
  const lose = req.method === "PUT" && writes.lose && new RegExp(writes.lose).test(key);
  if (lose) writes.lose = "";
  if (kind === "abort") {
    req.resume();
    res.writeHead(204);
    return res.end();
  }
  if (kind !== "conditional" || noConditional.has(bucket))
    return forward(targetPort, req, res, lose);
  if (writes.hold && new RegExp(writes.hold).test(key)) {
    const ms = writes.holdMs;
    writes.hold = "";
    countWrite("held");
    await new Promise((r) => { releaseHeld = r; setTimeout(r, ms); });
    releaseHeld = null;
  }
  // check and store under the key's lock: one conditional PUT of a key at a time
  const prev = keyLocks.get(key) || Promise.resolve();
  const mine = prev.then(async () => {
    if ((await headStatus(targetPort, key)) === 200) {
      countWrite(probe ? "probe-412" : "412");
      if (/\/snapshot-\d+$/.test(key)) countWrite("412-snapshot");
      req.resume();
      return xmlError(res, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
    }
    return forward(targetPort, req, res, lose);
  }).catch((e) => xmlError(res, 500, "InternalError", e.message));
  keyLocks.set(key, mine);
  await mine;
  if (keyLocks.get(key) === mine) keyLocks.delete(key);
}

function getText(port, p) {
  return new Promise((resolve, reject) => {
    http.get({ host: "127.0.0.1", port, path: p }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode, body }));
    }).on("error", reject);
  });
}

const xmlText = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const unXml = (s) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
  .replace(/&apos;/g, "'").replace(/&amp;/g, "&");

// ListObjectsV2 with delimiter and pagination, over s3rver's flat listing.
async function handleList(targetPort, bucket, q, res, cut = false) {
  const prefix = q.get("prefix") || "";
  const delimiter = q.get("delimiter") || "";
  const maxKeys = Math.min(Number(q.get("max-keys") || 1000), listPageSize);
  const after = q.get("continuation-token") ? Buffer.from(q.get("continuation-token"), "base64").toString() : "";
  const keys = [];
  let token = "";
  for (;;) {
    const p = `/${encodeURIComponent(bucket)}/?list-type=2&max-keys=1000&prefix=${encodeURIComponent(prefix)}` +
      (token ? `&continuation-token=${encodeURIComponent(token)}` : "");
    const r = await getText(targetPort, p);
    if (r.status !== 200) {
      res.writeHead(r.status, { "Content-Type": "application/xml" });
      return res.end(r.body);
    }
    for (const m of r.body.matchAll(/<Key>([^<]*)<\/Key>/g)) keys.push(unXml(m[1]));
    const next = /<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(r.body);
    if (!/<IsTruncated>true<\/IsTruncated>/.test(r.body) || !next) break;
    token = unXml(next[1]);
  }
  const entries = new Map();	// name -> isPrefix
  for (const k of keys.sort()) {
    const rest = k.slice(prefix.length);
    const i = delimiter ? rest.indexOf(delimiter) : -1;
    if (i >= 0) entries.set(k.slice(0, prefix.length + i + delimiter.length), true);
    else entries.set(k, false);
  }
  const names = [...entries.keys()].sort().filter((n) => n > after);
  const page = names.slice(0, maxKeys);
  const truncated = names.length > page.length;
  let xml = `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
    `<Name>${xmlText(bucket)}</Name><Prefix>${xmlText(prefix)}</Prefix><KeyCount>${page.length}</KeyCount>` +
    `<MaxKeys>${maxKeys}</MaxKeys>${delimiter ? `<Delimiter>${xmlText(delimiter)}</Delimiter>` : ""}` +
    `<IsTruncated>${truncated}</IsTruncated>`;
  if (truncated)
    xml += `<NextContinuationToken>${Buffer.from(page[page.length - 1]).toString("base64")}</NextContinuationToken>`;
  for (const n of page)
    xml += entries.get(n) ? `<CommonPrefixes><Prefix>${xmlText(n)}</Prefix></CommonPrefixes>`
      : `<Contents><Key>${xmlText(n)}</Key><Size>0</Size></Contents>`;
  xml += "</ListBucketResult>";
  let out = Buffer.from(xml);
  if (cut) out = out.subarray(0, out.length >> 1);	// a page cut short, its length announced
  res.writeHead(200, { "Content-Type": "application/xml", "Content-Length": String(out.length) });
  res.end(out);
}

// The objects uploaded at start ("/bucket/key" -> body and s3rver's headers
// for it), whose GET / HEAD the proxy answers itself once their signature is
// checked: s3rver (koa, its logger, and a filesystem store that re-reads the
// bucket's CORS / website settings and the object's metadata on every
// request) cost about 1 ms of CPU per request, most of the store's time.
// Only what s3rver would answer the same way is served here: a whole object,
// or one range "bytes=a-b" / "bytes=a-" starting inside a non-empty object,
// with no query and no conditional header; anything else (missing keys,
// suffix or unsatisfiable ranges, ?acl, If-None-Match, ...) goes to s3rver,
// and a request that may change a bucket (any method but GET / HEAD) drops
// that bucket's objects from here first.
const uploaded = new Map();
function forgetBucket(bucket) {
  for (const k of uploaded.keys()) if (k.startsWith("/" + bucket + "/")) uploaded.delete(k);
}
function serveUploaded(req, url, res) {
  if ((req.method !== "GET" && req.method !== "HEAD") || url.search !== "" ||
      req.headers["if-match"] !== undefined || req.headers["if-none-match"] !== undefined ||
      req.headers["if-modified-since"] !== undefined || req.headers["if-unmodified-since"] !== undefined)
    return false;
  let key;
  try {
    key = decodeURIComponent(url.pathname);
  } catch {
    return false;
  }
  const o = uploaded.get(key);
  if (!o || o.body.length === 0)
    return false;
  const size = o.body.length;
  let start = 0, end = size - 1, status = 200;
  const range = req.headers.range;
  if (range !== undefined) {
    const m = /^bytes=(\d+)-(\d*)$/.exec(range);
    if (!m || Number(m[1]) > size - 1 || (m[2] !== "" && Number(m[2]) < Number(m[1])))
      return false;
    start = Number(m[1]);
    if (m[2] !== "") end = Math.min(Number(m[2]), size - 1);
    status = 206;
  }
  const headers = { "Accept-Ranges": "bytes", "Content-Type": "binary/octet-stream",
                    "Last-Modified": o.lastModified, "ETag": o.etag, "Content-Length": String(end + 1 - start) };
  if (status === 206) headers["Content-Range"] = `bytes ${start}-${end}/${size}`;
  req.resume();
  res.writeHead(status, headers);
  res.end(req.method === "HEAD" ? undefined : o.body.subarray(start, end + 1));
  return true;
}

const latency = { depth: 0, answered_depth: 0, requests: 0, methods: {} };
function latencyControl(url, res) {
  if (url.searchParams.get("reset") === "1")
    Object.assign(latency, { depth: 0, answered_depth: 0, requests: 0, methods: {} });
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ depth: latency.depth, requests: latency.requests, methods: latency.methods }) + "\n");
}
// the depth of a request arriving now, counted; its answer raises answered_depth
function trackDepth(req, res) {
  const d = latency.answered_depth + 1;
  latency.depth = Math.max(latency.depth, d);
  latency.requests++;
  latency.methods[req.method] = (latency.methods[req.method] || 0) + 1;
  // and the byte range asked for, if any ("bytes=A-B")
  if (traceDepth) process.stderr.write(`depth ${d} ${req.method} ${req.url.split("?")[0]}` +
                                       `${req.headers.range ? " " + req.headers.range : ""}${traceNow()}\n`);
  res.on("finish", () => {
    if (traceDepth && traceTimes) process.stderr.write(`answered ${d}${traceNow()}\n`);
    latency.answered_depth = Math.max(latency.answered_depth, d);
  });
  res.on("close", () => { latency.answered_depth = Math.max(latency.answered_depth, d); });
}

let requests = 0;
function startProxy(targetPort) {
  const handler = async (req, res) => {
    requests++;
    if (req.url.startsWith("/__latency")) {
      req.resume();
      return latencyControl(new URL(req.url, "http://x"), res);
    }
    trackDepth(req, res);
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    if (req.url.startsWith("/__writes")) {
      req.resume();
      return writesControl(new URL(req.url, "http://x"), res);
    }
    if (req.url.startsWith("/__chaos")) {
      req.resume();
      return chaosControl(new URL(req.url, "http://x"), res);
    }
    let bad;
    try {
      bad = await check(req);
    } catch (e) {
      bad = [403, "SignatureDoesNotMatch", "could not verify: " + e.message];
    }
    if (bad) {
      req.resume();
      return xmlError(res, bad[0], bad[1], bad[2]);
    }
    const url = new URL(req.url, "http://x");
    const parts = url.pathname.split("/");
    const bucket = decodeURIComponent(parts[1] || "");
    const fault = faultFor(req, bucket);
    if (fault === "stall") return;	// never answered
    if (bucket === "chaos") {
      const f = chaosFor(req, url);
      if (f.latency > 0) await new Promise((r) => setTimeout(r, f.latency));
      if (f.kind === "503" || f.kind === "500" || f.kind === "429") {
        req.resume();
        res.setHeader("Retry-After", "0");
        return xmlError(res, Number(f.kind), f.kind === "503" ? "SlowDown" : f.kind === "500" ? "InternalError"
          : "TooManyRequests", "injected fault");
      }
      if (req.method === "GET" && url.searchParams.get("list-type") === "2" && parts.length <= 3 && !parts[2]) {
        req.resume();
        if (f.kind === "stall") await new Promise((r) => setTimeout(r, chaos.stall));
        return handleList(targetPort, bucket, url.searchParams, res, f.kind === "liar")
          .catch((e) => xmlError(res, 500, "InternalError", e.message));
      }
      return serveChaos(targetPort, req, res, f);
    }
    if (fault === "503" || fault === "500" || fault === "429") {
      req.resume();
      res.setHeader("Retry-After", "0");
      return xmlError(res, Number(fault), fault === "503" ? "SlowDown" : fault === "500" ? "InternalError"
        : "TooManyRequests", "injected fault");
    }
    if (req.method === "GET" && url.searchParams.get("list-type") === "2" && parts.length <= 3 && !parts[2]) {
      req.resume();
      return handleList(targetPort, decodeURIComponent(parts[1]), url.searchParams, res)
        .catch((e) => xmlError(res, 500, "InternalError", e.message));
    }
    if (!fault && serveUploaded(req, url, res))
      return;
    if (!fault && parts.length > 2 && parts[2] !== "" && ["PUT", "POST", "DELETE"].includes(req.method))
      return handleWrite(targetPort, req, res, url, bucket);
    if (req.method !== "GET" && req.method !== "HEAD")
      forgetBucket(decodeURIComponent(parts[1] || ""));
    const headers = { ...req.headers };
    delete headers.authorization;	// s3rver checks no secret; it gets plain requests
    const up = http.request({ host: "127.0.0.1", port: targetPort, method: req.method,
                              path: req.url, headers }, (ur) => {
      if ((fault === "truncate" || fault === "reset") && ur.statusCode < 300) {
        const chunks = [];
        ur.on("data", (c) => chunks.push(c));
        ur.on("end", () => {
          const body = Buffer.concat(chunks);
          res.writeHead(ur.statusCode, ur.headers);
          res.write(body.subarray(0, Math.floor(body.length / 2)));
          if (fault === "reset") res.socket.destroy();
          else res.socket.end();	// fewer bytes than Content-Length
        });
        return;
      }
      res.writeHead(ur.statusCode, ur.headers);
      ur.pipe(res);
    });
    up.on("error", (e) => xmlError(res, 502, "BadGateway", e.message));
    req.pipe(up);
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// PUT every file below a directory, signed by the SDK's signer.
async function upload(port, bucket, prefix, root) {
  const signer = new SignatureV4({ credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
                                   region: REGION, service: "s3", sha256: NodeSha256, uriEscapePath: false });
  const files = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) files.push(p);
    }
  };
  walk(root);
  const put = async (file) => {
    const rel = path.relative(root, file).split(path.sep).join("/");
    const key = (prefix ? prefix + "/" : "") + rel;
    const body = fs.readFileSync(file);
    const p = "/" + bucket + "/" + key.split("/").map(encodeURIComponent).join("/");
    const signed = await signer.sign({ method: "PUT", protocol: "http:", hostname: "127.0.0.1", port,
      path: p, query: {}, headers: { host: `127.0.0.1:${port}`, "content-length": String(body.length),
                                     "x-amz-content-sha256": "UNSIGNED-PAYLOAD" } });
    await new Promise((resolve, reject) => {
      const r = http.request({ host: "127.0.0.1", port, method: "PUT", path: p, headers: signed.headers },
                             (res) => { res.resume(); res.on("end", () => {
                               if (res.statusCode !== 200)
                                 return reject(new Error(`PUT ${key}: HTTP ${res.statusCode}`));
                               uploaded.set("/" + bucket + "/" + key, { body, etag: res.headers.etag,
                                            lastModified: res.headers.date });
                               resolve();
                             }); });
      r.on("error", reject);
      r.end(body);
    });
  };
  for (let i = 0; i < files.length; i += 16) await Promise.all(files.slice(i, i + 16).map(put));
  return files.length;
}

fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
const buckets = new Set([...uploads.map((u) => u.split("=")[0].split("/")[0]), ...publicBuckets, ...noConditional]);
const s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: dir,
                        configureBuckets: [...buckets].map((name) => ({ name })) });
const { port: s3port } = await s3.run();
for (const u of uploads) {
  const [target, src] = u.split("=");
  const [bucket, ...rest] = target.split("/");
  const n = await upload(s3port, bucket, rest.join("/"), src);
  process.stderr.write(`uploaded ${n} files to s3://${target}\n`);
}
const proxy = await startProxy(s3port);
process.stdout.write(`${proxy.address().port}\n`);
process.on("SIGTERM", () => { process.stderr.write(`requests: ${requests}\n`); process.exit(0); });
