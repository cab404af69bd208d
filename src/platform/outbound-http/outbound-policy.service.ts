import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import { FieldError, ValidationFailed } from '../../common/errors/domain-error';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { addressVerdict } from './address-policy';
import { isChatPlatformHost } from './chat-hosts';
import { HOST_RESOLVER, HostResolver } from './host-resolver';
import {
  checkHost,
  checkUrl,
  isRefusal,
  normalizeHost,
  OutboundRefusal,
  OutboundTarget,
  TargetRules,
} from './outbound-url-policy';

/**
 * The kinds of outbound target, each with its rules:
 * - `webhook`, `web_search`: public HTTPS; loopback and private over http too with ALLOW_PRIVATE_NETWORK_TARGETS;
 * - `ai_provider` (AI, model profiles, embeddings): public HTTPS; a TRUSTED_AI_HOSTS host over http and on any
 *   address, whatever ALLOW_PRIVATE_NETWORK_TARGETS says;
 * - `sso` (OIDC issuer and discovered endpoints, SAML entry point): public HTTPS; with
 *   ALLOW_PRIVATE_NETWORK_TARGETS, private hosts too and plain http to a loopback host;
 * - `database` (connector hosts, no scheme): public hosts; private ones with ALLOW_PRIVATE_NETWORK_TARGETS;
 * - `chat` (chat channels): HTTPS to a chat platform's webhook hosts (chat-hosts.ts) only; with
 *   ALLOW_PRIVATE_NETWORK_TARGETS any host as for `webhook` (local receivers in tests).
 */
export type OutboundKind = 'webhook' | 'web_search' | 'ai_provider' | 'sso' | 'database' | 'chat';

/** How long a save waits on DNS before taking the name as not resolving (the connection checks it again). */
const SAVE_RESOLVE_TIMEOUT_MS = 3000;

/** One URL or host field refused by the outbound policy: a 422 naming the field, with the reason code. */
export class OutboundTargetRefused extends ValidationFailed {
  constructor(field: string, refusal: OutboundRefusal) {
    super([outboundFieldError(field, refusal)]);
  }
}

export function outboundFieldError(field: string, refusal: OutboundRefusal): FieldError {
  return { field, message: `${field} is refused: ${refusal.message}.`, reason: refusal.reason };
}

/** The one outbound URL and host policy (README, "Outbound requests"), at save time and at connection time. */
@Injectable()
export class OutboundPolicy {
  private readonly allowPrivate: boolean;
  private readonly trustedHosts: Set<string>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(HOST_RESOLVER) private readonly resolver: HostResolver,
  ) {
    this.allowPrivate = config.allowPrivateNetworkTargets;
    this.trustedHosts = new Set(
      config.ai.trustedHosts.map((host) => normalizeHost(host)).filter((host) => typeof host === 'string'),
    );
  }

  /** The rules of a kind of target on a (normalised) host. */
  rules(kind: OutboundKind, host: string): TargetRules {
    switch (kind) {
      case 'ai_provider':
        return this.trustedHosts.has(host)
          ? { allowPrivate: true, plainHttp: 'always' }
          : { allowPrivate: false, plainHttp: 'never' };
      case 'sso':
        return { allowPrivate: this.allowPrivate, plainHttp: this.allowPrivate ? 'loopback' : 'never' };
      case 'database':
        return { allowPrivate: this.allowPrivate, plainHttp: 'never' };
      default:
        return { allowPrivate: this.allowPrivate, plainHttp: this.allowPrivate ? 'always' : 'never' };
    }
  }

  /** Checks a URL by its text alone (no DNS): the target with its rules, or the refusal. */
  checkUrlText(raw: string, kind: OutboundKind): (OutboundTarget & { rules: TargetRules }) | OutboundRefusal {
    // The host decides the rules (a trusted AI host), so it is read first, then everything is checked under them.
    let host = '';
    try {
      const normalized = normalizeHost(new URL(raw).hostname);
      if (!isRefusal(normalized)) host = normalized;
    } catch {
      // checkUrl says why.
    }
    const rules = this.rules(kind, host);
    const checked = checkUrl(raw, rules);
    if (isRefusal(checked)) return checked;
    // Checked here rather than at save only, so that a redirect cannot take a chat message elsewhere either.
    if (kind === 'chat' && !this.allowPrivate && !isChatPlatformHost(checked.host)) {
      return { reason: 'host_not_allowed', message: `${checked.host} is not a chat platform's webhook host` };
    }
    return { ...checked, rules };
  }

  /** Save time: null when the URL may be stored, else why not (its host resolved and every address checked). */
  async urlRefusal(raw: string, kind: OutboundKind): Promise<OutboundRefusal | null> {
    const checked = this.checkUrlText(raw, kind);
    if (isRefusal(checked)) return checked;
    return this.resolvedRefusal(checked.host, checked.rules);
  }

  /** Save time: the URL field, or a 422 naming it. */
  async requireUrl(field: string, raw: string, kind: OutboundKind): Promise<void> {
    const refused = await this.urlRefusal(raw, kind);
    if (refused) throw new OutboundTargetRefused(field, refused);
  }

  /** Save time: the normalised host of a host field, or the refusal. */
  async hostVerdict(raw: string, kind: OutboundKind): Promise<string | OutboundRefusal> {
    const host = normalizeHost(raw);
    if (isRefusal(host)) return host;
    const rules = this.rules(kind, host);
    const checked = checkHost(host, rules);
    if (isRefusal(checked)) return checked;
    return (await this.resolvedRefusal(checked, rules)) ?? checked;
  }

  /**
   * Connection time: every address of `host` (a literal one as it is), each
   * allowed by the rules, else an error to fail the connection with.
   */
  async resolveAllowed(host: string, rules: TargetRules): Promise<LookupAddress[] | OutboundRefusal> {
    const literal = isIP(host);
    const addresses = literal ? [{ address: host, family: literal }] : await this.resolver(host);
    if (!addresses.length) return { reason: 'invalid_host', message: `${host} does not resolve` };
    for (const { address } of addresses) {
      const refused = addressVerdict(address, rules);
      if (refused) return { reason: refused.reason, message: `${host} resolves to ${refused.message}` };
    }
    return addresses;
  }

  /** A name that resolves must resolve only to allowed addresses; one that does not (yet) is left to connection time. */
  private async resolvedRefusal(host: string, rules: TargetRules): Promise<OutboundRefusal | null> {
    if (isIP(host)) return null;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<LookupAddress[]>((done) => {
      timer = setTimeout(() => done([]), SAVE_RESOLVE_TIMEOUT_MS);
      timer.unref();
    });
    let addresses: LookupAddress[];
    try {
      addresses = await Promise.race([this.resolver(host), timeout]);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
    for (const { address } of addresses) {
      const refused = addressVerdict(address, rules);
      if (refused) return { reason: refused.reason, message: `${host} resolves to ${refused.message}` };
    }
    return null;
  }
}
