// Usage: npm run migration:generate -- <PascalCaseName>
// Builds, migrates a scratch database to the current migrations, and writes
// the schema difference to the entities as a new migration file.
const { execSync } = require('node:child_process');
const { join } = require('node:path');

const name = process.argv[2];
if (!/^[A-Z][A-Za-z0-9]+$/.test(name ?? '')) {
  console.error('Give the migration a PascalCase name: npm run migration:generate -- AddSpaces');
  process.exit(1);
}
const root = join(__dirname, '..');
const server = process.env.MIGRATION_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432';
const scratch = `verity_migration_${process.pid}`;
const run = (command, env = {}) => execSync(command, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });

// A clean build: a stale compiled migration in dist/ would be applied to the scratch database.
require('node:fs').rmSync(join(root, 'dist'), { recursive: true, force: true });
run('npx tsc -p tsconfig.build.json');
run(`psql "${server}/postgres" -qc "CREATE DATABASE ${scratch}"`);
try {
  const env = { DATABASE_URL: `${server}/${scratch}` };
  run('npx typeorm -d dist/database/data-source.js migration:run', env);
  run(`npx typeorm -d dist/database/data-source.js migration:generate src/database/migrations/${name} --timestamp ${Date.now()}`, env);
  run(`npx prettier --write "src/database/migrations/*-${name}.ts"`);
} finally {
  run(`psql "${server}/postgres" -qc "DROP DATABASE IF EXISTS ${scratch}"`);
}
