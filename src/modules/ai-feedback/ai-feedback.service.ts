import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, SelectQueryBuilder } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { ValidationFailed } from '../../common/errors/domain-error';
import { csvLine } from '../../common/text/csv';
import { AiLogsService } from '../ai/ai-logs.service';
import {
  AiFeedbackFilterQuery,
  AiFeedbackPageResponse,
  AiFeedbackResponse,
  AiFeedbackStatsResponse,
  CreateAiFeedbackDto,
  ExportAiFeedbackQuery,
  ListAiFeedbackQuery,
} from './dto/ai-feedback.dto';
import { AiFeedback, FeedbackRating } from './entities/ai-feedback.entity';

const EXPORT_BATCH = 1_000;
const EXPORT_COLUMNS = [
  'id',
  'feature',
  'log_id',
  'suggestion_id',
  'rating',
  'comment',
  'user_id',
  'created_at',
] as const;

export interface FeedbackExport {
  contentType: string;
  fileName: string;
  /** The document in pieces, read from the database a batch at a time. */
  chunks: AsyncIterable<string>;
}

export function toFeedbackResponse(row: AiFeedback): AiFeedbackResponse {
  return {
    id: row.id,
    feature: row.feature,
    log_id: row.logId,
    suggestion_id: row.suggestionId,
    rating: row.rating,
    comment: row.comment,
    user_id: row.userId,
    created_at: row.createdAt.toISOString(),
  };
}

/** Feedback on AI answers: given by anyone, read and exported by superadmins. */
@Injectable()
export class AiFeedbackService {
  constructor(
    @InjectRepository(AiFeedback) private readonly feedback: Repository<AiFeedback>,
    private readonly logs: AiLogsService,
  ) {}

  async create(actor: Actor, dto: CreateAiFeedbackDto): Promise<AiFeedbackResponse> {
    if (dto.log_id && !(await this.logs.exists(dto.log_id))) {
      throw ValidationFailed.field('log_id', 'log_id must name an AI log entry.');
    }
    const row = await this.feedback.save(
      this.feedback.create({
        feature: dto.feature,
        logId: dto.log_id ?? null,
        suggestionId: dto.suggestion_id ?? null,
        rating: dto.rating as FeedbackRating,
        comment: dto.comment ?? null,
        userId: actor.userId,
      }),
    );
    return toFeedbackResponse(row);
  }

  async list(query: ListAiFeedbackQuery): Promise<AiFeedbackPageResponse> {
    const page = query.page ?? 1;
    const size = query.size ?? 50;
    const [rows, total] = await this.filtered(query)
      .orderBy('f.createdAt', 'DESC')
      .addOrderBy('f.id', 'DESC')
      .skip((page - 1) * size)
      .take(size)
      .getManyAndCount();
    return { items: rows.map(toFeedbackResponse), total, page, size };
  }

  async stats(query: AiFeedbackFilterQuery): Promise<AiFeedbackStatsResponse[]> {
    const rows = await this.filtered(query)
      .select('f.feature', 'feature')
      .addSelect('COUNT(*)::int', 'total')
      .addSelect(`COUNT(*) FILTER (WHERE f.rating = 'accepted')::int`, 'accepted')
      .addSelect(`COUNT(*) FILTER (WHERE f.rating = 'rejected')::int`, 'rejected')
      .addSelect(`COUNT(*) FILTER (WHERE f.rating = 'edited')::int`, 'edited')
      .groupBy('f.feature')
      .orderBy('f.feature', 'ASC')
      .getRawMany<{ feature: string; total: number; accepted: number; rejected: number; edited: number }>();
    return rows.map((r) => ({
      ...r,
      acceptance_rate: r.total ? Math.round(((r.accepted + r.edited) / r.total) * 10_000) / 10_000 : 0,
    }));
  }

  export(query: ExportAiFeedbackQuery): FeedbackExport {
    const json = query.format === 'json';
    const stamp = new Date().toISOString().slice(0, 10);
    return {
      contentType: json ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8',
      fileName: `ai-feedback-${stamp}.${json ? 'json' : 'csv'}`,
      chunks: json ? this.jsonChunks(query) : this.csvChunks(query),
    };
  }

  private async *csvChunks(query: AiFeedbackFilterQuery): AsyncIterable<string> {
    yield csvLine([...EXPORT_COLUMNS]);
    for await (const batch of this.batches(query)) {
      yield batch
        .map((row) => {
          const r = toFeedbackResponse(row);
          return csvLine(EXPORT_COLUMNS.map((column) => r[column]));
        })
        .join('');
    }
  }

  private async *jsonChunks(query: AiFeedbackFilterQuery): AsyncIterable<string> {
    let first = true;
    yield '[';
    for await (const batch of this.batches(query)) {
      const text = batch.map((row) => JSON.stringify(toFeedbackResponse(row))).join(',');
      yield first ? text : `,${text}`;
      first = false;
    }
    yield ']';
  }

  /** Oldest first, by keyset, so memory holds one batch whatever the table's size. */
  private async *batches(query: AiFeedbackFilterQuery): AsyncIterable<AiFeedback[]> {
    let afterId: string | null = null;
    for (;;) {
      const qb = this.filtered(query);
      // The cursor row is read back in SQL: a JS Date would drop the microseconds of created_at.
      if (afterId) {
        qb.andWhere(
          '(f.createdAt, f.id) > (SELECT c.created_at, c.id FROM ai_feedback c WHERE c.id = :afterId)',
          {
            afterId,
          },
        );
      }
      const rows = await qb
        .orderBy('f.createdAt', 'ASC')
        .addOrderBy('f.id', 'ASC')
        .take(EXPORT_BATCH)
        .getMany();
      if (!rows.length) return;
      yield rows;
      if (rows.length < EXPORT_BATCH) return;
      afterId = rows[rows.length - 1].id;
    }
  }

  private filtered(query: AiFeedbackFilterQuery): SelectQueryBuilder<AiFeedback> {
    const qb = this.feedback.createQueryBuilder('f');
    if (query.feature) qb.andWhere('f.feature = :feature', { feature: query.feature });
    if (query.rating) qb.andWhere('f.rating = :rating', { rating: query.rating });
    if (query.user_id) qb.andWhere('f.userId = :userId', { userId: query.user_id });
    if (query.since) qb.andWhere('f.createdAt >= :since', { since: query.since });
    if (query.until) qb.andWhere('f.createdAt < :until', { until: query.until });
    return qb;
  }
}
