// The registry this project is built against serves only some platforms' builds of native
// optional packages (e.g. @swc/core-darwin-arm64 answers 404), so `npm install` leaves them out
// of package-lock.json and `npm ci` then refuses the lockfile. This adds an entry for each such
// optional package, marked with its os/cpu, so that `npm ci` sees the tree complete and skips
// them on platforms they are not for. Run it after `npm install` changes the lockfile.
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const path = join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openharmony'];
const CPU = { x64: 'x64', ia32: 'ia32', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64', s390x: 's390x', riscv64: 'riscv64', loong64: 'loong64' };

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  const libc = parts.some((p) => p.startsWith('musl')) ? 'musl' : parts.some((p) => p === 'gnu' || p === 'gnueabihf') ? 'glibc' : null;
  return { os, cpu, libc };
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (packages[key] || packages[`${location}/node_modules/${name}`]) continue;
    const { os, cpu, libc } = platformOf(name);
    if (!os || !cpu) throw new Error(`Cannot tell the platform of ${name}; add it by hand.`);
    packages[key] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [os],
      cpu: [cpu],
      ...(libc ? { libc: [libc] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform-specific optional packages`);
