import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, Matches, ValidateIf } from 'class-validator';
import { EnumField, IntField, StringField, TextField } from '../../../common/validation/field.decorators';
import {
  SEARCH_MODES,
  SEARCH_TOTAL_RELATIONS,
  SEARCH_TYPES,
  type SearchMode,
  type SearchTotalRelation,
  type SearchType,
} from '../search-types';

const NO_CONTROL_CHARACTERS = /^[^\p{Cc}]*$/u;

function SearchTypesField() {
  return applyDecorators(
    // Optional, but not nullable.
    ValidateIf((_object, value) => value !== undefined),
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(SEARCH_TYPES.length * 2),
    IsIn(SEARCH_TYPES as unknown as string[], {
      each: true,
      message: `each value of $property must be one of: ${SEARCH_TYPES.join(', ')}`,
    }),
    ApiProperty({
      required: false,
      type: String,
      isArray: true,
      enum: SEARCH_TYPES as unknown as string[],
      enumName: 'SearchItemType',
      minItems: 1,
      maxItems: SEARCH_TYPES.length * 2,
      description: 'Only these types (all of them when left out).',
    }),
  );
}

export class SearchDto {
  @TextField({
    max: 500,
    description:
      'What to look for, 1 to 500 characters once trimmed, without control characters. Keyword syntax is ' +
      'PostgreSQL\'s web search: words must all match, `"quoted phrase"`, `or`, `-excluded`; the last word also ' +
      'matches as a prefix when it is a plain word.',
    example: 'customer orders',
  })
  @Matches(NO_CONTROL_CHARACTERS, { message: '$property must not contain control characters' })
  query: string;

  @SearchTypesField()
  types?: SearchType[];

  @StringField({
    optional: true,
    max: 100,
    description: 'Search one space only (404 when it does not exist or the caller is not a member).',
  })
  space_slug?: string;

  @EnumField(SEARCH_MODES, { optional: true, default: 'hybrid', enumName: 'SearchMode' })
  mode?: SearchMode;

  @IntField({ optional: true, min: 1, max: 100, default: 20, description: 'Items to answer.' })
  limit?: number;
}

export class SearchItemResponse {
  @ApiProperty({ enum: SEARCH_TYPES, enumName: 'SearchItemType' })
  type: SearchType;

  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  space_slug: string;

  @ApiProperty({ description: 'The name or title of the item.' })
  title: string;

  @ApiProperty({
    description:
      'An excerpt of the description (else the title), HTML-escaped, with matched words between `<mark>` and ' +
      '`</mark>`: safe to insert as HTML. Up to 35 words around the best match within the first 10,000 characters; ' +
      'short texts come whole.',
  })
  snippet: string;

  @ApiProperty({
    description:
      'Higher is better. keyword: ts_rank_cd normalised to 0..1; semantic: cosine similarity; hybrid: the ' +
      'reciprocal rank fusion score (sum of 1 / (60 + rank)).',
  })
  score: number;
}

export class SearchResponse {
  @ApiProperty({ type: SearchItemResponse, isArray: true })
  items: SearchItemResponse[];

  @ApiProperty({
    type: 'integer',
    description:
      'Matching items the caller may read, before `limit`: counted exactly up to 10,000; beyond, 10,000 with ' +
      '`total_relation` `gte`.',
  })
  total: number;

  @ApiProperty({
    enum: SEARCH_TOTAL_RELATIONS,
    enumName: 'SearchTotalRelation',
    description:
      '`eq`: `total` is the exact number of matches. `gte`: there are at least `total` (10,000) matches, and ' +
      "counting stopped there (Elasticsearch's `hits.total.relation`).",
  })
  total_relation: SearchTotalRelation;
}
