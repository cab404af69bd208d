// `npm start` on a fresh clone: compile once, and again whenever a source file is newer than the build.
const { statSync, readdirSync, existsSync } = require('node:fs');
const { join } = require('node:path');
const { execSync } = require('node:child_process');

const root = join(__dirname, '..');
const output = join(root, 'dist', 'main.js');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

if (!existsSync(output) || statSync(output).mtimeMs < newestSource(join(root, 'src'))) {
  console.log('Building Verity (dist/ is missing or older than src/)...');
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
}
