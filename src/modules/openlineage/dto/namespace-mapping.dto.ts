import { ApiProperty } from '@nestjs/swagger';
import { BooleanField, NestedField, StringField } from '../../../common/validation/field.decorators';

export class NamespaceMappingItem {
  @StringField({
    min: 1,
    max: 1000,
    description:
      'An OpenLineage namespace, exactly as producers send it: a dataset namespace such as ' +
      '`postgres://db.example.com:5432`, or a job namespace such as `airflow-prod`.',
  })
  namespace: string;

  @BooleanField({
    description:
      'Whether a dataset of this namespace that no product carries yet becomes a new `dataset` product; ' +
      'otherwise such a dataset is skipped (its lineage included).',
  })
  create_products: boolean;
}

export class ReplaceNamespaceMappingsDto {
  @NestedField(() => NamespaceMappingItem, {
    isArray: true,
    maxItems: 500,
    description:
      'Every namespace the space takes events for; replaces the current list (an empty list: none).',
  })
  items: NamespaceMappingItem[];
}

export class NamespaceMappingResponse {
  @ApiProperty()
  namespace: string;

  @ApiProperty()
  create_products: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class NamespaceMappingListResponse {
  @ApiProperty({ type: NamespaceMappingResponse, isArray: true })
  items: NamespaceMappingResponse[];

  @ApiProperty({ type: 'integer' })
  total: number;
}
