import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { Conflict, FieldError, NotFound, ValidationFailed } from '../../common/errors/domain-error';
import { Page } from '../../common/http/page.dto';
import { TransactionRunner } from '../../database/transaction.runner';
import { AuditService } from '../../platform/audit/audit.service';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { OutboundPolicy, outboundFieldError } from '../../platform/outbound-http/outbound-policy.service';
import { CreateSsoProviderDto, SsoProviderResponse, UpdateSsoProviderDto } from './dto/sso-provider.dto';
import { SsoProvider } from './entities/sso-provider.entity';
import { OidcClients } from './oidc-clients.registry';
import { DEFAULT_NAME_ID_FORMAT } from './saml-clients.registry';
import { normalizeCertificate } from './idp-certificate';
import { DEFAULT_OIDC_SCOPES, toSsoProviderResponse } from './sso.mapper';
import { clientSecretContext, spKeyContext } from './sso-provider-secrets';
import { SsoQueries } from './sso.queries';
import { SsoUrls } from './sso-urls.service';

// `unspecified` is kept as null, the default: the SP metadata then lists no format (see SamlClients.metadata).
const storedNameIdFormat = (format: string | null | undefined) =>
  !format || format === DEFAULT_NAME_ID_FORMAT ? null : format;

// The fields the request left out are undefined (or absent, for those a DTO derives).
const givenFields = (dto: object) =>
  Object.entries(dto)
    .filter(([, value]) => value !== undefined)
    .map(([key]) => key);

/** Providers CRUD (superadmin routes); the login flows read providers through `findUsable`. */
@Injectable()
export class SsoProvidersService {
  constructor(
    @InjectRepository(SsoProvider) private readonly providers: Repository<SsoProvider>,
    private readonly tx: TransactionRunner,
    private readonly audit: AuditService,
    private readonly box: SecretBox,
    private readonly outbound: OutboundPolicy,
    private readonly oidcClients: OidcClients,
    private readonly urls: SsoUrls,
    private readonly queries: SsoQueries,
  ) {}

  async list(skip: number, limit: number): Promise<Page<SsoProviderResponse>> {
    const [items, total] = await this.withSecrets(this.providers.createQueryBuilder('p'))
      .orderBy('p.createdAt', 'ASC')
      .addOrderBy('p.id', 'ASC')
      .skip(skip)
      .take(limit)
      .getManyAndCount();
    return { items: items.map((p) => toSsoProviderResponse(p, this.urls)), total };
  }

  async get(id: string): Promise<SsoProviderResponse> {
    return toSsoProviderResponse(await this.require(this.providers.manager, id), this.urls);
  }

  async create(actor: Actor, dto: CreateSsoProviderDto): Promise<SsoProviderResponse> {
    const errors: FieldError[] = [];
    const other = dto.protocol === 'oidc' ? 'saml' : 'oidc';
    if (!dto[dto.protocol]) {
      errors.push({
        field: dto.protocol,
        message: `${dto.protocol} is required for a ${dto.protocol} provider`,
      });
    }
    if (dto[other]) {
      errors.push({ field: other, message: `${other} applies only to ${other} providers` });
    }
    const id = randomUUID();
    const provider = this.providers.create({
      id,
      name: dto.name,
      protocol: dto.protocol,
      isEnabled: dto.is_enabled ?? true,
      domains: [...new Set(dto.domains ?? [])],
      defaultRole: dto.default_role ?? 'user',
      jitProvisioning: dto.jit_provisioning ?? false,
      oidcIssuer: null,
      oidcClientId: null,
      oidcClientSecretSealed: null,
      oidcScopes: null,
      samlEntryPoint: null,
      samlIssuer: null,
      samlIdpCertificate: null,
      samlSignAuthnRequests: false,
      samlIdpEntityId: null,
      samlAllowSha1Signatures: false,
      samlNameIdFormat: null,
      spCertificate: null,
      spPrivateKeySealed: null,
      createdBy: actor.userId,
    });
    if (dto.oidc && dto.protocol === 'oidc') {
      provider.oidcIssuer = dto.oidc.issuer;
      provider.oidcClientId = dto.oidc.client_id;
      provider.oidcScopes = dto.oidc.scopes ?? DEFAULT_OIDC_SCOPES;
      if (dto.oidc.client_secret) {
        provider.oidcClientSecretSealed = this.box.seal(dto.oidc.client_secret, clientSecretContext(id));
      }
    }
    if (dto.saml && dto.protocol === 'saml') {
      provider.samlEntryPoint = dto.saml.entry_point;
      provider.samlIssuer = dto.saml.issuer;
      provider.samlIdpCertificate = dto.saml.idp_certificate;
      provider.samlSignAuthnRequests = dto.saml.sign_authn_requests ?? false;
      provider.samlIdpEntityId = dto.saml.idp_entity_id ?? null;
      provider.samlAllowSha1Signatures = dto.saml.allow_sha1_signatures ?? false;
      provider.samlNameIdFormat = storedNameIdFormat(dto.saml.name_id_format);
    }
    await this.validate(provider, errors);
    if (provider.protocol === 'saml') {
      // After validation: an RSA key and its certificate cost a CPU-bound fraction of a second, which a
      // refused request should not. node-forge (behind generateSpKeyPair) is loaded on the first SAML
      // registration, not at boot (issue 28).
      const { generateSpKeyPair } = await import('./sp-keypair.js');
      const pair = generateSpKeyPair(`Verity SSO ${id}`);
      provider.spCertificate = pair.certificate;
      provider.spPrivateKeySealed = this.box.seal(pair.privateKey, spKeyContext(id));
    }
    return this.tx.run(async (em) => {
      await this.refuseDomainOverlap(em, provider);
      await em.getRepository(SsoProvider).insert(provider);
      await this.audit.record(em, actor, {
        action: 'sso_provider.created',
        resourceType: 'sso_provider',
        resourceId: id,
        details: { name: provider.name, protocol: provider.protocol, domains: provider.domains },
      });
      return toSsoProviderResponse(await this.require(em, id), this.urls);
    });
  }

  async update(actor: Actor, id: string, dto: UpdateSsoProviderDto): Promise<SsoProviderResponse> {
    const result = await this.tx.run(async (em) => {
      const provider = await this.require(em, id, true);
      const errors: FieldError[] = [];
      if (dto.oidc && provider.protocol !== 'oidc') {
        errors.push({ field: 'oidc', message: 'oidc applies only to oidc providers' });
      }
      if (dto.saml && provider.protocol !== 'saml') {
        errors.push({ field: 'saml', message: 'saml applies only to saml providers' });
      }
      if (dto.name !== undefined) provider.name = dto.name;
      if (dto.is_enabled !== undefined) provider.isEnabled = dto.is_enabled;
      if (dto.domains !== undefined) provider.domains = [...new Set(dto.domains)];
      if (dto.default_role !== undefined) provider.defaultRole = dto.default_role;
      if (dto.jit_provisioning !== undefined) provider.jitProvisioning = dto.jit_provisioning;
      if (dto.oidc && provider.protocol === 'oidc') {
        provider.oidcIssuer = dto.oidc.issuer ?? provider.oidcIssuer;
        provider.oidcClientId = dto.oidc.client_id ?? provider.oidcClientId;
        provider.oidcScopes = dto.oidc.scopes ?? provider.oidcScopes;
        if (dto.oidc.client_secret === null) provider.oidcClientSecretSealed = null;
        else if (dto.oidc.client_secret !== undefined) {
          provider.oidcClientSecretSealed = this.box.seal(dto.oidc.client_secret, clientSecretContext(id));
        }
      }
      if (dto.saml && provider.protocol === 'saml') {
        provider.samlEntryPoint = dto.saml.entry_point ?? provider.samlEntryPoint;
        provider.samlIssuer = dto.saml.issuer ?? provider.samlIssuer;
        provider.samlIdpCertificate = dto.saml.idp_certificate ?? provider.samlIdpCertificate;
        provider.samlSignAuthnRequests = dto.saml.sign_authn_requests ?? provider.samlSignAuthnRequests;
        if (dto.saml.idp_entity_id !== undefined) provider.samlIdpEntityId = dto.saml.idp_entity_id;
        provider.samlAllowSha1Signatures = dto.saml.allow_sha1_signatures ?? provider.samlAllowSha1Signatures;
        if (dto.saml.name_id_format !== undefined) {
          provider.samlNameIdFormat = storedNameIdFormat(dto.saml.name_id_format);
        }
      }
      await this.validate(provider, errors);
      await this.refuseDomainOverlap(em, provider);
      // updated_at moves on every PATCH: it also keys the cached OIDC discovery.
      await em.getRepository(SsoProvider).save({ ...provider, updatedAt: new Date() });
      await this.audit.record(em, actor, {
        action: 'sso_provider.updated',
        resourceType: 'sso_provider',
        resourceId: id,
        // Field names only: a client secret never reaches the audit log.
        details: {
          fields: givenFields(dto),
          oidc_fields: givenFields(dto.oidc ?? {}),
          saml_fields: givenFields(dto.saml ?? {}),
        },
      });
      return toSsoProviderResponse(await this.require(em, id), this.urls);
    });
    this.oidcClients.invalidate(id);
    return result;
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await this.tx.run(async (em) => {
      const provider = await this.require(em, id, true);
      await em.getRepository(SsoProvider).delete(id);
      await this.audit.record(em, actor, {
        action: 'sso_provider.deleted',
        resourceType: 'sso_provider',
        resourceId: id,
        details: { name: provider.name, protocol: provider.protocol },
      });
    });
    this.oidcClients.invalidate(id);
  }

  /** A provider with its sealed secrets, for the login flows; null when missing. */
  findWithSecrets(id: string, em: EntityManager = this.providers.manager): Promise<SsoProvider | null> {
    return this.withSecrets(em.getRepository(SsoProvider).createQueryBuilder('p'))
      .where('p.id = :id', { id })
      .getOne();
  }

  /** The enabled provider whose domains include this one. */
  findEnabledForDomain(domain: string): Promise<SsoProvider | null> {
    return this.providers
      .createQueryBuilder('p')
      .where('p.isEnabled AND p.domains @> ARRAY[:domain]::text[]', { domain })
      .orderBy('p.createdAt', 'ASC')
      .getOne();
  }

  private withSecrets<Q extends ReturnType<Repository<SsoProvider>['createQueryBuilder']>>(qb: Q): Q {
    return qb.addSelect(['p.oidcClientSecretSealed', 'p.spPrivateKeySealed']) as Q;
  }

  private async require(em: EntityManager, id: string, lock = false): Promise<SsoProvider> {
    const qb = this.withSecrets(em.getRepository(SsoProvider).createQueryBuilder('p')).where('p.id = :id', {
      id,
    });
    if (lock) qb.setLock('pessimistic_write');
    const provider = await qb.getOne();
    if (!provider) throw new NotFound('SSO provider', id);
    return provider;
  }

  private async validate(provider: SsoProvider, errors: FieldError[]): Promise<void> {
    if (provider.protocol === 'oidc' && provider.oidcIssuer !== null) {
      const refused = await this.outbound.urlRefusal(provider.oidcIssuer, 'sso');
      if (refused) errors.push(outboundFieldError('oidc.issuer', refused));
      if (!provider.oidcScopes?.includes('openid')) {
        errors.push({ field: 'oidc.scopes', message: 'oidc.scopes must include openid' });
      }
    }
    if (provider.protocol === 'saml' && provider.samlEntryPoint !== null) {
      const refused = await this.outbound.urlRefusal(provider.samlEntryPoint, 'sso');
      if (refused) errors.push(outboundFieldError('saml.entry_point', refused));
      const pem = normalizeCertificate(provider.samlIdpCertificate ?? '');
      if (pem) provider.samlIdpCertificate = pem;
      else {
        errors.push({
          field: 'saml.idp_certificate',
          message: 'saml.idp_certificate must be an X.509 certificate (PEM or base64 DER)',
        });
      }
    }
    if (errors.length) throw new ValidationFailed(errors);
  }

  /** A domain signs in through at most one enabled provider (409), checked under a lock against races. */
  private async refuseDomainOverlap(em: EntityManager, provider: SsoProvider): Promise<void> {
    if (!provider.isEnabled || !provider.domains.length) return;
    await this.queries.lockDomains(em);
    const clash = await em
      .getRepository(SsoProvider)
      .createQueryBuilder('p')
      .where('p.isEnabled AND p.id <> :id AND p.domains && ARRAY[:...domains]::text[]', {
        id: provider.id,
        domains: provider.domains,
      })
      .getOne();
    if (clash) {
      const taken = provider.domains.filter((d) => clash.domains.includes(d));
      throw new Conflict(
        `The domain${taken.length > 1 ? 's' : ''} ${taken.join(', ')} already belong${taken.length > 1 ? '' : 's'} to the enabled SSO provider "${clash.name}".`,
        'sso_domain_taken',
      );
    }
  }
}
