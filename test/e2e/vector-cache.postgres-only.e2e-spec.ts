import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { EmbeddingConfigService } from '../../src/modules/embeddings/embedding-config.service';
import { producerOf } from '../../src/modules/embeddings/embedding-config.types';
import { SemanticIndexService } from '../../src/modules/embeddings/semantic-index.service';
import { VectorCache } from '../../src/modules/embeddings/vector.cache';
import { realArrayLiteral } from '../../src/modules/embeddings/vector-math';
import { startApp, TestApp, workerDatabaseUrl } from '../support/app';
import { dbQuery } from '../support/db';
import { createSpace, createUser, TestUser } from '../support/factories';
import { eventually } from '../support/server-process';

/**
 * Without pgvector, nearest queries read an in-process copy of the vectors
 * (VectorCache). Another replica's writes reach it through the database
 * alone: these tests write with a connection of their own, as one would.
 */
describe('the in-memory vector copy (PostgreSQL without pgvector)', () => {
  let t: TestApp;
  let index: SemanticIndexService;
  let owner: TestUser;
  let writer: Client;
  /** The configuration's fingerprint, which the vectors written here carry, as the app's own would. */
  let fingerprint: string;

  const nearestIds = async (text: string, spaceIds: string[]) => {
    const vector = (await index.embedQuery(text))!;
    return (await index.nearest({ vector, types: ['product'], spaceIds, limit: 5 })).map((hit) => hit.id);
  };
  const writeVector = async (client: Client, id: string, spaceId: string, text: string) => {
    const vector = (await index.embedQuery(text))!;
    await client.query(
      `INSERT INTO item_embeddings (item_type, item_id, space_id, dimensions, fingerprint, embedding, content_hash, index_version, source_updated_at)
       VALUES ('product', $1, $2, $3, $5, $4::real[], 'test', 'v1', now())`,
      [id, spaceId, vector.length, realArrayLiteral(vector), fingerprint],
    );
  };

  beforeAll(async () => {
    t = await startApp();
    index = t.app.get(SemanticIndexService);
    ({ fingerprint } = producerOf(await t.app.get(EmbeddingConfigService).effective()));
    owner = await createUser(t.http);
    writer = new Client({ connectionString: workerDatabaseUrl() });
    await writer.connect();
  });
  afterAll(async () => {
    await writer.end();
    await t.close();
  });

  it('sees a vector whose transaction began before a read and committed after it', async () => {
    const space = await createSpace(t.http, owner);
    expect(await nearestIds('glacier ice core samples', [space.id])).toEqual([]);
    const id = randomUUID();
    const later = randomUUID();
    const second = new Client({ connectionString: workerDatabaseUrl() });
    await second.connect();
    try {
      await writer.query('BEGIN');
      await writeVector(writer, id, space.id, 'glacier ice core samples');
      // A later transaction commits first, so the read below sees transaction ids past the writer's.
      await writeVector(second, later, space.id, 'glacier meltwater flow');
    } finally {
      await second.end();
    }
    // A read while the writer's transaction runs: its row is invisible, and must not be skipped later.
    expect(await nearestIds('glacier ice core samples', [space.id])).toEqual([later]);
    await writer.query('COMMIT');
    expect(await nearestIds('glacier ice core samples', [space.id])).toEqual([id, later]);
  });

  it('reads the changes in the background, so a search after many writes finds them already read', async () => {
    const space = await createSpace(t.http, owner);
    await nearestIds('tidal range', [space.id]);
    const cache = t.app.get(VectorCache);
    const before = cache.loaded()!.size;
    for (const text of ['tidal range survey', 'tidal gauge readings', 'tidal current model'])
      await writeVector(writer, randomUUID(), space.id, text);
    // No search meanwhile: only the background follower reads them.
    await eventually(
      'the copy to hold the new vectors',
      async () => cache.loaded()!.size === before + 3,
      10_000,
    );
  });

  it('follows a move to another space, a removal and the clearing of every vector', async () => {
    const space = await createSpace(t.http, owner);
    const other = await createSpace(t.http, owner);
    const moved = randomUUID();
    const removed = randomUUID();
    await writeVector(writer, moved, space.id, 'volcanic ash dispersion');
    await writeVector(writer, removed, space.id, 'volcanic ash sampling');
    expect((await nearestIds('volcanic ash', [space.id])).sort()).toEqual([moved, removed].sort());

    await writer.query(`UPDATE item_embeddings SET space_id = $1 WHERE item_id = $2`, [other.id, moved]);
    await writer.query(`DELETE FROM item_embeddings WHERE item_id = $1`, [removed]);
    expect(await nearestIds('volcanic ash', [space.id])).toEqual([]);
    expect(await nearestIds('volcanic ash', [other.id])).toEqual([moved]);

    await writer.query(`DELETE FROM item_embeddings`);
    expect(await nearestIds('volcanic ash', [space.id, other.id])).toEqual([]);
  });

  it('reads a large change in pages', async () => {
    const space = await createSpace(t.http, owner);
    const cache = t.app.get(VectorCache);
    const vector = (await index.embedQuery('seismic station'))!;
    const producer = { dimensions: vector.length, fingerprint };
    const before = (await cache.current(producer)).size;
    // One transaction, one transaction id: the pages are cut within it, by item.
    await writer.query(
      `INSERT INTO item_embeddings (item_type, item_id, space_id, dimensions, fingerprint, embedding, content_hash, index_version, source_updated_at)
       SELECT 'product', gen_random_uuid(), $1, $2, $4, $3::real[], 'test', 'v1', now() FROM generate_series(1, 5001)`,
      [space.id, vector.length, realArrayLiteral(vector), fingerprint],
    );
    expect((await cache.current(producer)).size).toBe(before + 5_001);
    const hits = await index.nearest({ vector, types: ['product'], spaceIds: [space.id], limit: 3 });
    expect(hits.map((hit) => hit.score)).toEqual([1, 1, 1].map((one) => expect.closeTo(one, 5)));
  });

  it('keeps removals a day, then purges them', async () => {
    const space = await createSpace(t.http, owner);
    const id = randomUUID();
    await writeVector(writer, id, space.id, 'tidal gauge readings');
    await writer.query(`DELETE FROM item_embeddings WHERE item_id = $1`, [id]);
    await dbQuery(
      `UPDATE item_embedding_removals SET removed_at = now() - interval '25 hours' WHERE item_id <> $1`,
      [id],
    );
    await t.app.get(VectorCache).purgeRemovals();
    expect(await dbQuery(`SELECT item_id FROM item_embedding_removals`)).toEqual([{ item_id: id }]);
  });
});
