import { StringField } from '../validation/field.decorators';

/** Path parameters of every route under a space (`{slug}`); extend it with the route's ids. */
export class SlugParams {
  @StringField({ max: 100, description: 'The space slug.' })
  slug: string;
}
