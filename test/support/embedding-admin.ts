import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import type { TestApp } from './app';
import { bearer, TestUser } from './factories';

export const EMBEDDING_CONFIG_BASE = '/api/v1.0/admin/embedding-config';

/** The superadmin's calls on /admin/embedding-config, and a wait for the indexing work they queue. */
export function embeddingAdmin(app: () => TestApp, root: () => TestUser) {
  const http = () => app().http;
  const admin = {
    get: (path = '/') =>
      http()
        .get(EMBEDDING_CONFIG_BASE + path)
        .set(bearer(root())),
    post: (path: string, body: object = {}) =>
      http()
        .post(EMBEDDING_CONFIG_BASE + path)
        .set(bearer(root()))
        .send(body),
    patch: (body: object) => http().patch(`${EMBEDDING_CONFIG_BASE}/`).set(bearer(root())).send(body),
    delete: () => http().delete(`${EMBEDDING_CONFIG_BASE}/`).set(bearer(root())),
    /** Replaces the configuration; fails the test unless the new one is created. */
    configure: async (fields: Record<string, unknown>) => {
      await admin.delete();
      const res = await admin.post('/', fields);
      if (res.status !== 201) throw new Error(`configure: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Record<string, unknown>;
    },
    /** Events relayed and the jobs they queued (refreshes, reindexing) finished. */
    settle: async () => {
      await app().app.get(OutboxDispatcher).drain();
      await app().app.get(JobRunner).drain(60_000);
    },
  };
  return admin;
}
