import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CriticalityLevel } from './entities/criticality-level.entity';
import { MaintenanceStatus } from './entities/maintenance-status.entity';
import { SensitivityLevel } from './entities/sensitivity-level.entity';
import { CriticalityLevelsController, SensitivityLevelsController } from './levels.controller';
import { MaintenanceStatusesController } from './maintenance-statuses.controller';
import { MetadataConfigQueries } from './metadata-config.queries';
import { MetadataConfigService } from './metadata-config.service';
import { SpaceConfigController } from './space-config.controller';

@Module({
  imports: [TypeOrmModule.forFeature([CriticalityLevel, SensitivityLevel, MaintenanceStatus])],
  controllers: [
    SpaceConfigController,
    CriticalityLevelsController,
    SensitivityLevelsController,
    MaintenanceStatusesController,
  ],
  providers: [MetadataConfigService, MetadataConfigQueries],
  exports: [MetadataConfigService],
})
export class MetadataConfigModule {}
