import type TestAgent from 'supertest/lib/agent';
import { freshDatabase } from './database';
import { bearer, TestUser } from './factories';

export interface TestInstance {
  id: string;
  databaseUrl: string;
  /** An access token of the superadmin switched onto the instance. */
  token: string;
}

/** A new instance on a fresh database of this name, and the superadmin's token on it. */
export async function createInstance(
  http: TestAgent,
  root: TestUser,
  fields: { slug: string; name: string; database: string },
): Promise<TestInstance> {
  const url = await freshDatabase(fields.database);
  const created = await http
    .post('/api/v1.0/admin/instances')
    .set(bearer(root))
    .send({ slug: fields.slug, name: fields.name, database_url: url });
  if (created.status !== 201) throw new Error(`instance: ${created.status} ${JSON.stringify(created.body)}`);
  const switched = await http
    .post('/api/v1.0/auth/switch-instance')
    .set(bearer(root))
    .send({ instance: created.body.id })
    .expect(200);
  return { id: created.body.id, databaseUrl: url, token: switched.body.access_token };
}
