import { Injectable, OnModuleInit } from '@nestjs/common';
import { OutboxDispatcher } from '../../platform/outbox/outbox.dispatcher';
import { NotificationsService } from '../notifications/notifications.service';
import { ProductDirectoryService } from './product-directory.service';

/**
 * Access requests as notifications: reviewers (the product's owners and
 * stewards) hear of a new request, the requester of the decision. Runs as an
 * outbox consumer, so a notification exists exactly when the request does.
 */
@Injectable()
export class AccessRequestNotifier implements OnModuleInit {
  constructor(
    private readonly dispatcher: OutboxDispatcher,
    private readonly notifications: NotificationsService,
    private readonly products: ProductDirectoryService,
  ) {}

  onModuleInit(): void {
    this.dispatcher.on('access_request.submitted', 'notify-access-reviewers', async (event, em) => {
      const data = event.data;
      const [governance] = await this.products.ownersAndStewardsOf(em, [data.product_id]);
      const reviewers = [...(governance?.ownerIds ?? []), ...(governance?.stewardIds ?? [])].filter(
        (id) => id !== data.requester_id,
      );
      await this.notifications.notify(em, {
        recipients: reviewers,
        type: 'access_submitted',
        title: `Access requested to ${data.product_name}`,
        message: `A member asked for ${data.access_level} access to ${data.product_name}.`,
        data: { request_id: data.request_id, product_id: data.product_id, space_id: data.space_id },
      });
    });
    this.dispatcher.on('access_request.approved', 'notify-access-requester', async (event, em) => {
      const data = event.data;
      const until = data.expires_at ? ` until ${data.expires_at}` : '';
      await this.notifications.notify(em, {
        recipients: [data.requester_id],
        type: 'access_approved',
        title: `Access to ${data.product_name} approved`,
        message: `Your request for ${data.access_level} access to ${data.product_name} was approved${until}.`,
        data: { request_id: data.request_id, product_id: data.product_id, space_id: data.space_id },
      });
    });
    this.dispatcher.on('access_request.rejected', 'notify-access-requester', async (event, em) => {
      const data = event.data;
      await this.notifications.notify(em, {
        recipients: [data.requester_id],
        type: 'access_rejected',
        title: `Access to ${data.product_name} rejected`,
        message: `Your request for ${data.access_level} access to ${data.product_name} was rejected: ${data.reason}`,
        data: { request_id: data.request_id, product_id: data.product_id, space_id: data.space_id },
      });
    });
  }
}
