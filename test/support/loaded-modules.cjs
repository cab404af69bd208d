// Preloaded (`node -r`) into the server and each of its cluster workers: on exit, writes the files
// the process loaded through require (require.cache) to LOADED_MODULES_DIR/<role>-<pid>.json.
const cluster = require('node:cluster');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

process.on('exit', () => {
  const role = cluster.isPrimary ? 'primary' : 'worker';
  writeFileSync(
    join(process.env.LOADED_MODULES_DIR, `${role}-${process.pid}.json`),
    JSON.stringify(Object.keys(require.cache)),
  );
});
