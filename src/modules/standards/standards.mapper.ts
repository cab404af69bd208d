import type { StandardPageEventData } from '../../platform/outbox/event-map';
import type { StandardPageResponse } from './dto/standard-page.dto';
import type { StandardPage } from './entities/standard-page.entity';

export function toStandardPageResponse(page: StandardPage, spaceSlug: string): StandardPageResponse {
  return {
    id: page.id,
    space_slug: spaceSlug,
    title: page.title,
    body: page.body,
    status: page.status,
    published_at: page.publishedAt?.toISOString() ?? null,
    created_by: page.createdBy,
    updated_by: page.updatedBy,
    created_at: page.createdAt.toISOString(),
    updated_at: page.updatedAt.toISOString(),
  };
}

export function standardPageEventData(page: StandardPage): StandardPageEventData {
  return {
    standard_page_id: page.id,
    space_id: page.spaceId,
    title: page.title,
    status: page.status,
    published_at: page.publishedAt?.toISOString() ?? null,
  };
}
