import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { User } from './entities/user.entity';
import { PreferencesController } from './preferences.controller';
import { UsersController } from './users.controller';
import { UsersQueries } from './users.queries';
import { UserDirectoryService } from './user-directory.service';
import { UsersService } from './users.service';

@Module({
  imports: [TypeOrmModule.forFeature([User])],
  controllers: [UsersController, PreferencesController],
  providers: [UsersService, UserDirectoryService, UsersQueries],
  exports: [UserDirectoryService],
})
export class UsersModule {}
