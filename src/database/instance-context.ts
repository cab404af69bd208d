import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource } from 'typeorm';
import { DEFAULT_INSTANCE_ID } from './instance-ids';

/**
 * The instance whose database the work in progress uses. Opened for a request
 * whose credential may reach another instance (instance-scope.middleware.ts)
 * and narrowed once the caller is known; background work on another instance
 * runs in that instance's scope. Outside any scope everything uses the
 * deployment database, as a single-instance deployment always did, and that
 * is how `default` is served: on Node 20 the storage, once entered, hooks
 * every promise of the process, so a deployment with no other instance never
 * enters it.
 */
export interface InstanceScope {
  instanceId: string;
  /** The instance's DataSource; null means the deployment's own. */
  dataSource: DataSource | null;
}

const storage = new AsyncLocalStorage<InstanceScope>();

export const InstanceContext = {
  current(): InstanceScope | undefined {
    return storage.getStore();
  },

  /** The instance of the work in progress (`default` outside any scope). */
  instanceId(): string {
    return storage.getStore()?.instanceId ?? DEFAULT_INSTANCE_ID;
  },

  /** Opens a request's scope, on `default` until the caller is known (narrow). */
  openRequestScope<T>(work: () => T): T {
    return storage.run({ instanceId: DEFAULT_INSTANCE_ID, dataSource: null }, work);
  },

  /** Runs work on one instance's database (background work, per-instance loops). */
  run<T>(scope: InstanceScope, work: () => T): T {
    // Outside any scope is `default` already.
    if (isDeploymentScope(scope) && storage.getStore() === undefined) return work();
    return storage.run({ ...scope }, work);
  },

  /**
   * Makes the current request's scope use an instance (the request's scope is
   * mutable until the handler runs). Without a scope the request would stay on
   * the deployment database, so that is refused rather than served from there.
   */
  narrow(instanceId: string, dataSource: DataSource | null): void {
    const scope = storage.getStore();
    if (!scope) throw new Error(`No instance scope to narrow to instance ${instanceId}`);
    scope.instanceId = instanceId;
    scope.dataSource = dataSource;
  },
};

/** The scope of a configuration row: `global` (control plane) on `default`, `instance:<id>` for an instance's override. */
export function configScopeOf(instanceId: string): string {
  return instanceId === DEFAULT_INSTANCE_ID ? 'global' : `instance:${instanceId}`;
}

function isDeploymentScope(scope: InstanceScope): boolean {
  return scope.instanceId === DEFAULT_INSTANCE_ID && scope.dataSource === null;
}
