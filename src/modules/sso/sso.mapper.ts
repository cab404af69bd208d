import { SsoProviderResponse } from './dto/sso-provider.dto';
import { SsoProvider } from './entities/sso-provider.entity';
import { DEFAULT_NAME_ID_FORMAT } from './saml-clients.registry';
import { SsoUrls } from './sso-urls.service';

export const DEFAULT_OIDC_SCOPES = ['openid', 'email', 'profile'];

/** Secrets stay out: the client secret shows as `client_secret_set`, the SP private key not at all. */
export function toSsoProviderResponse(provider: SsoProvider, urls: SsoUrls): SsoProviderResponse {
  return {
    id: provider.id,
    name: provider.name,
    protocol: provider.protocol,
    is_enabled: provider.isEnabled,
    domains: provider.domains,
    default_role: provider.defaultRole,
    jit_provisioning: provider.jitProvisioning,
    oidc:
      provider.protocol === 'oidc'
        ? {
            issuer: provider.oidcIssuer ?? '',
            client_id: provider.oidcClientId ?? '',
            client_secret_set: !!provider.oidcClientSecretSealed,
            scopes: provider.oidcScopes ?? DEFAULT_OIDC_SCOPES,
          }
        : null,
    saml:
      provider.protocol === 'saml'
        ? {
            entry_point: provider.samlEntryPoint ?? '',
            issuer: provider.samlIssuer ?? '',
            idp_certificate: provider.samlIdpCertificate ?? '',
            sign_authn_requests: provider.samlSignAuthnRequests,
            idp_entity_id: provider.samlIdpEntityId,
            allow_sha1_signatures: provider.samlAllowSha1Signatures,
            name_id_format: provider.samlNameIdFormat ?? DEFAULT_NAME_ID_FORMAT,
            callback_url: urls.callback,
            metadata_url: urls.metadata(provider.id),
          }
        : null,
    login_url: urls.login(provider.id),
    created_at: provider.createdAt.toISOString(),
    updated_at: provider.updatedAt.toISOString(),
  };
}
