import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { UsersModule } from '../users/users.module';
import { TicketComment } from './entities/ticket-comment.entity';
import { TicketIncidentLink } from './entities/ticket-incident-link.entity';
import { Ticket } from './entities/ticket.entity';
import { TicketsController } from './tickets.controller';
import { TicketQueries } from './tickets.queries';
import { TicketsService } from './tickets.service';

/** The issue tracker. It knows nothing of quality incidents but their ids: the quality module links through TicketsService. */
@Module({
  imports: [
    TypeOrmModule.forFeature([Ticket, TicketComment, TicketIncidentLink]),
    UsersModule,
    CatalogModule,
    NotificationsModule,
  ],
  controllers: [TicketsController],
  providers: [TicketsService, TicketQueries],
  exports: [TicketsService],
})
export class TicketsModule {}
