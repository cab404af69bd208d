import { Column, Entity, Index, JoinColumn, ManyToOne } from 'typeorm';
import { Space } from '../../spaces/entities/space.entity';
import { MetadataValue } from './metadata-value.base';

@Entity('sensitivity_levels')
@Index('sensitivity_levels_space_idx', ['spaceId', 'sortOrder'])
@Index('sensitivity_levels_space_name_key', ['spaceId', 'name'], {
  unique: true,
  where: 'deleted_at IS NULL',
})
export class SensitivityLevel extends MetadataValue {
  @Column('text', { nullable: true })
  description: string | null;

  @ManyToOne(() => Space, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'space_id', foreignKeyConstraintName: 'sensitivity_levels_space_fk' })
  space?: Space;
}
