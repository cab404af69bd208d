import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDate,
  IsEmail,
  IsIn,
  IsInt,
  IsISO8601,
  IsNumber,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/**
 * Composed "validate + document" decorators: each sets the class-validator
 * constraints and the OpenAPI schema of a field together, so the document
 * cannot drift from what the API accepts.
 */
export interface FieldOptions {
  description?: string;
  example?: unknown;
  /** The field may be left out. */
  optional?: boolean;
  /** The field may be null (meaning "clear it" on updates). */
  nullable?: boolean;
  /** Documented default when the field is left out. */
  default?: unknown;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
export const HEX_COLOR = /^#[0-9A-Fa-f]{6}$/;

/**
 * A UUID as PostgreSQL reads one: 8-4-4-4-12 hex digits in any case, with no
 * check of the RFC version or variant nibbles, so rows whose ids came from
 * another system (nil, max, version 0, ...) stay reachable.
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

function presence(options: FieldOptions): PropertyDecorator[] {
  const { optional = false, nullable = false } = options;
  if (!optional && !nullable) return [];
  // Unlike IsOptional, null is only accepted where the field is nullable.
  return [
    ValidateIf((_object, value) => (optional ? value !== undefined : true) && !(nullable && value === null)),
  ];
}

function documented(options: FieldOptions, schema: ApiPropertyOptions): PropertyDecorator {
  return ApiProperty({
    required: !options.optional,
    nullable: options.nullable || undefined,
    description: options.description,
    example: options.example,
    default: options.default,
    ...schema,
  } as ApiPropertyOptions);
}

export function StringField(options: FieldOptions & { min?: number; max?: number; pattern?: RegExp } = {}) {
  const { min = 0, max = 10_000, pattern } = options;
  return applyDecorators(
    ...presence(options),
    IsString(),
    ...(min > 0 ? [MinLength(min)] : []),
    MaxLength(max),
    ...(pattern ? [Matches(pattern)] : []),
    documented(options, {
      type: String,
      minLength: min > 0 ? min : undefined,
      maxLength: max,
      pattern: pattern?.source,
    }),
  );
}

/** A non-blank string, trimmed. */
export function TextField(options: FieldOptions & { min?: number; max?: number } = {}) {
  return applyDecorators(
    Transform(({ value }) => (typeof value === 'string' ? value.trim() : value)),
    StringField({ min: 1, ...options }),
  );
}

const EMAIL_DOC =
  'An email address, trimmed and lowercased before it is checked (as validator.js `isEmail` checks it), at most 320 characters.';

/**
 * An email address, normalised then checked. Documented without `format: email`:
 * a JSON Schema validator would refuse input the server accepts (surrounding spaces).
 */
export function EmailField(options: FieldOptions = {}) {
  return applyDecorators(
    Transform(({ value }) => (typeof value === 'string' ? value.trim().toLowerCase() : value)),
    ...presence(options),
    IsEmail({}, { message: '$property must be an email address' }),
    MaxLength(320),
    documented(
      { ...options, description: options.description ? `${options.description} ${EMAIL_DOC}` : EMAIL_DOC },
      // Without `format: email`, the example is what tells a client (and a sample generator) the shape.
      { type: String, maxLength: 320, example: options.example ?? 'ann@example.com' },
    ),
  );
}

export function UuidField(options: FieldOptions = {}) {
  return applyDecorators(
    ...presence(options),
    Matches(UUID_PATTERN, { message: '$property must be a UUID' }),
    documented(options, { type: String, format: 'uuid' }),
  );
}

export function UuidArrayField(options: FieldOptions & { maxItems?: number } = {}) {
  const { maxItems = 100 } = options;
  return applyDecorators(
    ...presence(options),
    Matches(UUID_PATTERN, { each: true, message: 'each value of $property must be a UUID' }),
    ArrayMaxSize(maxItems),
    documented(options, { type: String, format: 'uuid', isArray: true, maxItems }),
  );
}

export function IntField(options: FieldOptions & { min?: number; max?: number } = {}) {
  const { min, max } = options;
  return applyDecorators(
    ...presence(options),
    IsInt(),
    ...(min !== undefined ? [Min(min)] : []),
    ...(max !== undefined ? [Max(max)] : []),
    documented(options, { type: 'integer', minimum: min, maximum: max }),
  );
}

export function NumberField(options: FieldOptions & { min?: number; max?: number } = {}) {
  const { min, max } = options;
  return applyDecorators(
    ...presence(options),
    IsNumber({ allowNaN: false, allowInfinity: false }),
    ...(min !== undefined ? [Min(min)] : []),
    ...(max !== undefined ? [Max(max)] : []),
    documented(options, { type: 'number', minimum: min, maximum: max }),
  );
}

export function BooleanField(options: FieldOptions = {}) {
  return applyDecorators(...presence(options), IsBoolean(), documented(options, { type: Boolean }));
}

export function EnumField(values: readonly string[], options: FieldOptions & { enumName?: string } = {}) {
  return applyDecorators(
    ...presence(options),
    IsIn(values as string[], { message: `$property must be one of: ${values.join(', ')}` }),
    documented(options, { enum: values as string[], enumName: options.enumName, type: String }),
  );
}

/** An ISO 8601 timestamp; any offset is accepted and turned into a UTC Date. */
export function DateTimeField(options: FieldOptions = {}) {
  return applyDecorators(
    Transform(({ value }) => {
      if (typeof value !== 'string' || !ISO_DATE_TIME.test(value)) return value;
      return new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`);
    }),
    ...presence(options),
    IsDate({ message: '$property must be an ISO 8601 date-time' }),
    documented(options, { type: String, format: 'date-time' }),
  );
}

/** A calendar date, `YYYY-MM-DD`, kept as a string. */
export function DateField(options: FieldOptions = {}) {
  return applyDecorators(
    ...presence(options),
    IsString(),
    Matches(ISO_DATE, { message: '$property must be a date in the form YYYY-MM-DD' }),
    IsISO8601({ strict: true }, { message: '$property must be a valid calendar date' }),
    documented(options, { type: String, format: 'date' }),
  );
}

export function HexColorField(options: FieldOptions = {}) {
  return applyDecorators(
    ...presence(options),
    IsString(),
    Matches(HEX_COLOR, { message: '$property must be a color of the form #RRGGBB' }),
    documented(options, { type: String, pattern: HEX_COLOR.source, example: options.example ?? '#3B82F6' }),
  );
}

export function StringArrayField(
  options: FieldOptions & { maxItems?: number; itemMax?: number; minItems?: number } = {},
) {
  const { maxItems = 100, itemMax = 200, minItems } = options;
  return applyDecorators(
    ...presence(options),
    IsString({ each: true }),
    MaxLength(itemMax, { each: true }),
    ArrayMaxSize(maxItems),
    ...(minItems !== undefined ? [ArrayMinSize(minItems)] : []),
    documented(options, { type: String, isArray: true, maxItems, minItems }),
  );
}

/** A list of values from a closed set, documented as an enum array (named `enumName` in the document). */
export function EnumArrayField(
  values: readonly string[],
  options: FieldOptions & { enumName?: string; maxItems?: number; minItems?: number } = {},
) {
  const { maxItems = values.length, minItems } = options;
  return applyDecorators(
    ...presence(options),
    IsArray(),
    IsIn(values as string[], {
      each: true,
      message: `each value of $property must be one of: ${values.join(', ')}`,
    }),
    ArrayMaxSize(maxItems),
    ...(minItems !== undefined ? [ArrayMinSize(minItems)] : []),
    documented(options, {
      enum: values as string[],
      enumName: options.enumName,
      type: String,
      isArray: true,
      maxItems,
      minItems,
    }),
  );
}

/** A list of email addresses, documented as such item by item. */
export function EmailArrayField(options: FieldOptions & { maxItems?: number; minItems?: number } = {}) {
  const { maxItems = 100, minItems } = options;
  return applyDecorators(
    ...presence(options),
    IsEmail({}, { each: true, message: 'each value of $property must be an email address' }),
    MaxLength(320, { each: true }),
    ArrayMaxSize(maxItems),
    ...(minItems !== undefined ? [ArrayMinSize(minItems)] : []),
    documented(options, { type: String, format: 'email', isArray: true, maxItems, minItems }),
  );
}

/** A free-form JSON object. */
export function JsonObjectField(options: FieldOptions = {}) {
  return applyDecorators(
    ...presence(options),
    IsObject(),
    documented(options, { type: 'object', additionalProperties: true }),
  );
}

/**
 * Any JSON value (a string, number, boolean or list of them): its shape
 * depends on a sibling field, so the service checks it and names the field.
 */
export function JsonValueField(options: FieldOptions = {}) {
  const scalar = [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }];
  return applyDecorators(
    Allow(),
    documented(options, { oneOf: [...scalar, { type: 'array', items: { oneOf: scalar } }] }),
  );
}

/** A nested DTO, validated with its own decorators (unknown fields rejected too). */
export function NestedField(
  type: () => new () => object,
  options: FieldOptions & { isArray?: boolean; maxItems?: number } = {},
) {
  const { maxItems } = options;
  return applyDecorators(
    ...presence(options),
    // ValidateNested passes a missing value (and walks an array given for an
    // object): the shape is checked first, so a required one is required.
    options.isArray ? IsArray() : IsObject(),
    ValidateNested({ each: options.isArray }),
    ...(maxItems !== undefined ? [ArrayMaxSize(maxItems)] : []),
    Type(type),
    // Swagger reads a thunk as a lazy type only when the function is named `type`,
    // as a property of an object literal names it; a bare thunk became an empty $ref.
    documented(options, { type: () => type(), isArray: options.isArray, maxItems }),
  );
}

// Query strings arrive as text: these convert before validating.

function toInteger({ value }: { value: unknown }): unknown {
  return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
}

function toBoolean({ value }: { value: unknown }): unknown {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return value;
}

export function QueryIntField(options: FieldOptions & { min?: number; max?: number } = {}) {
  return applyDecorators(Transform(toInteger), IntField({ optional: true, ...options }));
}

export function QueryBooleanField(options: FieldOptions = {}) {
  return applyDecorators(Transform(toBoolean), BooleanField({ optional: true, ...options }));
}
