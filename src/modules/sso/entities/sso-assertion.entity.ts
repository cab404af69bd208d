import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { SsoProvider } from './sso-provider.entity';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

/** SAML assertion IDs already accepted, kept until the assertion would have expired: each is accepted once. */
@ControlPlaneEntity()
@Entity('sso_assertions')
@Index('sso_assertions_expires_idx', ['expiresAt'])
export class SsoAssertion {
  @PrimaryColumn('uuid')
  providerId: string;

  @PrimaryColumn('text')
  assertionId: string;

  @ManyToOne(() => SsoProvider, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'provider_id', foreignKeyConstraintName: 'sso_assertions_provider_fk' })
  provider?: SsoProvider;

  @Column('timestamptz')
  expiresAt: Date;
}
