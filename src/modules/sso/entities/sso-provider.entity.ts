import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

export type SsoProtocol = 'oidc' | 'saml';
export type SsoDefaultRole = 'user' | 'pending';

/** An identity provider people sign in with; the protocol's own settings live in its prefixed columns. */
@ControlPlaneEntity()
@Entity('sso_providers')
@Index('sso_providers_created_idx', ['createdAt', 'id'])
export class SsoProvider {
  /** Assigned before insert: the sealed secrets are bound to it. */
  @PrimaryColumn('uuid')
  id: string;

  @Column('text')
  name: string;

  @Column('text')
  protocol: SsoProtocol;

  @Column('boolean', { default: true })
  isEnabled: boolean;

  /** Lowercased email domains this provider signs in. */
  // Home-realm discovery and the domain-overlap check read it (a GIN index, created in the migration).
  @Index('sso_providers_domains_idx', { synchronize: false })
  @Column('text', { array: true, default: () => "'{}'" })
  domains: string[];

  @Column('text', { default: 'user' })
  defaultRole: SsoDefaultRole;

  @Column('boolean', { default: false })
  jitProvisioning: boolean;

  @Column('text', { nullable: true })
  oidcIssuer: string | null;

  @Column('text', { nullable: true })
  oidcClientId: string | null;

  /** Sealed with AES-256-GCM, bound to the provider id; never returned. */
  @Column('text', { nullable: true, select: false })
  oidcClientSecretSealed: string | null;

  @Column('text', { array: true, nullable: true })
  oidcScopes: string[] | null;

  @Column('text', { nullable: true })
  samlEntryPoint: string | null;

  /** Our entity ID at the identity provider: the AuthnRequest issuer and the expected audience. */
  @Column('text', { nullable: true })
  samlIssuer: string | null;

  @Column('text', { nullable: true })
  samlIdpCertificate: string | null;

  @Column('boolean', { default: false })
  samlSignAuthnRequests: boolean;

  /** The IdP's entity ID; when set, the Issuer of responses and assertions must be it. */
  @Column('text', { nullable: true })
  samlIdpEntityId: string | null;

  /** Legacy: accept RSA-SHA1 signatures and SHA-1 digests. */
  @Column('boolean', { default: false })
  samlAllowSha1Signatures: boolean;

  /** The NameIDPolicy Format of AuthnRequests; null asks for `unspecified`. */
  @Column('text', { nullable: true })
  samlNameIdFormat: string | null;

  /** The service provider's own signing certificate (PEM), published in its metadata. */
  @Column('text', { nullable: true })
  spCertificate: string | null;

  /** Its private key (PKCS#8 PEM), sealed; never returned. */
  @Column('text', { nullable: true, select: false })
  spPrivateKeySealed: string | null;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
