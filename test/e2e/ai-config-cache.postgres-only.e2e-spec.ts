import { Client } from 'pg';
import { DEFAULT_INSTANCE_ID } from '../../src/database/instance-ids';
import { AiGatewayService } from '../../src/modules/ai/ai-gateway.service';
import { AiQueries } from '../../src/modules/ai/ai.queries';
import { Wakeup } from '../../src/platform/jobs/wakeup.service';
import { AiProviderServer, startAiProviderServer } from '../support/ai-provider-server';
import { startApp, TestApp, workerDatabaseUrl } from '../support/app';
import { bearer, rootUser, TestUser } from '../support/factories';
import { eventually } from '../support/server-process';

const API = '/api/v1.0';

// Two applications on one database, as two replicas (each its own pool and listening connection):
// a configuration change made by one, or committed straight in the database and notified, reaches
// the other's memory through the LISTEN/NOTIFY channel (PostgreSQL only: the embedded database serves
// one process).
describe('AI gateway configuration across replicas (PostgreSQL)', () => {
  let provider: AiProviderServer;
  let a: TestApp;
  let b: TestApp;
  let root: TestUser;
  let db: Client;

  const modelOf = async (app: TestApp) => {
    provider.reset();
    await app.app.get(AiGatewayService).complete({
      feature: 'alert_explain',
      promptKey: 'alert_explain',
      variables: { alert: 'a', product: 'p', lineage: [], recent_runs: [], incidents: [] },
      userId: root.id,
    });
    return provider.requests[0].body.model;
  };
  const version = async () =>
    Number((await db.query('SELECT version FROM ai_config_version')).rows[0].version);

  beforeAll(async () => {
    provider = await startAiProviderServer();
    const env = {
      // DATABASE_URL makes each hold its listening connection; the replicas share their keys.
      DATABASE_URL: workerDatabaseUrl(),
      ENCRYPTION_KEY: 'a'.repeat(64),
      JWT_SECRET: 'replicas-share-this-jwt-secret-0123456789',
      TRUSTED_AI_HOSTS: provider.host,
      AI_RETRY_MAX_WAIT_MS: '20',
    };
    a = await startApp({ env });
    b = await startApp({ env });
    root = await rootUser(b.http);
    db = new Client({ connectionString: workerDatabaseUrl() });
    await db.connect();
    await b.http.delete(`${API}/admin/ai-config/`).set(bearer(root));
    await db.query('DELETE FROM ai_budgets');
    await db.query('DELETE FROM ai_model_routes');
    const created = await b.http.post(`${API}/admin/ai-config/`).set(bearer(root)).send({
      provider: 'openai_compatible',
      model_name: 'replica-v1',
      api_key: 'sk-replica-key-0123456789abcdef',
      api_base_url: provider.openaiBaseUrl,
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await b.http.delete(`${API}/admin/ai-config/`).set(bearer(root));
    await db.end();
    await a.close();
    await b.close();
    await provider.close();
  });

  it("sees a change made through another replica's API, without reading the version on its calls", async () => {
    await eventually(
      'replica A to see the configuration B created',
      async () => (await modelOf(a)) === 'replica-v1',
    );
    const versionReads = jest.spyOn(a.app.get(AiQueries), 'configVersion');
    try {
      const patched = await b.http
        .patch(`${API}/admin/ai-config/`)
        .set(bearer(root))
        .send({ model_name: 'replica-v2' });
      expect(patched.status).toBe(200);
      expect(await modelOf(b)).toBe('replica-v2');
      await eventually('replica A to see the change', async () => (await modelOf(a)) === 'replica-v2');
      expect(versionReads).not.toHaveBeenCalled();
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('sees a write committed straight in the database once a NOTIFY names its version', async () => {
    await db.query(`UPDATE ai_configs SET model_name = 'direct-v3' WHERE scope = 'global'`);
    // Nothing told the replicas: they serve their snapshot, without a configuration read.
    expect(await modelOf(a)).toBe('replica-v2');
    expect(await modelOf(b)).toBe('replica-v2');
    await db.query(`SELECT pg_notify('verity_wakeup', $1)`, [
      `ai-config:${DEFAULT_INSTANCE_ID}:${await version()}`,
    ]);
    await eventually('replica A to see the direct write', async () => (await modelOf(a)) === 'direct-v3');
    await eventually('replica B to see the direct write', async () => (await modelOf(b)) === 'direct-v3');
  });

  it('reads the version on each call once its listening connection is lost, so no change is missed', async () => {
    const listening = `(query LIKE 'LISTEN %' OR query LIKE 'SELECT pg_notify($1, topic)%')`;
    const { rowCount } = await db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND ${listening}`,
    );
    expect(rowCount).toBe(2);
    await eventually('replica A to notice', async () => !a.app.get(Wakeup).hearsEverySignal());
    await db.query(`UPDATE ai_configs SET model_name = 'unsignalled-v4' WHERE scope = 'global'`);
    expect(await modelOf(a)).toBe('unsignalled-v4');
  });

  it('listens again after the loss, serves what changed while it was deaf, then relies on signals again', async () => {
    // The previous test dropped both listening connections; a write now is seen by a replica whether or not it listens yet.
    await db.query(`UPDATE ai_configs SET model_name = 'while-deaf-v5' WHERE scope = 'global'`);
    await eventually('replica A to listen again', async () => a.app.get(Wakeup).hearsEverySignal());
    await eventually('replica B to listen again', async () => b.app.get(Wakeup).hearsEverySignal());
    expect(await modelOf(a)).toBe('while-deaf-v5');
    const versionReads = jest.spyOn(a.app.get(AiQueries), 'configVersion');
    try {
      const patched = await b.http
        .patch(`${API}/admin/ai-config/`)
        .set(bearer(root))
        .send({ model_name: 'relistened-v6' });
      expect(patched.status).toBe(200);
      await eventually('replica A to hear the change', async () => (await modelOf(a)) === 'relistened-v6');
      expect(versionReads).not.toHaveBeenCalled();
    } finally {
      jest.restoreAllMocks();
    }
  });
});
