import { getMetadataStorage, IsInt, IsString, validate } from 'class-validator';
import { cacheValidationRules } from './validation-rules.cache';

class Named {
  @IsString()
  name!: unknown;
}

class Counted extends Named {
  @IsInt()
  count!: unknown;
}

describe('cacheValidationRules', () => {
  beforeAll(() => cacheValidationRules());

  it('answers the same rules for a class each time, found once', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Counted, '', false, false);
    expect(storage.getTargetValidationMetadatas(Counted, '', false, false)).toBe(first);
    expect(first.map((rule) => rule.propertyName).sort()).toEqual(['count', 'name']);
    // Other options are another lookup.
    expect(storage.getTargetValidationMetadatas(Counted, '', false, false, ['admin'])).not.toBe(first);
  });

  it('keeps validating with the inherited rules, and classes defined later get their own', async () => {
    const counted = Object.assign(new Counted(), { name: 1, count: 'x' });
    expect((await validate(counted)).map((error) => error.property).sort()).toEqual(['count', 'name']);
    expect((await validate(counted)).map((error) => error.property).sort()).toEqual(['count', 'name']);

    class Tagged extends Counted {
      @IsString()
      tag!: unknown;
    }
    const tagged = Object.assign(new Tagged(), { name: 'n', count: 1, tag: 2 });
    expect((await validate(tagged)).map((error) => error.property)).toEqual(['tag']);
    expect(await validate(Object.assign(new Named(), { name: 'ok' }))).toEqual([]);
  });
});
