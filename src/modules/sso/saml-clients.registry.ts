import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { CacheItem, CacheProvider, SAML } from '@node-saml/node-saml';
import { Repository } from 'typeorm';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { tokenHash } from '../../platform/crypto/tokens';
import { SsoPendingLogin } from './entities/sso-pending-login.entity';
import { SsoProvider } from './entities/sso-provider.entity';
import { spKeyContext } from './sso-provider-secrets';
import { SsoUrls } from './sso-urls.service';

export const PENDING_LOGIN_MS = 10 * 60 * 1000;
export const SAML_CLOCK_SKEW_MS = 30_000;

/** The NameID formats of SAML 2.0 core §8.3 a provider may ask for (not `entity`, which names no person, nor `encrypted`). */
export const SAML_NAME_ID_FORMATS = [
  'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:X509SubjectName',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:WindowsDomainQualifiedName',
  'urn:oasis:names:tc:SAML:2.0:nameid-format:kerberos',
  'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
] as const;
// Any IdP can answer it: the email comes from the attributes (or an emailAddress NameID if sent).
export const DEFAULT_NAME_ID_FORMAT = SAML_NAME_ID_FORMATS[0];

/** The hash a pending SAML request is stored under: its AuthnRequest ID (the response's InResponseTo). */
export const samlRequestKey = (requestId: string) => tokenHash(`saml:${requestId}`);

/**
 * node-saml's InResponseTo store over the pending-logins table, so that every
 * worker sees it. A new AuthnRequest is saved here; a response is checked
 * against the one pending request it was matched to beforehand (no second
 * read), and that request is consumed by the login's own transaction
 * (`SsoLoginService`), so node-saml's removal is a no-op.
 */
class PendingRequestStore implements CacheProvider {
  constructor(
    private readonly pending: Repository<SsoPendingLogin>,
    private readonly providerId: string,
    private readonly answering: SsoPendingLogin | null,
  ) {}

  async saveAsync(key: string, value: string): Promise<CacheItem | null> {
    const createdAt = Date.now();
    await this.pending.insert({
      keyHash: samlRequestKey(key),
      providerId: this.providerId,
      nonce: null,
      codeVerifierSealed: null,
      expiresAt: new Date(createdAt + PENDING_LOGIN_MS),
    });
    return { value, createdAt };
  }

  getAsync(key: string): Promise<string | null> {
    const row = this.answering;
    const live =
      row?.keyHash === samlRequestKey(key) &&
      row.providerId === this.providerId &&
      row.expiresAt.getTime() > Date.now();
    return Promise.resolve(live ? row.createdAt.toISOString() : null);
  }

  removeAsync(key: string | null): Promise<string | null> {
    return Promise.resolve(key);
  }
}

/** node-saml service providers built from a provider record (cheap: no network, no state of their own). */
@Injectable()
export class SamlClients {
  constructor(
    @InjectRepository(SsoPendingLogin) private readonly pending: Repository<SsoPendingLogin>,
    private readonly box: SecretBox,
    private readonly urls: SsoUrls,
  ) {}

  /** `answering`: the pending request a response claims to answer (when validating one). */
  forProvider(provider: SsoProvider, answering: SsoPendingLogin | null = null): Promise<SAML> {
    return this.build(provider, answering, provider.samlNameIdFormat ?? DEFAULT_NAME_ID_FORMAT);
  }

  private async build(
    provider: SsoProvider,
    answering: SsoPendingLogin | null,
    nameIdFormat: string | null,
  ): Promise<SAML> {
    // Loaded on the first SAML use: node-saml and its XML stack are not needed by a deployment without SAML (issue 28).
    const { SAML, ValidateInResponseTo } = await import('@node-saml/node-saml');
    const sign = provider.samlSignAuthnRequests && !!provider.spPrivateKeySealed;
    return new SAML({
      callbackUrl: this.urls.callback,
      entryPoint: provider.samlEntryPoint!,
      issuer: provider.samlIssuer!,
      audience: provider.samlIssuer!,
      idpCert: provider.samlIdpCertificate!,
      ...(sign
        ? {
            privateKey: this.box.open(provider.spPrivateKeySealed!, spKeyContext(provider.id)),
            publicCert: provider.spCertificate!,
          }
        : {}),
      signatureAlgorithm: 'sha256',
      digestAlgorithm: 'sha256',
      identifierFormat: nameIdFormat,
      disableRequestedAuthnContext: true,
      // The assertion must be signed (by the certificate's key); a signature on the whole response alone is not enough.
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      // SP-initiated only: every response must answer a request this service sent, once.
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: PENDING_LOGIN_MS,
      cacheProvider: new PendingRequestStore(this.pending, provider.id, answering),
      acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    });
  }

  /**
   * SP metadata: entity ID, ACS (HTTP-POST), the signing certificate, and the
   * NameID format only when the provider names one other than `unspecified`:
   * IdPs that import it (SimpleSAMLphp) take a listed format literally, even
   * `unspecified`, and log an error on every login when they cannot make one.
   */
  async metadata(provider: SsoProvider): Promise<string> {
    return (await this.build(provider, null, provider.samlNameIdFormat)).generateServiceProviderMetadata(
      null,
      provider.spCertificate,
    );
  }
}
