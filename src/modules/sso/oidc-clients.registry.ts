import { Inject, Injectable } from '@nestjs/common';
import type * as oidc from 'openid-client';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { SafeHttpClient } from '../../platform/outbound-http/safe-http.client';
import { SsoProvider } from './entities/sso-provider.entity';
import { clientSecretContext, isLoopbackHost } from './sso-provider-secrets';

const REQUEST_TIMEOUT_SECONDS = 10;
const MAX_ANSWER_BYTES = 1024 * 1024;
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

let library: Promise<typeof oidc> | undefined;

/** openid-client, loaded on the first OIDC use: a deployment without OIDC never loads it (issue 28). */
export function openidClient(): Promise<typeof oidc> {
  return (library ??= import('openid-client'));
}

/**
 * openid-client Configurations (discovery + client authentication), one per
 * provider version: the cache key carries `updated_at`, so a worker that
 * missed the invalidation of an update still never uses stale settings.
 */
@Injectable()
export class OidcClients {
  private readonly cache = new Map<string, { version: number; config: Promise<oidc.Configuration> }>();

  constructor(
    @Inject(APP_CONFIG) private readonly appConfig: AppConfig,
    private readonly box: SecretBox,
    private readonly http: SafeHttpClient,
  ) {}

  configuration(provider: SsoProvider): Promise<oidc.Configuration> {
    const version = provider.updatedAt.getTime();
    const cached = this.cache.get(provider.id);
    if (cached && cached.version === version) return cached.config;
    const config = this.discover(provider);
    this.cache.set(provider.id, { version, config });
    // A failed discovery (the IdP was down) is retried on the next login.
    config.catch(() => {
      if (this.cache.get(provider.id)?.config === config) this.cache.delete(provider.id);
    });
    return config;
  }

  invalidate(providerId: string): void {
    this.cache.delete(providerId);
  }

  private async discover(provider: SsoProvider): Promise<oidc.Configuration> {
    const client = await openidClient();
    const issuer = new URL(provider.oidcIssuer!);
    const secret = provider.oidcClientSecretSealed
      ? this.box.open(provider.oidcClientSecretSealed, clientSecretContext(provider.id))
      : null;
    // Plain http only to a loopback issuer, and only where private targets are allowed (development, tests).
    const insecure =
      issuer.protocol === 'http:' &&
      this.appConfig.allowPrivateNetworkTargets &&
      isLoopbackHost(issuer.hostname);
    return client.discovery(
      issuer,
      provider.oidcClientId!,
      undefined,
      secret ? client.ClientSecretBasic(secret) : client.None(),
      {
        timeout: REQUEST_TIMEOUT_SECONDS,
        execute: insecure ? [client.allowInsecureRequests] : [],
        [client.customFetch]: this.safeFetch,
      },
    );
  }

  /**
   * Every request to the identity provider (discovery, token, JWKS, UserInfo)
   * goes through the SSRF-safe client: a discovery document naming an
   * internal or metadata address cannot make the server call it.
   */
  private readonly safeFetch: oidc.CustomFetch = async (url, options) => {
    const answer = await this.http.send(url, {
      method: options.method === 'POST' ? 'POST' : 'GET',
      headers: options.headers,
      body: options.body === undefined || options.body === null ? undefined : String(options.body),
      timeoutMs: REQUEST_TIMEOUT_SECONDS * 1000,
      maxBodyBytes: MAX_ANSWER_BYTES,
      kind: 'sso',
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value])
        headers.append(name, item);
    }
    return new Response(NULL_BODY_STATUSES.has(answer.status) ? null : answer.bodySnippet, {
      status: answer.status,
      headers,
    });
  };
}
