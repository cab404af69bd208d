const shared = require('./jest-shared.cjs');

module.exports = { ...shared, roots: ['<rootDir>/src'], testRegex: '.*\\.spec\\.ts$', maxWorkers: 2 };
