import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { RiskProduct } from './entities/risk-product.entity';
import { Risk } from './entities/risk.entity';
import { RisksController } from './risks.controller';
import { RiskQueries } from './risks.queries';
import { RisksService } from './risks.service';

/** The risk register. RisksService is exported for reports. */
@Module({
  imports: [TypeOrmModule.forFeature([Risk, RiskProduct]), CatalogModule],
  controllers: [RisksController],
  providers: [RisksService, RiskQueries],
  exports: [RisksService],
})
export class RisksModule {}
