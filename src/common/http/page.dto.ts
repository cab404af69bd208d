import { Type as ClassType } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { QueryIntField } from '../validation/field.decorators';

/** `skip`/`limit` paging of docs/decisions.md#paging: default 50, at most 200. */
export class PageQuery {
  @QueryIntField({ min: 0, default: 0, description: 'How many items to skip.' })
  skip?: number = 0;

  @QueryIntField({ min: 1, max: 200, default: 50, description: 'How many items to return (at most 200).' })
  limit?: number = 50;
}

export interface Page<T> {
  items: T[];
  total: number;
}

const pageClasses = new Map<ClassType, ClassType>();

/** A named `{items, total}` response class for OpenAPI, one per item type. */
export function PageOf<T>(item: ClassType<T>): ClassType<Page<T>> {
  const existing = pageClasses.get(item);
  if (existing) return existing as ClassType<Page<T>>;
  class PageResponse implements Page<T> {
    @ApiProperty({ type: item, isArray: true })
    items: T[];

    @ApiProperty({ type: 'integer', description: 'How many items match, across all pages.' })
    total: number;
  }
  Object.defineProperty(PageResponse, 'name', { value: `${item.name.replace(/Response$/, '')}Page` });
  pageClasses.set(item, PageResponse);
  return PageResponse;
}
