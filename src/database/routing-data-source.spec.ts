import type { DataSource } from 'typeorm';
import { QueryFailedError } from 'typeorm';
import { InstanceContext } from './instance-context';
import { isConnectionFailure } from '../common/errors/postgres-error.mapper';
import { ControlPlaneEntity, deploymentDataSource, routingDataSource } from './routing-data-source';

@ControlPlaneEntity()
class Account {}
class Space {}

/** A stand-in DataSource: enough surface for the router (a name, repositories, a query). */
function fakeDataSource(name: string): DataSource {
  const repositories = new Map<unknown, { source: string; find(): string }>();
  return {
    name,
    getRepository(target: unknown) {
      let repository = repositories.get(target);
      if (!repository) {
        repository = {
          source: name,
          find() {
            return `${this.source}:${(target as { name: string }).name}`;
          },
        };
        repositories.set(target, repository);
      }
      return repository;
    },
    query(sql: string) {
      return `${name} ran ${sql}`;
    },
  } as unknown as DataSource;
}

// The fakes carry a name to tell them apart (a real DataSource has none).
const nameOf = (dataSource: DataSource) => (dataSource as unknown as { name: string }).name;

describe('routingDataSource', () => {
  const deployment = fakeDataSource('deployment');
  const instance = fakeDataSource('instance');
  const routing = routingDataSource(deployment);
  const onInstance = <T>(work: () => T) =>
    InstanceContext.run({ instanceId: 'i-1', dataSource: instance }, work);

  it('uses the deployment database outside any instance scope', () => {
    expect(nameOf(routing)).toBe('deployment');
    expect(routing.query('SELECT 1')).toBe('deployment ran SELECT 1');
    expect(routing.getRepository(Space).find()).toBe('deployment:Space');
  });

  it('follows the scope for everything but control-plane entities', () => {
    const spaces = routing.getRepository(Space);
    const accounts = routing.getRepository(Account);
    onInstance(() => {
      expect(nameOf(routing)).toBe('instance');
      expect(routing.query('SELECT 1')).toBe('instance ran SELECT 1');
      // A repository injected once follows each request's scope.
      expect(spaces.find()).toBe('instance:Space');
      expect(accounts.find()).toBe('deployment:Account');
    });
    expect(spaces.find()).toBe('deployment:Space');
  });

  it('keeps the scope across awaits and hands the deployment DataSource to whoever asks for it', async () => {
    await onInstance(async () => {
      await Promise.resolve();
      expect(nameOf(routing)).toBe('instance');
      expect(deploymentDataSource(routing)).toBe(deployment);
    });
    expect(deploymentDataSource(deployment)).toBe(deployment);
  });
});

describe('isConnectionFailure', () => {
  const withCode = (message: string, code?: string) => Object.assign(new Error(message), { code });

  it('recognises refused, lost and refused-by-the-server connections', () => {
    expect(isConnectionFailure(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isConnectionFailure(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isConnectionFailure(withCode('terminating connection due to administrator command', '57P01')),
    ).toBe(true);
    expect(
      isConnectionFailure(withCode('database "x" is not currently accepting connections', '55000')),
    ).toBe(true);
    expect(
      isConnectionFailure(new QueryFailedError('SELECT 1', [], withCode('connection failure', '08006'))),
    ).toBe(true);
    expect(isConnectionFailure(withCode('sorry, too many clients already', '53300'))).toBe(true);
    expect(isConnectionFailure(withCode('database "gone" does not exist', '3D000'))).toBe(true);
  });

  it('leaves statement errors alone', () => {
    expect(isConnectionFailure(new QueryFailedError('SELECT', [], withCode('duplicate key', '23505')))).toBe(
      false,
    );
    expect(isConnectionFailure(new Error('something else'))).toBe(false);
    expect(isConnectionFailure('not an error')).toBe(false);
  });
});
