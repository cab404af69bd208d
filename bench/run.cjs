// `npm run bench`: builds (see package.json), then runs every bench/*.bench.mjs in turn.
// Pass names to run only some: `npm run bench -- catalog`.
const { readdirSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const only = process.argv.slice(2);
const files = readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => !only.length || only.some((name) => f.startsWith(name)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  const { status } = spawnSync(process.execPath, [join(__dirname, file)], { stdio: 'inherit' });
  if (status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
