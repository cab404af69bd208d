import { FieldError, ValidationFailed } from '../errors/domain-error';
import { BooleanField, StringField, TextField } from './field.decorators';
import { UpdateType } from './update-type';
import { createValidationPipe } from './validation.pipe';

class CreateThingDto {
  @TextField({ max: 10 })
  name: string;

  @StringField({ optional: true, nullable: true, max: 10 })
  note?: string | null;

  @BooleanField({ optional: true, default: true })
  is_enabled?: boolean;
}

class UpdateThingDto extends UpdateType(CreateThingDto, ['name', 'note'] as const) {}

async function update(body: unknown): Promise<{ value?: UpdateThingDto; errors?: FieldError[] }> {
  try {
    return {
      value: await createValidationPipe().transform(body, { type: 'body', metatype: UpdateThingDto }),
    };
  } catch (error) {
    if (!(error instanceof ValidationFailed)) throw error;
    return { errors: error.extensions.errors as FieldError[] };
  }
}

describe('UpdateType', () => {
  it('makes a required create field optional, validated and transformed as on create when given', async () => {
    expect((await update({})).value).toBeInstanceOf(UpdateThingDto);
    expect((await update({ name: '  x  ' })).value).toEqual({ name: 'x' });
    expect((await update({ name: 'much too long' })).errors?.map((e) => e.field)).toEqual(['name']);
  });

  it('still refuses null for a field create refuses it for (PartialType alone would let it through)', async () => {
    expect((await update({ name: null })).errors).toEqual([
      { field: 'name', message: expect.stringContaining('name must be a string') },
    ]);
  });

  it('keeps null for a field create accepts it for', async () => {
    expect((await update({ note: null })).value).toEqual({ note: null });
  });

  it('carries only the picked fields', async () => {
    expect((await update({ is_enabled: false })).errors).toEqual([
      { field: 'is_enabled', message: 'is_enabled is not a known field.' },
    ]);
  });
});
