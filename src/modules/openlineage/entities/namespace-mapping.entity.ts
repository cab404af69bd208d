import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';

/** An OpenLineage namespace whose datasets and jobs a space takes in. */
@Entity('openlineage_namespace_mappings')
@Index('openlineage_namespace_mappings_namespace_idx', ['namespace', 'spaceId'])
export class NamespaceMapping {
  @PrimaryColumn('uuid')
  spaceId: string;

  @PrimaryColumn('text')
  namespace: string;

  /** Whether a dataset of the namespace with no product yet becomes a new `dataset` product. */
  @Column('boolean', { default: false })
  createProducts: boolean;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'openlineage_namespace_mappings_space_fk' })
  space?: Space;
}
