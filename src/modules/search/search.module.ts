import { Module } from '@nestjs/common';
import { EmbeddingsModule } from '../embeddings/embeddings.module';
import { SearchCache } from './search.cache';
import { SearchController } from './search.controller';
import { SearchQueries } from './search.queries';
import { SearchService } from './search.service';

/** POST /search: keyword (full-text) and semantic search over everything a caller may read. */
@Module({
  imports: [EmbeddingsModule],
  controllers: [SearchController],
  providers: [SearchService, SearchQueries, SearchCache],
})
export class SearchModule {}
