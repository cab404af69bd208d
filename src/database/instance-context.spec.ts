import type { DataSource } from 'typeorm';
import { InstanceContext } from './instance-context';
import { DEFAULT_INSTANCE_ID } from './instance-ids';

const instanceDataSource = {} as DataSource;
const onDefault = { instanceId: DEFAULT_INSTANCE_ID, dataSource: null };

describe('InstanceContext', () => {
  it('runs `default` outside any scope, as a single-instance deployment always did', () => {
    expect(InstanceContext.run(onDefault, () => InstanceContext.current())).toBeUndefined();
    expect(InstanceContext.run(onDefault, () => InstanceContext.instanceId())).toBe(DEFAULT_INSTANCE_ID);
  });

  it('enters a scope for another instance, and for `default` inside it', () => {
    InstanceContext.run({ instanceId: 'i-1', dataSource: instanceDataSource }, () => {
      expect(InstanceContext.instanceId()).toBe('i-1');
      expect(InstanceContext.current()?.dataSource).toBe(instanceDataSource);
      InstanceContext.run(onDefault, () => {
        expect(InstanceContext.current()).toEqual(onDefault);
      });
    });
  });

  it("narrows a request's scope once the caller is known, for the rest of the request", async () => {
    await InstanceContext.openRequestScope(async () => {
      expect(InstanceContext.instanceId()).toBe(DEFAULT_INSTANCE_ID);
      InstanceContext.narrow('i-1', instanceDataSource);
      await Promise.resolve();
      expect(InstanceContext.current()).toEqual({ instanceId: 'i-1', dataSource: instanceDataSource });
    });
  });

  it('refuses to narrow without a scope rather than leave the request on the deployment database', () => {
    expect(() => InstanceContext.narrow('i-1', instanceDataSource)).toThrow(/No instance scope/);
  });
});
