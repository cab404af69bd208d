import { randomBytes } from 'node:crypto';
import { DownloadLinkSigner } from './download-links';

describe('DownloadLinkSigner', () => {
  const signer = new DownloadLinkSigner(randomBytes(32));
  const id = '6f1c2a1e-8f7b-4b51-9b0e-0d7c3b0f5a11';
  const now = new Date('2030-01-01T00:00:00Z');
  const expires = now.getTime() / 1000 + 60;
  const signature = signer.sign(id, `attachments/${id}`, expires);

  it('accepts its own signature until the expiry', () => {
    expect(signer.check(id, `attachments/${id}`, String(expires), signature, now)).toBe('valid');
    expect(signer.check(id, `attachments/${id}`, String(expires), signature, new Date(expires * 1000))).toBe(
      'expired',
    );
  });

  it('refuses any change', () => {
    expect(signer.check(id, `attachments/${id}`, String(expires + 1), signature, now)).toBe('invalid');
    expect(signer.check(id, 'attachments/other', String(expires), signature, now)).toBe('invalid');
    expect(
      signer.check(
        id,
        `attachments/${id}`,
        String(expires),
        signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A'),
        now,
      ),
    ).toBe('invalid');
    expect(signer.check(id, `attachments/${id}`, undefined, signature, now)).toBe('invalid');
    expect(signer.check(id, `attachments/${id}`, '12e3', signature, now)).toBe('invalid');
  });

  it('derives a different key from a different ENCRYPTION_KEY', () => {
    const other = new DownloadLinkSigner(randomBytes(32));
    expect(other.check(id, `attachments/${id}`, String(expires), signature, now)).toBe('invalid');
  });
});
