import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { SsoProvider } from './sso-provider.entity';
import { ControlPlaneEntity } from '../../../database/routing-data-source';

/** The one-time code a finished SSO login hands to the browser, by hash; 60 seconds, single use. */
@ControlPlaneEntity()
@Entity('sso_login_codes')
@Index('sso_login_codes_provider_idx', ['providerId'])
@Index('sso_login_codes_expires_idx', ['expiresAt'])
export class SsoLoginCode {
  @PrimaryColumn('text')
  codeHash: string;

  @Column('uuid')
  userId: string;

  @Column('uuid')
  providerId: string;

  @ManyToOne(() => SsoProvider, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'provider_id', foreignKeyConstraintName: 'sso_login_codes_provider_fk' })
  provider?: SsoProvider;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;
}
