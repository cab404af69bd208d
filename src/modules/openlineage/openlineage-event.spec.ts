import { kindOf, namespacesOf, OlEvent, schemaColumns, validateEvent } from './openlineage-event';
import { diffColumns } from './schema-diff';

const base = {
  eventTime: '2024-05-14T09:31:12.402947+00:00',
  producer: 'https://github.com/OpenLineage/OpenLineage/tree/1.13.1/client/python',
  schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
};
const run = {
  ...base,
  eventType: 'START',
  run: { runId: '0176a8c2-fe01-7439-87e6-56a1a1b4029f' },
  job: { namespace: 'jobs', name: 'a.b' },
};
const fields = (value: unknown, prefix = '') => validateEvent(value, prefix).map((e) => e.field);

describe('OpenLineage event checks', () => {
  it('accepts a minimal RunEvent, JobEvent and DatasetEvent', () => {
    expect(validateEvent(run)).toEqual([]);
    expect(
      validateEvent({ ...base, schemaURL: `${base.schemaURL.split('#')[0]}#/$defs/JobEvent`, job: run.job }),
    ).toEqual([]);
    expect(
      validateEvent({
        ...base,
        schemaURL: `${base.schemaURL.split('#')[0]}#/$defs/DatasetEvent`,
        dataset: { namespace: 'n', name: 'd' },
      }),
    ).toEqual([]);
  });

  it('tells the kind by the schema URL, RunEvent by default, and by the shape without one', () => {
    expect(
      kindOf({ schemaURL: 'https://openlineage.io/spec/1-0-5/OpenLineage.json#/definitions/RunEvent' }),
    ).toBe('run');
    expect(kindOf({ schemaURL: 'x#/$defs/JobEvent' })).toBe('job');
    expect(kindOf({ schemaURL: 'x#/$defs/DatasetEvent' })).toBe('dataset');
    expect(kindOf({})).toBe('run');
    expect(kindOf({ job: {} })).toBe('job');
    expect(kindOf({ job: {}, run: {} })).toBe('run');
    expect(kindOf({ dataset: {} })).toBe('dataset');
  });

  it('names each missing or malformed field, with a prefix in a batch', () => {
    expect(fields({ ...run, run: {} })).toEqual(['run.runId']);
    expect(validateEvent({ ...run, run: {} })[0].message).toBe('run.runId is required.');
    expect(fields({ ...run, eventTime: '2024-05-14' }, '[3].')).toEqual(['[3].eventTime']);
    expect(fields({ ...run, eventTime: '2024-05-14T10:00:00' })).toEqual(['eventTime']);
    expect(fields({ ...run, producer: 'not a uri' })).toEqual(['producer']);
    expect(fields({ ...run, eventType: 'DONE', job: { name: 'x' } })).toEqual(['eventType', 'job.namespace']);
    expect(fields({ ...run, run: { runId: 'nope' } })).toEqual(['run.runId']);
    expect(fields('text', '[0].')).toEqual(['[0]']);
    expect(fields({ ...run, inputs: {} })).toEqual(['inputs']);
  });

  it('leaves eventType out as allowed (the specification does not require it)', () => {
    const { eventType: _eventType, ...noType } = run;
    expect(validateEvent(noType)).toEqual([]);
  });

  it('checks the facets it uses and keeps every other one', () => {
    const event = {
      ...run,
      run: {
        runId: run.run.runId,
        facets: {
          errorMessage: { programmingLanguage: 'python' },
          parent: { run: { runId: 'x' }, job: { namespace: 'n' } },
          anything: 42,
        },
      },
      outputs: [
        {
          namespace: 'n',
          name: 'o',
          facets: {
            schema: { fields: [{ name: 'a', type: 'INT', fields: [{ type: 'x' }] }] },
            columnLineage: { fields: { a: { inputFields: [{ namespace: 'n', name: 'i' }] } } },
            dataSource: { uri: 5 },
            custom: 'kept',
          },
        },
      ],
      inputs: [
        {
          namespace: 'n',
          name: 'i',
          inputFacets: { dataQualityAssertions: { assertions: [{ success: true }] } },
        },
      ],
    };
    expect(fields(event).sort()).toEqual(
      [
        'run.facets.errorMessage.message',
        'run.facets.parent.run.runId',
        'run.facets.parent.job.name',
        'outputs.0.facets.schema.fields.0.fields.0.name',
        'outputs.0.facets.columnLineage.fields.a.inputFields.0.field',
        'outputs.0.facets.dataSource.uri',
        'inputs.0.inputFacets.dataQualityAssertions.assertions.0.assertion',
      ].sort(),
    );
  });

  it('flattens nested schema fields and lists every namespace an event names', () => {
    expect(
      schemaColumns([{ name: 'a', type: 'STRUCT', fields: [{ name: 'b', type: 'INT' }] }, { name: 'c' }]),
    ).toEqual([
      { name: 'a', type: 'STRUCT' },
      { name: 'a.b', type: 'INT' },
      { name: 'c', type: null },
    ]);
    const event = {
      ...run,
      inputs: [{ namespace: 'in', name: 'i' }],
      outputs: [
        {
          namespace: 'out',
          name: 'o',
          facets: {
            columnLineage: {
              fields: { a: { inputFields: [{ namespace: 'other', name: 'x', field: 'f' }] } },
            },
          },
        },
      ],
    } as OlEvent;
    expect(namespacesOf(event).sort()).toEqual(['in', 'jobs', 'other', 'out']);
  });
});

describe('column changes', () => {
  it('lists added, removed and retyped columns', () => {
    expect(
      diffColumns(
        [
          { name: 'id', type: 'INT' },
          { name: 'total', type: 'DECIMAL' },
        ],
        [
          { name: 'id', type: 'BIGINT' },
          { name: 'currency', type: null },
        ],
      ),
    ).toEqual({
      added: [{ name: 'currency', type: null }],
      removed: [{ name: 'total', type: 'DECIMAL' }],
      changed: [{ name: 'id', type: 'BIGINT', previous_type: 'INT' }],
    });
  });
});
