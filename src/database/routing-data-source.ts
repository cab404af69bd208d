import { DataSource, EntityTarget, ObjectLiteral, Repository } from 'typeorm';
import { InstanceContext } from './instance-context';

const controlPlaneEntities = new Set<unknown>();

/**
 * Marks an entity of the control plane (accounts, sessions, API keys, SSO,
 * SCIM, the instance registry, global AI and embedding configuration): its
 * injected repository always uses the deployment database, whichever
 * instance the request is on. Every other entity lives in the instance's
 * database. (An instance database is migrated with the full schema, so
 * queries through a transaction's manager still find the tables there.)
 */
export function ControlPlaneEntity(): ClassDecorator {
  return (target) => {
    controlPlaneEntities.add(target);
  };
}

export function isControlPlaneEntity(target: unknown): boolean {
  return controlPlaneEntities.has(target);
}

const DEPLOYMENT = Symbol('deployment DataSource');

/**
 * The DataSource every module injects: a stand-in that forwards each use to
 * the DataSource of the current instance scope (InstanceContext), so
 * TransactionRunner, repositories and raw queries follow the request's
 * instance without any service passing an instance around. Repositories of
 * control-plane entities are the deployment's own.
 */
export function routingDataSource(deployment: DataSource): DataSource {
  const current = () => InstanceContext.current()?.dataSource ?? deployment;
  const repositories = new Map<unknown, Repository<ObjectLiteral>>();
  const repositoryOf = (target: EntityTarget<ObjectLiteral>): Repository<ObjectLiteral> => {
    if (isControlPlaneEntity(target)) return deployment.getRepository(target);
    let repository = repositories.get(target);
    if (!repository) {
      repository = routingRepository(deployment.getRepository(target), target);
      repositories.set(target, repository);
    }
    return repository;
  };
  return new Proxy(deployment, {
    get(target, property) {
      if (property === DEPLOYMENT) return target;
      if (property === 'getRepository') return repositoryOf;
      const dataSource = current();
      const value: unknown = Reflect.get(dataSource, property, dataSource);
      return typeof value === 'function'
        ? (value as (...args: unknown[]) => unknown).bind(dataSource)
        : value;
    },
  });
}

/** The deployment's own DataSource behind the routing one (the control plane's database). */
export function deploymentDataSource(dataSource: DataSource): DataSource {
  return ((dataSource as unknown as Record<symbol, DataSource | undefined>)[DEPLOYMENT] ??
    dataSource) as DataSource;
}

function routingRepository(
  deploymentRepository: Repository<ObjectLiteral>,
  target: EntityTarget<ObjectLiteral>,
): Repository<ObjectLiteral> {
  return new Proxy(deploymentRepository, {
    get(_deploymentRepository, property) {
      // Outside any instance scope (and on `default` inside one) it is the deployment's own.
      const scoped = InstanceContext.current()?.dataSource;
      const repository = scoped ? scoped.getRepository(target) : deploymentRepository;
      const value: unknown = Reflect.get(repository, property, repository);
      return typeof value === 'function'
        ? (value as (...args: unknown[]) => unknown).bind(repository)
        : value;
    },
  });
}
