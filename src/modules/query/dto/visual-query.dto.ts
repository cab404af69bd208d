import { ApiProperty } from '@nestjs/swagger';
import {
  EnumField,
  IntField,
  JsonValueField,
  NestedField,
  StringArrayField,
  StringField,
  UuidField,
} from '../../../common/validation/field.decorators';
import {
  AGGREGATE_FNS,
  AggregateFn,
  DEFAULT_LIMIT,
  FILTER_OPS,
  FilterOp,
  MAX_LIMIT,
  SORT_DIRECTIONS,
} from '../query-compiler';

const NAME = { min: 1, max: 63 };
const COLUMN_NAME =
  'A column of the table, as its catalog spells it (matched exactly, else case-insensitively when that is unambiguous).';

export class QueryFilterDto {
  @StringField({ ...NAME, description: COLUMN_NAME })
  column: string;

  @EnumField(FILTER_OPS, { enumName: 'QueryFilterOp' })
  op: FilterOp;

  @JsonValueField({
    optional: true,
    description:
      'A string, number or boolean for eq, ne, lt, lte, gt, gte; a list of 1 to 1,000 of them for in and not_in; a ' +
      '`LIKE` pattern for like (compared with the column as text); none for is_null and is_not_null. Always sent as a ' +
      "bound parameter and read as the column's type (a value the type cannot take is a 422); send big numbers as strings.",
  })
  value?: unknown;
}

export class QueryAggregationDto {
  @EnumField(AGGREGATE_FNS, { enumName: 'QueryAggregateFn' })
  fn: AggregateFn;

  @StringField({
    ...NAME,
    optional: true,
    description: `${COLUMN_NAME} Required except for \`count\`, which counts rows and takes none.`,
  })
  column?: string;

  @StringField({
    min: 1,
    max: 200,
    optional: true,
    description: 'The answered column name; default `<fn>_<column>`, or `count`. Never part of the SQL.',
  })
  alias?: string;
}

export class QueryOrderDto {
  @StringField({
    min: 1,
    max: 200,
    description:
      'A table column; with aggregations, a `group_by` column or an aggregation alias; with a pivot, a `pivot.rows` column.',
  })
  column: string;

  @EnumField(SORT_DIRECTIONS, { optional: true, default: 'asc', enumName: 'SortDirection' })
  direction?: 'asc' | 'desc';
}

export class QueryPivotDto {
  @StringArrayField({
    minItems: 1,
    maxItems: 10,
    itemMax: 63,
    description: 'The columns whose distinct combinations are the rows.',
  })
  rows: string[];

  @StringField({
    ...NAME,
    description: 'The column whose distinct values (as text, sorted, at most 50) become columns.',
  })
  column: string;

  @StringField({ ...NAME, description: 'The column aggregated into each cell (`count` counts the rows).' })
  value: string;

  @EnumField(AGGREGATE_FNS, { enumName: 'QueryAggregateFn' })
  aggregate: AggregateFn;
}

export class VisualQueryDto {
  @StringField({
    min: 1,
    max: 300,
    description:
      "`table` (found on the connecting role's search_path), `schema.table`, or with double-quoted parts for exact names " +
      '(`public."Odd Name"`). Resolved against the source\'s own catalog; system schemas are not offered.',
    example: 'public.orders',
  })
  table: string;

  @StringArrayField({
    optional: true,
    maxItems: 200,
    itemMax: 63,
    description: 'Columns to answer, in this order; default every column in table order.',
  })
  columns?: string[];

  @NestedField(() => QueryFilterDto, {
    optional: true,
    isArray: true,
    maxItems: 50,
    description: 'Combined with AND.',
  })
  filters?: QueryFilterDto[];

  @StringArrayField({ optional: true, maxItems: 20, itemMax: 63 })
  group_by?: string[];

  @NestedField(() => QueryAggregationDto, { optional: true, isArray: true, maxItems: 50 })
  aggregations?: QueryAggregationDto[];

  @NestedField(() => QueryOrderDto, { optional: true, isArray: true, maxItems: 10 })
  order_by?: QueryOrderDto[];

  @IntField({
    optional: true,
    min: 1,
    max: MAX_LIMIT,
    default: DEFAULT_LIMIT,
    description: 'Rows to answer at most.',
  })
  limit?: number;

  @NestedField(() => QueryPivotDto, {
    optional: true,
    description: 'Not combined with columns, group_by or aggregations.',
  })
  pivot?: QueryPivotDto;
}

export class ExecuteQueryDto {
  @StringField({ min: 1, max: 100, description: 'The space that owns the connector (edit access).' })
  space_slug: string;

  @UuidField({ description: 'A connector of that space.' })
  connector_id: string;

  @NestedField(() => VisualQueryDto)
  query: VisualQueryDto;
}

export class QueryColumnResponse {
  @ApiProperty()
  name: string;

  @ApiProperty({
    description:
      "The source's type name (`format_type`), e.g. `bigint`, `numeric(12,2)`, `timestamp with time zone`; for an " +
      'aggregate, the type PostgreSQL gives it.',
  })
  type: string;
}

export class QueryResultResponse {
  @ApiProperty({ type: QueryColumnResponse, isArray: true })
  columns: QueryColumnResponse[];

  @ApiProperty({
    type: 'array',
    items: { type: 'array', items: {} },
    description:
      'One array per row, in `columns` order. int2/int4 and floats are numbers; bigint and numeric are strings (no ' +
      'precision lost); booleans; json parsed; timestamps ISO 8601 UTC with `Z` (a timestamp without time zone is read as ' +
      "UTC); everything else is PostgreSQL's text.",
  })
  rows: unknown[][];

  @ApiProperty({ type: 'integer', description: 'Rows answered.' })
  row_count: number;

  @ApiProperty({ description: 'More rows existed than were answered (the limit was reached).' })
  truncated: boolean;

  @ApiProperty({
    type: 'integer',
    description: 'Time spent with the source database (connecting included), in milliseconds.',
  })
  elapsed_ms: number;
}
