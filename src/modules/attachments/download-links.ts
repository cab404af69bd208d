import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export type LinkCheck = 'valid' | 'expired' | 'invalid';

/**
 * Signed, expiring download links for attachments kept by the local
 * storage backend: HMAC-SHA256 over the attachment id, its storage key and
 * the expiry, under a key derived (HKDF) from ENCRYPTION_KEY. Any change to
 * the URL breaks the signature.
 */
export class DownloadLinkSigner {
  private readonly key: Buffer;

  constructor(encryptionKey: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', encryptionKey, 'verity', 'attachment-download-links', 32));
  }

  sign(attachmentId: string, storageKey: string, expires: number): string {
    return createHmac('sha256', this.key)
      .update(`${attachmentId}\n${storageKey}\n${expires}`)
      .digest('base64url');
  }

  check(
    attachmentId: string,
    storageKey: string,
    expires: string | undefined,
    signature: string | undefined,
    now: Date,
  ): LinkCheck {
    if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return 'invalid';
    const expected = Buffer.from(this.sign(attachmentId, storageKey, Number(expires)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 <= now.getTime() ? 'expired' : 'valid';
  }
}
