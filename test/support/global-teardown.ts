import type { EmbeddedPostgres } from '../../src/database/embedded-postgres';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __embedded?: EmbeddedPostgres }).__embedded?.stop();
}
