import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { ValidationFailed } from '../../common/errors/domain-error';
import { SpaceAccessPort } from '../../common/permissions/space-access.port';
import { ConnectorsService } from '../connectors/connectors.service';
import { SourceCatalog } from '../connectors/source-catalog.service';
import { ReadOnlySession, UserDatabaseError } from '../connectors/user-database.client';
import { ExecuteQueryDto, QueryResultResponse } from './dto/visual-query.dto';
import { CompiledQuery, compileQuery, MAX_PIVOT_VALUES, VisualQuery } from './query-compiler';
import { toCellValue } from './query-values';
import { SourceQueryFailed } from './query.errors';

/**
 * The visual query: names resolved against the source's own catalog
 * (cached briefly per connector), compiled to one parameterised statement
 * (two for a pivot: its values, then its cells), and run in the connector's
 * read-only session with its statement timeout; LIMIT n + 1 tells
 * `truncated` without reading more.
 */
@Injectable()
export class QueryService {
  constructor(
    private readonly access: SpaceAccessPort,
    private readonly connectors: ConnectorsService,
    private readonly catalog: SourceCatalog,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async execute(actor: Actor, dto: ExecuteQueryDto): Promise<QueryResultResponse> {
    // Before any transaction: the DataSource's manager.
    const { space } = await this.access.requireRole(actor, dto.space_slug, 'editor', this.dataSource.manager);
    const query = dto.query as VisualQuery;
    const started = performance.now();
    try {
      return await this.connectors.withReadOnlySession(
        space.id,
        dto.connector_id,
        async (session) => {
          const table = await this.catalog.resolveTable(session, query.table, { cacheKey: dto.connector_id });
          if (!table) {
            throw ValidationFailed.field(
              'query.table',
              `Table ${query.table} was not found in the source database (or the connector's role cannot see it).`,
            );
          }
          const plan = compileQuery(query, table);
          const compiled =
            plan.kind === 'rows' ? plan.query : plan.build(await pivotValues(session, plan.values));
          return answer(await run(session, compiled), compiled, started);
        },
        { utcTimestamps: true },
      );
    } catch (error) {
      if (!(error instanceof UserDatabaseError)) throw error;
      // Data exceptions (22...) and type mismatches (42804, 42883): the query's values or types, the caller's to fix.
      if (error.code && (error.code.startsWith('22') || error.code === '42804' || error.code === '42883')) {
        throw new ValidationFailed([
          { field: 'query', message: `The source refused the query: ${error.message}` },
        ]);
      }
      throw new SourceQueryFailed(error.message);
    }
  }
}

async function pivotValues(session: ReadOnlySession, statement: { sql: string; params: unknown[] }) {
  const result = await session.queryRaw(statement.sql, statement.params);
  if (result.rows.length > MAX_PIVOT_VALUES) {
    throw ValidationFailed.field(
      'query.pivot.column',
      `The pivot column has more than ${MAX_PIVOT_VALUES} distinct values after the filters; filter it further.`,
    );
  }
  return result.rows.map((r) => r[0] as string);
}

function run(session: ReadOnlySession, compiled: CompiledQuery) {
  return session.queryRaw(compiled.sql, compiled.params);
}

function answer(
  result: Awaited<ReturnType<ReadOnlySession['queryRaw']>>,
  compiled: CompiledQuery,
  started: number,
): QueryResultResponse {
  const truncated = result.rows.length > compiled.limit;
  const rows = (truncated ? result.rows.slice(0, compiled.limit) : result.rows).map((row) =>
    row.map((text, i) => toCellValue(text, result.fields[i].typeId)),
  );
  return {
    columns: compiled.columns,
    rows,
    row_count: rows.length,
    truncated,
    elapsed_ms: Math.round(performance.now() - started),
  };
}
