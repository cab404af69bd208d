import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { User } from '../../users/entities/user.entity';

export const CREDENTIAL_KINDS = ['api_key', 'bearer'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** A secret a tool provider's process receives (docs/decisions.md#tool-credentials); sealed at rest, never returned. */
@Entity('credentials')
@Index('credentials_created_idx', ['createdAt', 'id'])
export class Credential {
  /** Assigned before insert: the sealed secret is bound to it. */
  @PrimaryColumn('uuid')
  id: string;

  @Column('text')
  name: string;

  @Column('text')
  kind: CredentialKind;

  /** Sealed with AES-256-GCM, bound to the credential id; null until a secret is set. */
  @Column('text', { nullable: true, select: false })
  secretSealed: string | null;

  /** Whether a secret is stored, readable without selecting the sealed value. */
  @Column('boolean', { default: false })
  secretSet: boolean;

  @Column('boolean', { default: true })
  isActive: boolean;

  @Index('credentials_created_by_idx')
  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'created_by', foreignKeyConstraintName: 'credentials_created_by_fk' })
  creator?: User;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
