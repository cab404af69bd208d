import { randomUUID } from 'node:crypto';

/** The subset of OpenAPI 3.0 schema keywords the served document uses. */
export interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  enum?: unknown[];
  example?: unknown;
  default?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  nullable?: boolean;
}

/** A step of a JSON path: a property name, or the index of an array item. */
export type Segment = string | number;

/** `query.filters.0.column`: how the validation pipe names a field in `errors[]`. */
export const fieldName = (path: Segment[]) => path.join('.');

/** `query.filters[0].column`: the JSON path as a reader writes it. */
export const jsonPath = (path: Segment[]) =>
  path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i ? `.${s}` : s)).join('');

// Tried in order for a string with no usable example, default or format:
// each pattern the document uses matches one of them, and a schema none
// fits fails the walk, naming the schema.
const STRING_CANDIDATES = [
  'walk',
  'walk-1',
  'walk_1',
  'https://example.com/walk',
  'postgresql://walk:secret@db.example.com:5432/walk',
  '#3B82F6',
];

/**
 * Builds request bodies from an OpenAPI document's schemas, deterministically
 * except for uuids and emails (fresh ones, so no two requests collide):
 * `enum[0]`, else the `default` or the `example` when it fits the schema, else
 * a value for the `format`, or a candidate matching `pattern` and the length
 * bounds.
 * Only required properties are filled in; `known` gives the value of a
 * property by name where only a real one will do (a space's slug).
 */
export class SchemaSampler {
  constructor(
    private readonly schemas: Record<string, Schema>,
    private readonly known: Record<string, unknown> = {},
  ) {}

  /** The schema a `$ref` or a single-member `allOf` stands for, merged with its siblings. */
  resolve(schema: Schema): Schema {
    let current = schema;
    for (let hops = 0; current.$ref || current.allOf; hops++) {
      if (hops > 50) throw new Error(`cannot resolve ${JSON.stringify(schema)}`);
      const { $ref, allOf, ...rest } = current;
      const target = $ref
        ? this.named($ref)
        : Object.assign({}, ...(allOf ?? []).map((s) => this.resolve(s)));
      current = { ...target, ...rest, required: [...(target.required ?? []), ...(rest.required ?? [])] };
    }
    return current;
  }

  /** A valid value of the schema, with its required properties only. */
  sample(schema: Schema, index = 0): unknown {
    const s = this.resolve(schema);
    const alternative = s.oneOf?.[0] ?? s.anyOf?.[0];
    if (alternative) return this.sample(alternative, index);
    if (s.enum?.length) return s.enum[index % s.enum.length];
    if (s.type === 'array' || s.items) {
      const count = Math.max(s.minItems ?? 1, 1);
      return Array.from({ length: count }, (_, i) => this.sample(s.items ?? {}, i));
    }
    if (s.type === 'object' || s.properties) {
      if (!s.properties) return this.fits(s, s.example) ? structuredClone(s.example) : {};
      return Object.fromEntries(
        (s.required ?? []).map((name) => [name, this.known[name] ?? this.sample(s.properties![name])]),
      );
    }
    if (s.default !== undefined && this.fits(s, s.default)) return s.default;
    if (s.example !== undefined && this.fits(s, s.example)) return s.example;
    switch (s.type) {
      case 'integer':
      case 'number':
        return this.number(s);
      case 'boolean':
        return true;
      case 'string':
        return this.string(s);
      default:
        throw new Error(`no sample for schema ${JSON.stringify(s)}`);
    }
  }

  /**
   * Every required property reachable from the schema, top level first: those of
   * nested objects and of array items (at index 0) too, also under optional
   * parents, which the body then includes so the child can be left out.
   */
  requiredPaths(schema: Schema, prefix: Segment[] = [], refs: string[] = []): Segment[][] {
    const ref = schema.$ref ?? schema.allOf?.[0]?.$ref;
    if (ref && refs.includes(ref)) return []; // a recursive schema ends here
    const s = this.resolve(schema);
    const seen = ref ? [...refs, ref] : refs;
    if (s.type === 'array' || s.items) {
      return s.items ? this.requiredPaths(s.items, [...prefix, 0], seen) : [];
    }
    const properties = Object.entries(s.properties ?? {});
    return [
      ...(s.required ?? []).map((name) => [...prefix, name]),
      ...properties.flatMap(([name, child]) => this.requiredPaths(child, [...prefix, name], seen)),
    ];
  }

  /** A valid body of the schema that reaches `path`'s parent, with the property at `path` left out. */
  without(schema: Schema, path: Segment[]): unknown {
    const body = this.sample(schema);
    let node = body as Record<Segment, unknown>;
    let nodeSchema = this.resolve(schema);
    for (const segment of path.slice(0, -1)) {
      const child = typeof segment === 'number' ? nodeSchema.items : (nodeSchema.properties ?? {})[segment];
      if (!child) throw new Error(`${jsonPath(path)} is not in the schema`);
      // An optional parent is absent from the sample: give it its own required fields.
      node[segment] ??= typeof segment === 'number' ? this.sample(child, segment) : this.sample(child);
      node = node[segment] as Record<Segment, unknown>;
      nodeSchema = this.resolve(child);
    }
    delete node[path[path.length - 1]];
    return body;
  }

  private named(ref: string): Schema {
    const schema = this.schemas[ref.replace('#/components/schemas/', '')];
    if (!schema) throw new Error(`unknown ${ref}`);
    return schema;
  }

  private number(s: Schema): number {
    return Math.min(s.minimum ?? 1, s.maximum ?? Infinity);
  }

  private string(s: Schema): string {
    switch (s.format) {
      case 'uuid':
        return randomUUID();
      case 'email':
        return `walk-${randomUUID().slice(0, 8)}@example.test`;
      case 'uri':
        return 'https://example.com/walk';
      case 'date-time':
        return '2026-01-15T10:00:00Z';
      case 'date':
        return '2026-01-15';
    }
    const fitting = STRING_CANDIDATES.find((candidate) => this.fits(s, candidate));
    if (fitting === undefined) throw new Error(`no candidate string fits ${JSON.stringify(s)}`);
    return fitting;
  }

  /** Whether a value meets the schema's own constraints (type, enum, pattern, bounds). */
  private fits(s: Schema, value: unknown): boolean {
    if (s.enum && !s.enum.includes(value)) return false;
    switch (s.type) {
      case 'string':
        return (
          typeof value === 'string' &&
          value.length >= (s.minLength ?? 0) &&
          value.length <= (s.maxLength ?? Infinity) &&
          (!s.pattern || new RegExp(s.pattern).test(value))
        );
      case 'integer':
      case 'number':
        return (
          typeof value === 'number' &&
          (s.type === 'number' || Number.isInteger(value)) &&
          value >= (s.minimum ?? -Infinity) &&
          value <= (s.maximum ?? Infinity)
        );
      case 'boolean':
        return typeof value === 'boolean';
      case 'object':
        return typeof value === 'object' && value !== null && !Array.isArray(value);
      default:
        return value !== undefined;
    }
  }
}
