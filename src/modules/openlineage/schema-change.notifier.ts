import { Injectable, OnModuleInit } from '@nestjs/common';
import { OutboxDispatcher } from '../../platform/outbox/outbox.dispatcher';
import { ProductDirectoryService } from '../catalog/product-directory.service';
import { NotificationsService } from '../notifications/notifications.service';

/**
 * A product's owners hear of a change of its columns. An outbox consumer,
 * so the notification exists exactly when the recorded change does.
 */
@Injectable()
export class SchemaChangeNotifier implements OnModuleInit {
  constructor(
    private readonly dispatcher: OutboxDispatcher,
    private readonly notifications: NotificationsService,
    private readonly products: ProductDirectoryService,
  ) {}

  onModuleInit(): void {
    this.dispatcher.on('product.schema_changed', 'notify-schema-owners', async (event, em) => {
      const data = event.data;
      const [governance] = await this.products.ownersAndStewardsOf(em, [data.product_id]);
      const parts = [
        data.added.length ? `added ${data.added.join(', ')}` : '',
        data.removed.length ? `removed ${data.removed.join(', ')}` : '',
        data.changed.length ? `retyped ${data.changed.join(', ')}` : '',
      ].filter(Boolean);
      await this.notifications.notify(em, {
        recipients: governance?.ownerIds ?? [],
        type: 'schema_changed',
        title: `Columns of ${data.name} changed`,
        message: `An OpenLineage run reported new columns for ${data.name}: ${parts.join('; ')}.`,
        data: { product_id: data.product_id, space_id: data.space_id, change_id: data.change_id },
      });
    });
  }
}
