import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource, QueryFailedError } from 'typeorm';

export const DATABASE_SESSION_SHARED = Symbol('DATABASE_SESSION_SHARED');

/**
 * Runs hot, fixed statements (the per-request authentication reads) straight
 * on the pool, as named prepared statements: PostgreSQL parses and plans each
 * once per connection instead of on every request, and no TypeORM query
 * runner is set up for them. On the embedded database every connection
 * shares one session, where a statement prepared by a closed connection
 * lingers under its name; there they run unnamed.
 */
@Injectable()
export class PreparedQueries {
  // Statement names by text: a name is bound to one text on every connection.
  private readonly names = new Map<string, string>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(DATABASE_SESSION_SHARED) private readonly sessionShared: boolean,
  ) {}

  /**
   * On the pool, outside any transaction: the statement runs on a connection
   * of its own, never on a caller's transaction, and commits by itself.
   */
  async queryOutsideTransaction<Row>(text: string, values: unknown[]): Promise<Row[]> {
    const result = await this.pool()
      .query({ name: this.sessionShared ? undefined : this.nameOf(text), text, values })
      .catch(failed(text, values));
    return result.rows as Row[];
  }

  /**
   * Straight on the pool too (outside any transaction), but parsed and
   * planned on each call, for a statement whose best plan depends on its values.
   */
  async queryUnnamedOutsideTransaction<Row>(text: string, values: unknown[]): Promise<Row[]> {
    return (await this.pool().query({ text, values }).catch(failed(text, values))).rows as Row[];
  }

  private pool(): Pool {
    return (this.dataSource.driver as unknown as { master: Pool }).master;
  }

  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (!name) {
      name = `verity_${this.names.size + 1}`;
      this.names.set(text, name);
    }
    return name;
  }
}

/** A failed statement as TypeORM reports one, so constraint violations map to problems as anywhere else. */
function failed(text: string, values: unknown[]): (error: unknown) => never {
  return (error) => {
    throw error instanceof Error && 'code' in error ? new QueryFailedError(text, values, error) : error;
  };
}
