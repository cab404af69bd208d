import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { SsoProvider } from './sso-provider.entity';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

/**
 * A login sent to an identity provider and not yet answered: the OIDC
 * `state` (with its nonce and PKCE verifier) or the SAML AuthnRequest ID,
 * by hash. Consumed once; ten minutes to come back.
 */
@ControlPlaneEntity()
@Entity('sso_pending_logins')
@Index('sso_pending_logins_provider_idx', ['providerId'])
@Index('sso_pending_logins_expires_idx', ['expiresAt'])
export class SsoPendingLogin {
  @PrimaryColumn('text')
  keyHash: string;

  @Column('uuid')
  providerId: string;

  @ManyToOne(() => SsoProvider, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'provider_id', foreignKeyConstraintName: 'sso_pending_logins_provider_fk' })
  provider?: SsoProvider;

  @Column('text', { nullable: true })
  nonce: string | null;

  /** The PKCE code verifier, sealed. */
  @Column('text', { nullable: true })
  codeVerifierSealed: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;
}
