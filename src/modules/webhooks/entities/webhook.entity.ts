import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity('webhooks')
@Index('webhooks_space_idx', ['spaceId'])
export class Webhook {
  /** Assigned before insert: the sealed secret is bound to it. */
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  url: string;

  @Column('text', { default: '' })
  description: string;

  @Column('text', { array: true })
  eventTypes: string[];

  /** `whsec_…`, sealed with AES-256-GCM; never returned after creation. */
  @Column('text', { select: false })
  secretSealed: string;

  @Column('boolean', { default: true })
  isEnabled: boolean;

  /** First failure of the current unbroken run of failures. */
  @Column('timestamptz', { nullable: true })
  failingSince: Date | null;

  @Column('timestamptz', { nullable: true })
  disabledAt: Date | null;

  @Column('text', { nullable: true })
  disabledReason: string | null;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
