import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { DataSource } from 'typeorm';
import { DEFAULT_INSTANCE_ID } from './instance-ids';

/**
 * The instance whose database the work in progress uses. Created per request
 * (on `default`) and narrowed once the caller is known; background work runs
 * one scope per instance. Outside any scope everything uses the deployment
 * database, as a single-instance deployment always did.
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

  /** Runs work on one instance's database (background work, per-instance loops). */
  run<T>(scope: InstanceScope, work: () => T): T {
    return storage.run({ ...scope }, work);
  },

  /** Makes the current request's scope use an instance (the request's scope is mutable until the handler runs). */
  narrow(instanceId: string, dataSource: DataSource | null): void {
    const scope = storage.getStore();
    if (!scope) return;
    scope.instanceId = instanceId;
    scope.dataSource = dataSource;
  },
};

/** The scope of a configuration row: `global` (control plane) on `default`, `instance:<id>` for an instance's override. */
export function configScopeOf(instanceId: string): string {
  return instanceId === DEFAULT_INSTANCE_ID ? 'global' : `instance:${instanceId}`;
}

/**
 * Opens the request's scope. Mounted after the body parsers: they resume
 * the chain from stream callbacks, which would not carry a scope opened
 * before them.
 */
export function instanceContextMiddleware(_req: Request, _res: Response, next: NextFunction): void {
  storage.run({ instanceId: DEFAULT_INSTANCE_ID, dataSource: null }, next);
}
