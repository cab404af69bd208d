const shared = require('./jest-shared.cjs');

const embedded = process.env.E2E_EMBEDDED === '1';

module.exports = {
  ...shared,
  roots: ['<rootDir>/test'],
  testRegex: '.*\\.e2e-spec\\.ts$',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30_000,
  // The embedded database serves one connection: its run is serial. Suites
  // that need a database of their own or a second real server run on PostgreSQL only.
  maxWorkers: embedded ? 1 : 2,
  // Each suite compiles the served document's schemas to check every answer; a worker that has
  // grown past this is replaced between suites instead of running out of heap late in the run.
  workerIdleMemoryLimit: '1GB',
  testPathIgnorePatterns: embedded
    ? ['/node_modules/', '\\.postgres-only\\.', 'server-process']
    : ['/node_modules/'],
};
