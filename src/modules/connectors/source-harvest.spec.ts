import { assembleTables, datasetInput, productNameOf } from './source-harvest';

describe('source harvest', () => {
  const tables = [
    { schema: 'public', table: 'orders', relkind: 'r', reltuples: '1200', comment: 'All orders' },
    { schema: 'sales', table: 'daily', relkind: 'v', reltuples: -1, comment: null },
  ];
  const columns = [
    { schema: 'public', table: 'orders', name: 'id', type: 'bigint', not_null: true, position: 1 },
    { schema: 'public', table: 'orders', name: 'note', type: 'text', not_null: false, position: 2 },
    { schema: 'sales', table: 'daily', name: 'day', type: 'date', not_null: false, position: 1 },
  ];

  it('groups columns under their tables, with estimates (-1 meaning unknown)', () => {
    const [orders, daily] = assembleTables(tables, columns);
    expect(orders).toEqual({
      schema: 'public',
      table: 'orders',
      kind: 'table',
      rowEstimate: 1200,
      comment: 'All orders',
      columns: [
        { name: 'id', type: 'bigint', nullable: false, position: 1 },
        { name: 'note', type: 'text', nullable: true, position: 2 },
      ],
    });
    expect(daily).toEqual(expect.objectContaining({ kind: 'view', rowEstimate: null }));
  });

  it('names products by table, qualifying schemas other than public', () => {
    expect(productNameOf({ schema: 'public', table: 'orders' })).toBe('orders');
    expect(productNameOf({ schema: 'sales', table: 'daily' })).toBe('sales.daily');
  });

  it('puts columns, types and nullability under attributes.schema', () => {
    const [orders] = assembleTables(tables, columns);
    const connector = {
      id: 'c1',
      name: 'warehouse',
      host: 'DB.example.com',
      port: 5433,
      databaseName: 'shop',
    };
    const input = datasetInput(orders, connector, new Date('2026-01-01T00:00:00Z'));
    expect(input).toEqual({
      name: 'orders',
      identity: { namespace: 'postgres://db.example.com:5433', name: 'shop.public.orders' },
      description: 'All orders',
      attributes: {
        schema: {
          source_schema: 'public',
          source_table: 'orders',
          table_type: 'table',
          row_estimate: 1200,
          columns: [
            { name: 'id', type: 'bigint', nullable: false },
            { name: 'note', type: 'text', nullable: true },
          ],
        },
        source: { connector_id: 'c1', connector_name: 'warehouse', synced_at: '2026-01-01T00:00:00.000Z' },
      },
    });
  });
});
