import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { CredentialsService, OpenedCredential } from './credentials.service';
import type { ToolProvider } from './entities/tool-provider.entity';
import { commandCandidates, SpawnSpec } from './mcp-spawn';

const FOUND_REUSE_MS = 10_000;
/** From this age on, a lookup that found the executable still stands but is renewed in the background. */
const FOUND_RENEW_MS = 6_000;

interface Found {
  /** When the lookup that found it started. */
  at: number;
  renewing: boolean;
}

/** A reason a provider cannot run, as listed in readiness diagnostics: a stable code and a sentence. */
export interface RuntimeProblem {
  code: 'provider_inactive' | 'credential_inactive' | 'credential_incomplete' | 'missing_executable';
  message: string;
}

/** What of a provider its process needs: a loaded entity, or the same columns read by a raw statement. */
export type RuntimeProvider = Pick<
  ToolProvider,
  'id' | 'isActive' | 'commandArgv' | 'cwd' | 'env' | 'secretEnvVar' | 'credentialId'
>;

export interface PreparedProvider {
  /** Null when a credential problem keeps the process from getting its secret. */
  spec: SpawnSpec | null;
  problems: RuntimeProblem[];
}

/**
 * Turns a stored provider into what its process needs (the spawn spec with
 * the opened secret) and lists what keeps it from running; discovery, the
 * readiness check and tool calls share it.
 */
@Injectable()
export class ProviderRuntime {
  /** Command and cwd -> the last lookup that found the executable. */
  private readonly found = new Map<string, Found>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly credentials: CredentialsService,
  ) {}

  /**
   * `executable`: `fresh` looks the command up now (discovery, diagnostics);
   * `cached` reuses a lookup that found it within the last 10 s (readiness
   * before a call); `skip` leaves it to the spawn (a call on a warm session).
   * The caller may pass the credential it loaded with the provider, saving a query.
   */
  async prepare(
    provider: RuntimeProvider,
    em: EntityManager,
    executable: 'fresh' | 'cached' | 'skip' = 'fresh',
    /** The provider's credential when the caller loaded it already (null: it has none). */
    loaded?: OpenedCredential | null,
  ): Promise<PreparedProvider> {
    const problems: RuntimeProblem[] = [];
    if (!provider.isActive)
      problems.push({ code: 'provider_inactive', message: 'the tool provider is inactive' });
    let secret: SpawnSpec['secret'] = null;
    let secretUsable = true;
    if (provider.secretEnvVar !== null) {
      let credential = loaded;
      if (credential === undefined) {
        credential = provider.credentialId ? await this.credentials.open(provider.credentialId, em) : null;
      }
      if (!credential || credential.secret === null) {
        secretUsable = false;
        problems.push({
          code: 'credential_incomplete',
          message: credential
            ? "the provider's credential has no secret stored"
            : `the provider expects a secret in ${provider.secretEnvVar} but has no credential`,
        });
      } else if (!credential.isActive) {
        secretUsable = false;
        problems.push({ code: 'credential_inactive', message: "the provider's credential is inactive" });
      } else {
        secret = { variable: provider.secretEnvVar, value: credential.secret };
      }
    }
    if (executable !== 'skip' && !(await this.executableExists(provider, executable === 'cached'))) {
      problems.push({
        code: 'missing_executable',
        message: `the provider's executable was not found: ${provider.commandArgv[0]}`,
      });
    }
    const spec: SpawnSpec | null = secretUsable
      ? { providerId: provider.id, argv: provider.commandArgv, cwd: provider.cwd, env: provider.env, secret }
      : null;
    return { spec, problems };
  }

  /**
   * Whether the command resolves (on PATH, or relative to the working
   * directory) to an executable file. With `reuse`, a lookup that found it
   * within 10 s stands, and one past 6 s is renewed in the background: calls
   * do not wait for the file system, and none relies on a lookup older than 10 s.
   */
  private async executableExists(provider: RuntimeProvider, reuse: boolean): Promise<boolean> {
    const key = JSON.stringify([provider.commandArgv[0], provider.cwd]);
    const found = this.found.get(key);
    if (reuse && found) {
      const age = Date.now() - found.at;
      if (age < FOUND_REUSE_MS) {
        if (age >= FOUND_RENEW_MS && !found.renewing) {
          found.renewing = true;
          void this.renewLookup(provider, key, found);
        }
        return true;
      }
    }
    const startedAt = Date.now();
    const exists = await this.lookUp(provider);
    if (exists) this.found.set(key, { at: startedAt, renewing: false });
    else this.found.delete(key);
    return exists;
  }

  /** A background lookup: it counts only if no other lookup replaced `found` meanwhile. */
  private async renewLookup(provider: RuntimeProvider, key: string, found: Found): Promise<void> {
    const startedAt = Date.now();
    const exists = await this.lookUp(provider).catch(() => false);
    if (this.found.get(key) !== found) return;
    if (exists) this.found.set(key, { at: startedAt, renewing: false });
    else this.found.delete(key);
  }

  private async lookUp(provider: RuntimeProvider): Promise<boolean> {
    if (provider.cwd !== null) {
      const dir = await stat(resolve(process.cwd(), provider.cwd)).catch(() => null);
      if (!dir?.isDirectory()) return false;
    }
    for (const candidate of commandCandidates(
      provider.commandArgv[0],
      provider.cwd,
      this.config.toolProviders.path,
    )) {
      const file = await stat(candidate).catch(() => null);
      if (
        file?.isFile() &&
        (await access(candidate, constants.X_OK).then(
          () => true,
          () => false,
        ))
      )
        return true;
    }
    return false;
  }
}
