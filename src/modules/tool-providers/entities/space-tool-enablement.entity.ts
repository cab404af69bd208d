import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';
import { User } from '../../users/entities/user.entity';
import { ToolProvider } from './tool-provider.entity';

/** Whether a space lets its AI use a provider's tools, and which ones. No row: not enabled. */
@Entity('space_tool_enablements')
@Index('space_tool_enablements_provider_idx', ['providerId'])
export class SpaceToolEnablement {
  @PrimaryColumn('uuid')
  spaceId: string;

  @PrimaryColumn('uuid')
  providerId: string;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'space_tool_enablements_space_fk' })
  space?: Space;

  @ManyToOne(() => ToolProvider, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'provider_id', foreignKeyConstraintName: 'space_tool_enablements_provider_fk' })
  provider?: ToolProvider;

  @Column('boolean')
  enabled: boolean;

  @Column('text', { default: 'read' })
  maxRiskLevel: string;

  /** Raw tool names; null allows every enabled read tool. */
  @Column('text', { array: true, nullable: true })
  allowedToolNames: string[] | null;

  @Index('space_tool_enablements_updated_by_idx')
  @Column('uuid', { nullable: true })
  updatedBy: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'updated_by', foreignKeyConstraintName: 'space_tool_enablements_updated_by_fk' })
  updater?: User;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
