// `npm run bench [name ...]`: runs bench/<name>.bench.mjs (all of them when no name is given), one after another.
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => !wanted.length || wanted.includes(f.replace('.bench.mjs', '')))
  .sort();
for (const file of files) {
  const started = Date.now();
  const { run } = await import(`./${file}`);
  await run();
  console.log(`(${file} took ${Math.round((Date.now() - started) / 1000)} s)`);
}
