import { Column, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';
import { MetadataValue } from './metadata-value.base';

@Entity('maintenance_statuses')
@Index('maintenance_statuses_space_idx', ['spaceId', 'sortOrder'])
@Index('maintenance_statuses_space_name_key', ['spaceId', 'name'], {
  unique: true,
  where: 'deleted_at IS NULL',
})
@Index('maintenance_statuses_space_slug_key', ['spaceId', 'slug'], {
  unique: true,
  where: 'deleted_at IS NULL',
})
export class MaintenanceStatus extends MetadataValue {
  /** snake_case; products name a status by it. */
  @Column('text')
  slug: string;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'maintenance_statuses_space_fk' })
  space?: Space;
}
