import { FieldError, ValidationFailed } from '../errors/domain-error';
import { NestedField, StringField } from './field.decorators';
import { createValidationPipe } from './validation.pipe';

class Inner {
  @StringField()
  name: string;
}

class Outer {
  @NestedField(() => Inner)
  one: Inner;

  @NestedField(() => Inner, { isArray: true })
  many: Inner[];

  @NestedField(() => Inner, { optional: true })
  maybe?: Inner;
}

/** The fields the validation pipe names for a body, or [] when it passes. */
async function invalid(body: unknown): Promise<FieldError[]> {
  try {
    await createValidationPipe().transform(body, { type: 'body', metatype: Outer });
    return [];
  } catch (error) {
    if (!(error instanceof ValidationFailed)) throw error;
    return error.extensions.errors as FieldError[];
  }
}

describe('NestedField', () => {
  const valid = { one: { name: 'a' }, many: [{ name: 'b' }] };

  it('passes a complete body, with or without the optional nested object', async () => {
    expect(await invalid(valid)).toEqual([]);
    expect(await invalid({ ...valid, maybe: { name: 'c' } })).toEqual([]);
  });

  it('requires a required nested object or list (ValidateNested alone lets a missing one through)', async () => {
    expect(await invalid({ many: valid.many })).toEqual([{ field: 'one', message: 'one is required.' }]);
    expect(await invalid({ one: valid.one })).toEqual([{ field: 'many', message: 'many is required.' }]);
  });

  it('refuses a list given for an object and an object given for a list', async () => {
    expect((await invalid({ ...valid, one: [{ name: 'a' }] })).map((e) => e.field)).toEqual(['one']);
    expect((await invalid({ ...valid, many: { name: 'b' } })).map((e) => e.field)).toEqual(['many']);
    expect((await invalid({ ...valid, maybe: [] })).map((e) => e.field)).toEqual(['maybe']);
  });

  it('names the missing field of a nested object and of a list item', async () => {
    expect(await invalid({ ...valid, one: {} })).toEqual([
      { field: 'one.name', message: 'one.name is required.' },
    ]);
    expect(await invalid({ ...valid, many: [{ name: 'b' }, {}] })).toEqual([
      { field: 'many.1.name', message: 'many.1.name is required.' },
    ]);
  });
});
