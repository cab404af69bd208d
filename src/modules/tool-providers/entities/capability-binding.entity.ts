import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';
import { User } from '../../users/entities/user.entity';
import { ProviderTool } from './provider-tool.entity';
import { ToolProvider } from './tool-provider.entity';

/** The one tool a space uses for a capability (`web_search`). Replacing it makes a new row. */
@Entity('space_capability_bindings')
@Unique('space_capability_bindings_space_capability_uq', ['spaceId', 'capabilityId'])
export class CapabilityBinding {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'space_capability_bindings_space_fk' })
  space?: Space;

  @Column('text')
  capabilityId: string;

  @Index('space_capability_bindings_tool_idx')
  @Column('uuid')
  providerToolId: string;

  @ManyToOne(() => ProviderTool, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'provider_tool_id', foreignKeyConstraintName: 'space_capability_bindings_tool_fk' })
  providerTool?: ProviderTool;

  @Index('space_capability_bindings_provider_idx')
  @Column('uuid')
  providerId: string;

  @ManyToOne(() => ToolProvider, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'provider_id', foreignKeyConstraintName: 'space_capability_bindings_provider_fk' })
  provider?: ToolProvider;

  @Index('space_capability_bindings_created_by_idx')
  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'created_by', foreignKeyConstraintName: 'space_capability_bindings_created_by_fk' })
  creator?: User;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
