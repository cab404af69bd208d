// The DataSource the TypeORM CLI uses; the compiled copy is dist/database/data-source.js (`npm run typeorm`).
export { default } from './src/database/data-source';
