import { PickType } from '@nestjs/swagger';
import { StringField } from '../../../common/validation/field.decorators';

export class ScimListQuery {
  @StringField({
    optional: true,
    max: 2000,
    description:
      'RFC 7644 filter: `eq`, `ne`, `co`, `sw`, `ew`, `pr`, `and`, `or`, `not (...)` and parentheses, value paths such as `emails[type eq "work"].value`; other operators answer 400 invalidFilter.',
    example: 'userName eq "ada@example.com"',
  })
  filter?: string;

  @StringField({
    optional: true,
    max: 12,
    pattern: /^-?\d+$/,
    description: '1-based index of the first result (default 1).',
  })
  startIndex?: string;

  @StringField({
    optional: true,
    max: 12,
    pattern: /^-?\d+$/,
    description: 'Page size: default 100, at most 200; 0 answers only totalResults.',
  })
  count?: string;

  @StringField({ optional: true, max: 1000, description: 'Accepted; every attribute is returned.' })
  attributes?: string;

  @StringField({
    optional: true,
    max: 1000,
    description: '`members` leaves group members out; otherwise ignored.',
  })
  excludedAttributes?: string;
}

/** A single resource takes the list's attribute selection only. */
export class ScimGetQuery extends PickType(ScimListQuery, ['attributes', 'excludedAttributes'] as const) {}

/** SCIM ids are free text on the wire: a malformed one is simply not found (404), as SCIM expects. */
export class ScimIdParams {
  @StringField({ max: 100, description: 'The resource id (a UUID).' })
  id: string;
}
