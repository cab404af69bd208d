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
import { Space } from '../../spaces/entities/space.entity';
import { SourceSystem } from './source-system.entity';

export const CONNECTOR_TYPES = ['postgresql'] as const;
export type ConnectorType = (typeof CONNECTOR_TYPES)[number];

/** A connection to a user's database. Its connection string is sealed (AES-256-GCM) and never returned. */
@Entity('connectors')
@Index('connectors_space_idx', ['spaceId', 'createdAt'])
@Index('connectors_source_system_idx', ['sourceSystemId'])
export class Connector {
  /** Assigned before insert: the sealed secret is bound to it. */
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  name: string;

  @Column('text')
  connectorType: ConnectorType;

  @Column('uuid', { nullable: true })
  sourceSystemId: string | null;

  /** The whole connection string, sealed with the connector id as associated data. */
  @Column('text', { select: false })
  configSealed: string;

  /** Shown on reads instead of the secret. */
  @Column('text')
  host: string;

  @Column('integer')
  port: number;

  @Column('text')
  databaseName: string;

  @Column('timestamptz', { nullable: true })
  lastTestedAt: Date | null;

  @Column('text', { nullable: true })
  lastTestStatus: string | null;

  @Column('timestamptz', { nullable: true })
  lastSyncedAt: Date | null;

  @Column('text', { nullable: true })
  lastSyncStatus: string | null;

  @Column('text', { nullable: true })
  lastError: string | null;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'connectors_space_fk' })
  space?: Space;

  // Deleting a source system unlinks its connectors first (in the same transaction); no cascade.
  @ManyToOne(() => SourceSystem)
  @JoinColumn({ name: 'source_system_id', foreignKeyConstraintName: 'connectors_source_system_fk' })
  sourceSystem?: SourceSystem | null;
}
