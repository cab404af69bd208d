import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Matches } from 'class-validator';
import {
  BooleanField,
  EnumField,
  NestedField,
  StringArrayField,
  StringField,
  TextField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { UpdateType } from '../../../common/validation/update-type';
import { OUTBOUND_POLICY_NOTE } from '../../../platform/outbound-http/outbound-url-policy';
import { DEFAULT_NAME_ID_FORMAT, SAML_NAME_ID_FORMATS } from '../saml-clients.registry';

export const SSO_PROTOCOLS = ['oidc', 'saml'] as const;
export const SSO_DEFAULT_ROLES = ['user', 'pending'] as const;

// A host name of at least two labels, lowercase (input is lowercased first).
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

const lowercaseAll = Transform(({ value }) =>
  Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v)) : value,
);

const DEFAULT_ROLE_DOC =
  'What a person signed in for the first time by just-in-time provisioning becomes: `user` (an active account with no space membership and never superadmin; space admins then add them to spaces) or `pending` (the account is created deactivated, its sign-in answers 403 until a superadmin activates it with `PATCH /users/{id}`). SSO never grants superadmin.';

const IDP_ENTITY_ID_DOC =
  "The identity provider's entity ID (its metadata's `entityID`). When set, the Issuer of every response and assertion must be exactly this (a login with another answers 401, audited as `wrong_issuer`); when null, the signature by `idp_certificate` alone identifies the identity provider.";
const ALLOW_SHA1_DOC =
  'Legacy, off by default: accept XML signatures made with SHA-1 (RSA-SHA1 signature method or SHA-1 digest). SHA-1 is broken for collision resistance; turn this on only for an identity provider that cannot sign with SHA-256 and only until it can. While off, such a response answers 401, audited as `sha1_signature`.';
const NAME_ID_FORMAT_DOC = `The NameID format AuthnRequests ask for (NameIDPolicy Format), one of the SAML 2.0 formats (not \`entity\`, which names no person, nor \`encrypted\`: encrypted assertions are not supported). Left out (or set to null by an update), \`${DEFAULT_NAME_ID_FORMAT}\`: the identity provider picks its default, which every identity provider can answer. The SP metadata lists the format unless it is \`unspecified\`. The email always comes from the assertion's attributes (\`email\`, \`mail\`, \`urn:oid:0.9.2342.19200300.100.1.3\`, the \`emailaddress\` claim URI), or else from an \`emailAddress\` NameID.`;

export class OidcSettingsDto {
  @StringField({
    min: 1,
    max: 2000,
    description:
      'The issuer URL; its `/.well-known/openid-configuration` is discovered. HTTPS only (plain `http` only for a loopback issuer when ALLOW_PRIVATE_NETWORK_TARGETS=true); the endpoints the discovery document names are held to the same rules when called. ' +
      OUTBOUND_POLICY_NOTE,
  })
  issuer: string;

  @TextField({ max: 500 })
  client_id: string;

  @StringField({
    optional: true,
    min: 1,
    max: 2000,
    description:
      'Write-only: sealed at rest and never returned (`client_secret_set` says whether one is stored). Sent with HTTP Basic (`client_secret_basic`); without it the client is public and PKCE alone protects the code.',
  })
  client_secret?: string;

  @StringArrayField({
    optional: true,
    minItems: 1,
    maxItems: 20,
    itemMax: 100,
    default: ['openid', 'email', 'profile'],
    description: 'Must include `openid`; the email comes from the ID token or the UserInfo endpoint.',
  })
  scopes?: string[];
}

/**
 * Only the fields given change. `issuer`, `client_secret` and `scopes` are declared here: create documents
 * discovery, how the secret is sent and the default scopes; update what a change does.
 */
export class UpdateOidcSettingsDto extends UpdateType(OidcSettingsDto, ['client_id'] as const) {
  @StringField({ optional: true, min: 1, max: 2000, description: OUTBOUND_POLICY_NOTE })
  issuer?: string;

  @StringField({
    optional: true,
    nullable: true,
    min: 1,
    max: 2000,
    description: 'Replaces the stored secret; `null` removes it (a public client); left out, it is kept.',
  })
  client_secret?: string | null;

  @StringArrayField({ optional: true, minItems: 1, maxItems: 20, itemMax: 100 })
  scopes?: string[];
}

export class SamlSettingsDto {
  @StringField({
    min: 1,
    max: 2000,
    description:
      "The identity provider's single sign-on URL (HTTP-Redirect binding); same URL rules as an OIDC issuer. " +
      OUTBOUND_POLICY_NOTE,
  })
  entry_point: string;

  @TextField({
    max: 1000,
    description:
      "Verity's entity ID at the identity provider: the Issuer of our AuthnRequests and the Audience every assertion must name.",
  })
  issuer: string;

  @StringField({
    min: 1,
    max: 20_000,
    description:
      "The identity provider's X.509 signing certificate (PEM, or the bare base64 body). Every assertion must be signed with its key.",
  })
  idp_certificate: string;

  @BooleanField({
    optional: true,
    default: false,
    description:
      "Sign AuthnRequests (RSA-SHA256) with this provider's own service-provider key, published in its metadata.",
  })
  sign_authn_requests?: boolean;

  @TextField({ optional: true, max: 1000, description: IDP_ENTITY_ID_DOC })
  idp_entity_id?: string;

  @BooleanField({ optional: true, default: false, description: ALLOW_SHA1_DOC })
  allow_sha1_signatures?: boolean;

  @EnumField(SAML_NAME_ID_FORMATS, {
    optional: true,
    default: DEFAULT_NAME_ID_FORMAT,
    description: NAME_ID_FORMAT_DOC,
  })
  name_id_format?: (typeof SAML_NAME_ID_FORMATS)[number];
}

export class UpdateSamlSettingsDto {
  @StringField({ optional: true, min: 1, max: 2000, description: OUTBOUND_POLICY_NOTE })
  entry_point?: string;

  @TextField({ optional: true, max: 1000 })
  issuer?: string;

  @StringField({ optional: true, min: 1, max: 20_000 })
  idp_certificate?: string;

  @BooleanField({ optional: true })
  sign_authn_requests?: boolean;

  @TextField({
    optional: true,
    nullable: true,
    max: 1000,
    description: 'Replaces the expected IdP entity ID; `null` stops checking the Issuer.',
  })
  idp_entity_id?: string | null;

  @BooleanField({ optional: true, description: ALLOW_SHA1_DOC })
  allow_sha1_signatures?: boolean;

  @EnumField(SAML_NAME_ID_FORMATS, {
    optional: true,
    nullable: true,
    description: 'Replaces the NameID format AuthnRequests ask for; `null` returns to `unspecified`.',
  })
  name_id_format?: (typeof SAML_NAME_ID_FORMATS)[number] | null;
}

export class CreateSsoProviderDto {
  @TextField({ max: 200 })
  name: string;

  @EnumField(SSO_PROTOCOLS, { enumName: 'SsoProtocol' })
  protocol: (typeof SSO_PROTOCOLS)[number];

  @BooleanField({ optional: true, default: true })
  is_enabled?: boolean;

  @lowercaseAll
  @Matches(DOMAIN, { each: true, message: 'each of $property must be a domain name such as example.com' })
  @StringArrayField({
    optional: true,
    maxItems: 100,
    itemMax: 253,
    default: [],
    description:
      'Email domains (lowercased) whose people sign in here, for home-realm discovery. A domain belongs to at most one enabled provider (409).',
  })
  domains?: string[];

  @EnumField(SSO_DEFAULT_ROLES, { optional: true, default: 'user', description: DEFAULT_ROLE_DOC })
  default_role?: (typeof SSO_DEFAULT_ROLES)[number];

  @BooleanField({
    optional: true,
    default: false,
    description:
      'Create an account on the first sign-in of an unknown email; without it an unknown email gets 403.',
  })
  jit_provisioning?: boolean;

  @NestedField(() => OidcSettingsDto, { optional: true, description: 'Required when `protocol` is `oidc`.' })
  oidc?: OidcSettingsDto;

  @NestedField(() => SamlSettingsDto, { optional: true, description: 'Required when `protocol` is `saml`.' })
  saml?: SamlSettingsDto;
}

/**
 * Only the fields given change; the protocol never does. The others are declared here: create documents
 * their defaults, and the settings are updated field by field.
 */
export class UpdateSsoProviderDto extends UpdateType(CreateSsoProviderDto, ['name'] as const) {
  @BooleanField({ optional: true })
  is_enabled?: boolean;

  @lowercaseAll
  @Matches(DOMAIN, { each: true, message: 'each of $property must be a domain name such as example.com' })
  @StringArrayField({ optional: true, maxItems: 100, itemMax: 253 })
  domains?: string[];

  @EnumField(SSO_DEFAULT_ROLES, { optional: true, description: DEFAULT_ROLE_DOC })
  default_role?: (typeof SSO_DEFAULT_ROLES)[number];

  @BooleanField({ optional: true })
  jit_provisioning?: boolean;

  @NestedField(() => UpdateOidcSettingsDto, {
    optional: true,
    description: 'Only for an OIDC provider; the fields given change.',
  })
  oidc?: UpdateOidcSettingsDto;

  @NestedField(() => UpdateSamlSettingsDto, {
    optional: true,
    description: 'Only for a SAML provider; the fields given change.',
  })
  saml?: UpdateSamlSettingsDto;
}

export class SsoProviderParams {
  @UuidField()
  id: string;
}

export class OidcSettingsResponse {
  @ApiProperty() issuer: string;
  @ApiProperty() client_id: string;
  @ApiProperty({ description: 'Whether a client secret is stored; the secret itself is never returned.' })
  client_secret_set: boolean;
  @ApiProperty({ type: String, isArray: true }) scopes: string[];
}

export class SamlSettingsResponse {
  @ApiProperty() entry_point: string;
  @ApiProperty() issuer: string;
  @ApiProperty() idp_certificate: string;
  @ApiProperty() sign_authn_requests: boolean;
  @ApiProperty({ type: String, nullable: true, description: IDP_ENTITY_ID_DOC }) idp_entity_id: string | null;
  @ApiProperty({ description: ALLOW_SHA1_DOC }) allow_sha1_signatures: boolean;
  @ApiProperty({
    enum: SAML_NAME_ID_FORMATS,
    description: 'The NameID format AuthnRequests ask for.',
  })
  name_id_format: string;
  @ApiProperty({ description: 'Where the identity provider posts its responses (the ACS URL).' })
  callback_url: string;
  @ApiProperty({ description: 'This provider’s service-provider metadata XML (public).' })
  metadata_url: string;
}

export class SsoProviderResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: SSO_PROTOCOLS, enumName: 'SsoProtocol' }) protocol: string;
  @ApiProperty() is_enabled: boolean;
  @ApiProperty({ type: String, isArray: true }) domains: string[];
  @ApiProperty({ enum: SSO_DEFAULT_ROLES, description: DEFAULT_ROLE_DOC }) default_role: string;
  @ApiProperty() jit_provisioning: boolean;
  @ApiProperty({ type: OidcSettingsResponse, nullable: true, description: 'Set for an OIDC provider.' })
  oidc: OidcSettingsResponse | null;
  @ApiProperty({ type: SamlSettingsResponse, nullable: true, description: 'Set for a SAML provider.' })
  saml: SamlSettingsResponse | null;
  @ApiProperty({ description: 'Where a browser starts signing in with this provider.' })
  login_url: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
