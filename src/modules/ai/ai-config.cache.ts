import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { InstanceContext } from '../../database/instance-context';
import { DEFAULT_INSTANCE_ID } from '../../database/instance-ids';
import { deploymentDataSource } from '../../database/routing-data-source';
import { TransactionRunner } from '../../database/transaction.runner';
import { Wakeup } from '../../platform/jobs/wakeup.service';
import type { AiProvider } from './entities/ai-config.entity';
import { AiQueries } from './ai.queries';

/** The wakeup topic of a configuration change: `ai-config:<instance>:<version>`. */
const TOPIC = 'ai-config';

/** A stored provider configuration (ai_configs), as read. */
export interface ConfigRow {
  id: string;
  provider: AiProvider;
  model_name: string;
  api_key_sealed: string | null;
  api_base_url: string | null;
  temperature: number | null;
  max_tokens: number | null;
  is_enabled: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface ProfileRow {
  id: string;
  provider: AiProvider;
  model_name: string;
  temperature: number | null;
  max_tokens: number | null;
  api_key_sealed: string | null;
  api_base_url: string | null;
  fallback_profile_id: string | null;
}

export interface ActivePromptRow {
  prompt_key: string;
  version: number;
  system: string;
  template: string;
  variables: string[];
}

export interface LimitRow {
  entry_point_id: string;
  daily_tokens: string | number | null;
  monthly_tokens: string | number | null;
  daily_usd: string | number | null;
  monthly_usd: string | number | null;
}

/** What one database stores of the gateway's configuration, at one version of its counter. */
export interface AiConfigSnapshot {
  version: number;
  /** The provider configuration stored for the scope the snapshot was read for. */
  config: ConfigRow | null;
  /** Model route per feature: the profile id. */
  routes: Map<string, string>;
  profiles: Map<string, ProfileRow>;
  prompts: Map<string, ActivePromptRow>;
  budgets: Map<string, LimitRow>;
  /** Values computed once from this snapshot (opened keys, the effective configuration). */
  derived: Map<string, unknown>;
}

/** The snapshots a call on the current instance uses: its own database's and the deployment's (the global configuration). */
export interface AiConfigView {
  own: AiConfigSnapshot;
  global: AiConfigSnapshot;
}

interface Entry {
  snapshot?: AiConfigSnapshot;
  loading?: Promise<AiConfigSnapshot>;
  /** The highest version this process has heard of (signals, its own writes, direct reads). */
  known: number;
}

/** A value derived from a snapshot, computed on first use. */
export function derive<T>(snapshot: AiConfigSnapshot, key: string, compute: () => T): T {
  if (snapshot.derived.has(key)) return snapshot.derived.get(key) as T;
  const value = compute();
  snapshot.derived.set(key, value);
  return value;
}

/**
 * The AI gateway's configuration (provider configuration, model profiles
 * and routes, active prompts, budget limits) held in this process's memory,
 * one snapshot per instance database, so a gateway call reads none of it
 * from the database. Every write to those tables bumps the database's
 * `ai_config_version` in its own transaction (a statement trigger); a write
 * through `write` then signals `ai-config:<instance>:<version>` after commit
 * to every worker and replica (Wakeup: NOTIFY on PostgreSQL), and this
 * process takes note of the version at once. A snapshot is used only while
 * its version is at least the highest one heard of, so a signal arriving
 * while a snapshot is being read is not lost. When signals may be missed
 * (the listening connection is down), each use reads the counter first.
 */
@Injectable()
export class AiConfigCache implements OnModuleInit, OnModuleDestroy {
  private readonly entries = new Map<string, Entry>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly queries: AiQueries,
    private readonly tx: TransactionRunner,
    private readonly wakeup: Wakeup,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.unsubscribe.push(
      this.wakeup.onPrefix(TOPIC, (rest) => {
        const colon = rest.lastIndexOf(':');
        const version = Number(rest.slice(colon + 1));
        if (colon > 0 && Number.isSafeInteger(version)) this.observe(rest.slice(0, colon), version);
      }),
      // Versions announced while the listening connection was down were missed: read every snapshot afresh.
      this.wakeup.onRelisten(() => this.entries.clear()),
    );
  }

  onModuleDestroy(): void {
    for (const stop of this.unsubscribe.splice(0)) stop();
  }

  /** The current instance's snapshot and the deployment's (the same one on `default`). */
  async view(): Promise<AiConfigView> {
    const instanceId = InstanceContext.instanceId();
    const deployment = () => deploymentDataSource(this.dataSource).manager;
    const global = await this.snapshotOf(DEFAULT_INSTANCE_ID, 'global', deployment);
    if (instanceId === DEFAULT_INSTANCE_ID) return { own: global, global };
    const own = await this.snapshotOf(instanceId, `instance:${instanceId}`, () => this.dataSource.manager);
    return { own, global };
  }

  /**
   * Runs a configuration write in one transaction of the current instance's
   * database and makes it seen: at once in this process, after commit in
   * every other one.
   */
  async write<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    const instanceId = InstanceContext.instanceId();
    const { result, version } = await this.tx.run(async (em) => {
      const result = await work(em);
      const version = await this.queries.configVersion(em);
      this.wakeup.signal(em, `${TOPIC}:${instanceId}:${version}`);
      return { result, version };
    });
    this.observe(instanceId, version);
    return result;
  }

  /** Takes note that `instanceId`'s database is at `version` or later. */
  observe(instanceId: string, version: number): void {
    const entry = this.entryOf(instanceId);
    if (version > entry.known) entry.known = version;
  }

  private entryOf(instanceId: string): Entry {
    let entry = this.entries.get(instanceId);
    if (!entry) {
      entry = { known: 0 };
      this.entries.set(instanceId, entry);
    }
    return entry;
  }

  private async snapshotOf(
    instanceId: string,
    scope: string,
    manager: () => EntityManager,
  ): Promise<AiConfigSnapshot> {
    const entry = this.entryOf(instanceId);
    if (!this.wakeup.hearsEverySignal())
      this.observe(instanceId, await this.queries.configVersion(manager()));
    // A second read at most: a version heard of that no read reaches (a stray signal) is not chased forever.
    for (let attempt = 0; ; attempt++) {
      if (entry.snapshot && entry.snapshot.version >= entry.known) return entry.snapshot;
      const loading = (entry.loading ??= this.load(scope, manager()));
      let snapshot: AiConfigSnapshot;
      try {
        snapshot = await loading;
      } finally {
        if (entry.loading === loading) entry.loading = undefined;
      }
      if (!entry.snapshot || snapshot.version > entry.snapshot.version) entry.snapshot = snapshot;
      if (attempt >= 1 && entry.snapshot.version < entry.known) entry.known = entry.snapshot.version;
    }
  }

  private async load(scope: string, em: EntityManager): Promise<AiConfigSnapshot> {
    const row = await this.queries.configSnapshot<{
      version: string;
      config: ConfigRow | null;
      routes: Record<string, string>;
      profiles: ProfileRow[];
      prompts: ActivePromptRow[];
      budgets: LimitRow[];
    }>(em, scope);
    return {
      version: Number(row.version),
      config: row.config,
      routes: new Map(Object.entries(row.routes)),
      profiles: new Map(row.profiles.map((p) => [p.id, p])),
      prompts: new Map(row.prompts.map((p) => [p.prompt_key, p])),
      budgets: new Map(row.budgets.map((b) => [b.entry_point_id, b])),
      derived: new Map(),
    };
  }
}
