import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { NotFound } from '../../common/errors/domain-error';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { TransactionRunner } from '../../database/transaction.runner';
import { JobRunner } from '../../platform/jobs/job-runner.service';
import { AttachmentEventData } from '../../platform/outbox/event-map';
import { OutboxDispatcher } from '../../platform/outbox/outbox.dispatcher';
import { OutboxService } from '../../platform/outbox/outbox.service';
import { ObjectNotFound, ObjectStorage, OpenedObject } from '../../platform/storage/object-storage';
import { DownloadLinkRejected, StorageUnavailable } from './attachments.errors';
import { DownloadLinkSigner } from './download-links';
import { contentDisposition } from './file-names';
import { Attachment } from './entities/attachment.entity';
import { MultipartUpload, ReceivedFile, receiveUpload } from './multipart-upload';

export const PURGE_OBJECT_JOB = 'attachments.purge-object';
export const REAP_UPLOAD_JOB = 'attachments.reap-upload';
export const SWEEP_ORPHANS_JOB = 'attachments.sweep-orphans';

// An upload has at most Node's request timeout (5 minutes) to arrive; an object whose row does not
// exist an hour after its upload began was left by a crash between the two, and is removed.
const REAP_AFTER_MS = 60 * 60_000;
// Deletes remove the object straight after the commit; the job is the safety net for a failure then.
const PURGE_SAFETY_DELAY_MS = 60_000;

/** A file ready to be sent: the opened object and its response headers. */
export interface FileDownload {
  object: OpenedObject;
  headers: Record<string, string>;
}

export interface DownloadLink {
  download_url: string;
  file_name: string;
  expires_at: string;
}

export function attachmentEventData(a: Attachment): AttachmentEventData {
  return {
    attachment_id: a.id,
    space_id: a.spaceId,
    parent_type: a.parentType,
    product_id: a.parentType === 'product' ? a.parentId : null,
    ticket_id: a.parentType === 'ticket' ? a.parentId : null,
    comment_id: a.commentId,
    file_name: a.fileName,
    file_size: a.fileSize,
    mime_type: a.mimeType,
    uploaded_by: a.uploadedBy,
  };
}

/**
 * The life of an attachment's bytes, whatever its parent: receiving an
 * upload into the object storage, recording and removing rows with their
 * events, serving and signing downloads, and the jobs that keep rows and
 * objects in step.
 *
 * Ordering, so that a failure anywhere leaves no row without its object and
 * no object without its row for long:
 * - upload: a reap job is queued first (committed on its own), then the file
 *   is stored, then the row is written in a transaction. A crash between the
 *   store and the commit leaves an object that the reap job deletes an hour
 *   later because no row names it.
 * - delete: the row goes in a transaction that also queues a purge job for
 *   its object; after the commit the object is deleted at once, and should
 *   that fail (storage down, crash) the job deletes it later, with retries.
 * - parent deleted: the row's parent key is set to null by the database; the
 *   orphan sweep (after product, space and ticket deletions, and hourly)
 *   deletes such rows and queues their purges in one transaction.
 */
@Injectable()
export class AttachmentStore implements OnModuleInit {
  private readonly logger = new Logger(AttachmentStore.name);
  private readonly signer: DownloadLinkSigner;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly storage: ObjectStorage,
    private readonly tx: TransactionRunner,
    private readonly jobs: JobRunner,
    private readonly outbox: OutboxService,
    private readonly dispatcher: OutboxDispatcher,
  ) {
    this.signer = new DownloadLinkSigner(config.encryptionKey);
  }

  onModuleInit(): void {
    this.jobs.register(PURGE_OBJECT_JOB, (p) => this.storage.delete(p.storage_key), {
      maxAttempts: 10,
    });
    this.jobs.register(REAP_UPLOAD_JOB, (p) => this.reap(p.storage_key), {
      maxAttempts: 10,
    });
    this.jobs.register(SWEEP_ORPHANS_JOB, async () => {
      await this.tx.run((em) => this.sweepOrphans(em));
    });
    this.jobs.registerCron(SWEEP_ORPHANS_JOB, '17 * * * *', SWEEP_ORPHANS_JOB);
    // The parent's foreign key is set null in the same statement that deletes it: sweep right after.
    this.dispatcher.on('product.deleted', 'attachments.product-orphans', async (_event, em) => {
      await this.sweepOrphans(em);
    });
    this.dispatcher.on('space.deleted', 'attachments.space-orphans', async (_event, em) => {
      await this.sweepOrphans(em);
    });
    this.dispatcher.on('ticket.deleted', 'attachments.ticket-orphans', async (_event, em) => {
      await this.sweepOrphans(em);
    });
  }

  // Uploads.

  /** A new attachment id and its storage key. */
  newId(): { id: string; storageKey: string } {
    const id = randomUUID();
    return { id, storageKey: `attachments/${id}` };
  }

  /**
   * Receives the file of an upload into `storageKey` (see receiveUpload).
   * Queues the reap job first, so that even a crash right after the object
   * is complete cannot leave it behind for good.
   */
  async receive(
    upload: MultipartUpload,
    storageKey: string,
    fields: readonly string[],
  ): Promise<ReceivedFile> {
    await this.jobs.enqueue(
      null,
      REAP_UPLOAD_JOB,
      { storage_key: storageKey },
      { runAt: new Date(Date.now() + REAP_AFTER_MS) },
    );
    return receiveUpload(upload, this.storage, storageKey, fields);
  }

  /** Removes an object whose row was never written (the upload was refused after it was stored). */
  async discard(storageKey: string): Promise<void> {
    try {
      await this.storage.delete(storageKey);
    } catch (error) {
      this.logger.warn(`Could not delete ${storageKey} now; the reap job will: ${String(error)}`);
    }
  }

  /** Writes the row and its `attachment.created` event in the caller's transaction. */
  async record(em: EntityManager, attachment: Attachment): Promise<void> {
    const { product: _p, ticket: _t, comment: _c, uploader: _u, ...columns } = attachment;
    await em.getRepository(Attachment).insert(columns);
    await this.outbox.append(em, {
      type: 'attachment.created',
      spaceId: attachment.spaceId,
      actorId: attachment.uploadedBy,
      data: attachmentEventData(attachment),
    });
  }

  // Deletion.

  /** An attachment of one parent kind and its parent's id, locked for deletion when asked; 404 when missing or of another kind. */
  async load(
    em: EntityManager,
    id: string,
    parentType: 'product' | 'ticket',
    lock: boolean,
  ): Promise<{ attachment: Attachment; parentId: string }> {
    const attachment = await em
      .getRepository(Attachment)
      .findOne({ where: { id }, lock: lock ? { mode: 'pessimistic_write' } : undefined });
    const parentId = parentType === 'product' ? attachment?.productId : attachment?.ticketId;
    if (!attachment || attachment.parentType !== parentType || !parentId)
      throw new NotFound('attachment', id);
    return { attachment, parentId };
  }

  /**
   * The delete both kinds share: `authorize` loads and checks the attachment
   * in the transaction that removes its row; the object goes after the commit.
   */
  async deleteAuthorized(
    actorId: string,
    authorize: (em: EntityManager) => Promise<Attachment>,
  ): Promise<{ message: string }> {
    const storageKey = await this.tx.run(async (em) => this.remove(em, await authorize(em), actorId));
    await this.purgeNow(storageKey);
    return { message: 'The attachment was deleted.' };
  }

  /**
   * Deletes the row, queues the purge of its object and writes
   * `attachment.deleted`, all in the caller's transaction. Call purgeNow
   * with the result after the commit.
   */
  async remove(em: EntityManager, attachment: Attachment, actorId: string | null): Promise<string> {
    await em.getRepository(Attachment).delete(attachment.id);
    await this.queuePurge(em, attachment.storageKey);
    await this.outbox.append(em, {
      type: 'attachment.deleted',
      spaceId: attachment.spaceId,
      actorId,
      data: { ...attachmentEventData(attachment), reason: 'deleted' },
    });
    return attachment.storageKey;
  }

  /** Deletes a removed row's object now; when that fails the queued purge job retries it. */
  async purgeNow(storageKey: string): Promise<void> {
    try {
      await this.storage.delete(storageKey);
    } catch (error) {
      this.logger.warn(`Deleting ${storageKey} failed; the purge job will retry: ${String(error)}`);
    }
  }

  /** Deletes the rows whose parent is gone, queuing their objects' purges; answers how many. */
  async sweepOrphans(em: EntityManager): Promise<number> {
    const orphans = await em
      .getRepository(Attachment)
      .createQueryBuilder('a')
      .where('a.productId IS NULL AND a.ticketId IS NULL')
      .orderBy('a.createdAt')
      .limit(1000)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
    for (const attachment of orphans) {
      await em.getRepository(Attachment).delete(attachment.id);
      await this.queuePurge(em, attachment.storageKey, 0);
      await this.outbox.append(em, {
        type: 'attachment.deleted',
        spaceId: attachment.spaceId,
        actorId: null,
        data: { ...attachmentEventData(attachment), reason: 'parent_deleted' },
      });
    }
    return orphans.length;
  }

  // Downloads.

  /** Opens the file with the headers every attachment download carries. */
  async open(attachment: Attachment): Promise<FileDownload> {
    let object: OpenedObject;
    try {
      object = await this.storage.open(attachment.storageKey);
    } catch (error) {
      if (error instanceof ObjectNotFound) throw new NotFound('attachment', attachment.id);
      this.logger.error(`Opening ${attachment.storageKey} failed: ${String(error)}`);
      throw new StorageUnavailable();
    }
    return { object, headers: downloadHeaders(attachment, object.size) };
  }

  /**
   * A signed, expiring URL: the store's own presigned URL (s3), or this
   * API's content route with an HMAC signature (local).
   */
  async link(attachment: Attachment): Promise<DownloadLink> {
    const expires = Math.floor(Date.now() / 1000) + this.config.attachmentLinkTtlSeconds;
    const expiresAt = new Date(expires * 1000);
    let url: string | null;
    try {
      url = await this.storage.presignedGetUrl(attachment.storageKey, {
        expiresAt,
        contentType: servedType(attachment.mimeType),
        contentDisposition: contentDisposition(attachment.fileName),
      });
    } catch (error) {
      this.logger.error(`Presigning ${attachment.storageKey} failed: ${String(error)}`);
      throw new StorageUnavailable();
    }
    if (!url) {
      const signature = this.signer.sign(attachment.id, attachment.storageKey, expires);
      url =
        `${this.config.publicBaseUrl}/api/v1.0/catalog/attachments/${attachment.id}/content` +
        `?expires=${expires}&signature=${signature}`;
    }
    return { download_url: url, file_name: attachment.fileName, expires_at: expiresAt.toISOString() };
  }

  /** The file behind a signed link: 403 when the signature does not match or has expired. */
  async openSigned(
    id: string,
    expires: string | undefined,
    signature: string | undefined,
  ): Promise<FileDownload> {
    const attachment = await this.dataSource.getRepository(Attachment).findOneBy({ id });
    // A deleted attachment's link fails like a forged one: it no longer grants anything.
    const verdict = attachment
      ? this.signer.check(attachment.id, attachment.storageKey, expires, signature, new Date())
      : 'invalid';
    if (verdict === 'expired')
      throw new DownloadLinkRejected('The download link has expired; ask for a new one.');
    if (verdict !== 'valid' || !attachment || (!attachment.productId && !attachment.ticketId)) {
      throw new DownloadLinkRejected('The download link is not valid.');
    }
    return this.open(attachment);
  }

  // Internals.

  private queuePurge(em: EntityManager, storageKey: string, delayMs = PURGE_SAFETY_DELAY_MS): Promise<void> {
    return this.jobs.enqueue(
      em,
      PURGE_OBJECT_JOB,
      { storage_key: storageKey },
      { runAt: new Date(Date.now() + delayMs), singletonKey: `purge:${storageKey}` },
    );
  }

  /** An object whose upload began an hour ago and that no row names was left by a crash: delete it. */
  private async reap(storageKey: string): Promise<void> {
    const named = await this.dataSource.getRepository(Attachment).existsBy({ storageKey });
    if (!named) await this.storage.delete(storageKey);
  }
}

/** Text kinds are served as UTF-8 (the upload checks guarantee it). */
export function servedType(mimeType: string): string {
  return ['text/csv', 'application/json', 'application/xml', 'image/svg+xml'].includes(mimeType)
    ? `${mimeType}; charset=utf-8`
    : mimeType;
}

/**
 * Headers of every attachment download: always a download (never rendered
 * inline), no MIME sniffing, and a sandboxing CSP so that even an SVG or
 * XML opened directly cannot run script in the API's origin.
 */
export function downloadHeaders(attachment: Attachment, size: number): Record<string, string> {
  return {
    'Content-Type': servedType(attachment.mimeType),
    'Content-Length': String(size),
    'Content-Disposition': contentDisposition(attachment.fileName),
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "sandbox; default-src 'none'",
    'Cache-Control': 'private, no-store',
  };
}
