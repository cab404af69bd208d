// Issue 6: upload and download throughput of a 50 MB attachment (MB/s), and the server's peak
// memory while 10 clients upload 50 MB each at once (it should stay far below 10 x 50 MB).
// Local storage backend, real PostgreSQL; client and server share this machine.
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { register, scratchDatabase, signIn, startProcess } from './lib.mjs';

const MB = 1024 * 1024;
const SIZE = 50 * MB;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONCURRENT = 10;
const BOUNDARY = '----verity-bench-boundary';

/** A multipart body streaming `size` bytes of a file that starts with `head` (never held whole). */
function body(head, size, fill, fileName, type) {
  const start = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const end = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const chunk = Buffer.alloc(64 * 1024, fill);
  let produced = -1;
  return new Readable({
    read() {
      if (produced < 0) {
        produced = head.length;
        this.push(Buffer.concat([start, head]));
      } else if (produced >= size) {
        this.push(end);
        this.push(null);
      } else {
        const n = Math.min(chunk.length, size - produced);
        produced += n;
        this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      }
    },
  });
}

function upload(url, token, kind) {
  const file =
    kind === 'csv'
      ? body(Buffer.from('id,payload\n1,'), SIZE, 0x61, 'bench.csv', 'text/csv')
      : body(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'), SIZE, 0x20, 'bench.pdf', 'application/pdf');
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(
      url,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          if (res.statusCode !== 201) return reject(new Error(`upload: ${res.statusCode} ${text}`));
          resolve({ seconds, id: JSON.parse(text).id });
        });
      },
    );
    req.on('error', reject);
    file.pipe(req);
  });
}

async function download(base, token, id) {
  const link = await (await fetch(`${base}/api/v1.0/catalog/attachments/${id}/download`, { headers: { authorization: `Bearer ${token}` } })).json();
  const url = new URL(link.download_url);
  const started = process.hrtime.bigint();
  const res = await fetch(`${base}${url.pathname}${url.search}`);
  let bytes = 0;
  for await (const chunk of res.body) bytes += chunk.length;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (res.status !== 200 || bytes !== SIZE) throw new Error(`download: ${res.status}, ${bytes} bytes`);
  return seconds;
}

const kib = (pid, field) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`))[1]);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mbps = (seconds) => (SIZE / MB / seconds).toFixed(0);

async function run() {
  const { url, client } = await scratchDatabase('verity_bench_attachments');
  const api = await startProcess({ env: { DATABASE_URL: url, RATE_LIMIT_ENABLED: 'false' } });
  try {
    const password = 'bench-password-1';
    await register(api.base, 'files@example.test', password);
    const token = await signIn(api.base, 'files@example.test', password);
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const space = await (await fetch(`${api.base}/api/v1.0/spaces`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bench files' }) })).json();
    const product = await (
      await fetch(`${api.base}/api/v1.0/catalog/spaces/${space.slug}/products`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bench product' }) })
    ).json();
    const target = `${api.base}/api/v1.0/catalog/spaces/${space.slug}/products/${product.id}/attachments`;
    const idleRss = kib(api.pid, 'VmRSS');

    const results = {};
    for (const kind of ['pdf', 'csv']) {
      const ups = [];
      const downs = [];
      for (let i = 0; i < RUNS; i++) {
        const { seconds, id } = await upload(target, token, kind);
        ups.push(seconds);
        downs.push(await download(api.base, token, id));
      }
      results[kind] = { up: median(ups), down: median(downs) };
    }

    // Peak memory of 10 concurrent 50 MB uploads: reset the high-water mark, then sample.
    try {
      writeFileSync(`/proc/${api.pid}/clear_refs`, '5');
    } catch {
      // not permitted: VmHWM then covers the whole run
    }
    const before = kib(api.pid, 'VmRSS');
    let sampled = before;
    const sampler = setInterval(() => (sampled = Math.max(sampled, kib(api.pid, 'VmRSS'))), 20);
    const started = Date.now();
    const all = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => upload(target, token, i % 2 ? 'csv' : 'pdf')));
    const wall = (Date.now() - started) / 1000;
    clearInterval(sampler);
    const hwm = kib(api.pid, 'VmHWM');

    console.log('\n== attachments (local storage, real PostgreSQL; client on the same 2 cores) ==');
    for (const [kind, r] of Object.entries(results)) {
      console.log(
        `50 MB ${kind.toUpperCase().padEnd(3)} upload   ${mbps(r.up).padStart(5)} MB/s (${r.up.toFixed(2)} s)   download ${mbps(r.down).padStart(5)} MB/s (${r.down.toFixed(2)} s)   median of ${RUNS}`,
      );
    }
    console.log(
      `${CONCURRENT} concurrent 50 MB uploads: ${all.length} x 201 in ${wall.toFixed(1)} s (${((CONCURRENT * SIZE) / MB / wall).toFixed(0)} MB/s total); ` +
        `server RSS idle ${(idleRss / 1024).toFixed(0)} MB, before ${(before / 1024).toFixed(0)} MB, peak sampled ${(sampled / 1024).toFixed(0)} MB, ` +
        `VmHWM ${(hwm / 1024).toFixed(0)} MB (10 x 50 MB would be 500 MB)`,
    );
  } finally {
    await api.stop();
    await client.end();
  }
}

run().catch((error) => {
  console.error(error);
  process.exit(1);
});
