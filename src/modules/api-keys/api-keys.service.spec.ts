import type { PreparedQueries } from '../../database/prepared-queries.runner';
import { ApiKeysQueries } from './api-keys.queries';
import { ApiKeysService } from './api-keys.service';

const KEY = `vk_${'b'.repeat(43)}`;

describe('ApiKeysService.instanceOfKey', () => {
  const queries: unknown[][] = [];
  const prepared = {
    queryOutsideTransaction: (_text: string, values: unknown[]) => {
      queries.push(values);
      return Promise.resolve(queries.length === 1 ? [{ instance_id: 'instance-1' }] : []);
    },
  } as unknown as PreparedQueries;
  // Only the prepared queries are used by this method.
  const none = undefined as never;
  const service = new ApiKeysService(none, none, none, none, none, none, prepared, new ApiKeysQueries());

  it("reads a key's instance once per process, by the key's hash, and never for what is no key", async () => {
    expect(await service.instanceOfKey(KEY)).toBe('instance-1');
    expect(await service.instanceOfKey(KEY)).toBe('instance-1');
    expect(queries).toHaveLength(1);
    expect(queries[0]).not.toContain(KEY);

    expect(await service.instanceOfKey(`vk_${'c'.repeat(43)}`)).toBeNull();
    expect(await service.instanceOfKey('vk_short')).toBeNull();
    expect(await service.instanceOfKey('eyJhbGciOiJIUzI1NiJ9.e30.sig')).toBeNull();
    expect(queries).toHaveLength(2);
  });
});
