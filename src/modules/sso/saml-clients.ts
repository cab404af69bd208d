import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { CacheItem, CacheProvider, SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import { MoreThan, Repository } from 'typeorm';
import { SecretBox } from '../../platform/crypto/secret-box.service';
import { tokenHash } from '../../platform/crypto/tokens';
import { SsoPendingLogin } from './entities/sso-pending-login.entity';
import { SsoProvider } from './entities/sso-provider.entity';
import { spKeyContext } from './sso-provider-secrets';
import { SsoUrls } from './sso-urls';

export const PENDING_LOGIN_MS = 10 * 60 * 1000;
const CLOCK_SKEW_MS = 30_000;
const EMAIL_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

/** The hash a pending SAML request is stored under: its AuthnRequest ID (the response's InResponseTo). */
export const samlRequestKey = (requestId: string) => tokenHash(`saml:${requestId}`);

/**
 * node-saml's InResponseTo store, in the pending-logins table so that every
 * worker sees it: saved when the AuthnRequest is built, read and removed
 * (single use) when the response comes back.
 */
class PendingRequestStore implements CacheProvider {
  constructor(
    private readonly pending: Repository<SsoPendingLogin>,
    private readonly providerId: string,
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

  async getAsync(key: string): Promise<string | null> {
    const row = await this.pending.findOneBy({
      keyHash: samlRequestKey(key),
      providerId: this.providerId,
      expiresAt: MoreThan(new Date()),
    });
    return row ? row.createdAt.toISOString() : null;
  }

  async removeAsync(key: string | null): Promise<string | null> {
    if (key === null) return null;
    const result = await this.pending.delete({ keyHash: samlRequestKey(key), providerId: this.providerId });
    return result.affected ? key : null;
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

  forProvider(provider: SsoProvider): SAML {
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
      identifierFormat: EMAIL_NAME_ID,
      disableRequestedAuthnContext: true,
      // The assertion must be signed (by the certificate's key); a signature on the whole response alone is not enough.
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      // SP-initiated only: every response must answer a request this service sent, once.
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: PENDING_LOGIN_MS,
      cacheProvider: new PendingRequestStore(this.pending, provider.id),
      acceptedClockSkewMs: CLOCK_SKEW_MS,
    });
  }

  /** SP metadata: entity ID, ACS (HTTP-POST) and the signing certificate. */
  metadata(provider: SsoProvider): string {
    return this.forProvider(provider).generateServiceProviderMetadata(null, provider.spCertificate);
  }
}
