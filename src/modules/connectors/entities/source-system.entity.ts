import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';

/** A system data comes from (an ERP, a warehouse); connectors may be linked to it. Names are unique per space. */
@Entity('source_systems')
@Index('source_systems_space_name_key', { synchronize: false })
export class SourceSystem {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  spaceId: string;

  @Column('text')
  name: string;

  @Column('text')
  systemType: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'source_systems_space_fk' })
  space?: Space;
}
