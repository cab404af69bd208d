import { randomBytes } from 'node:crypto';
import type { AppConfig } from '../../config/app.config';
import { SecretBox } from './secret-box.service';

describe('SecretBox', () => {
  const box = new SecretBox({ encryptionKey: randomBytes(32) } as AppConfig);

  it('round-trips a secret without keeping it readable', () => {
    const sealed = box.seal('postgres://u:p@host/db', 'connector:1');
    expect(sealed).not.toContain('p@host');
    expect(box.open(sealed, 'connector:1')).toBe('postgres://u:p@host/db');
  });

  it('uses a fresh nonce each time', () => {
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('refuses a value moved to another context or tampered with', () => {
    const sealed = box.seal('secret', 'webhook:a');
    expect(() => box.open(sealed, 'webhook:b')).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('other').toString('base64url');
    expect(() => box.open(parts.join('.'), 'webhook:a')).toThrow();
  });

  it('refuses another key', () => {
    const other = new SecretBox({ encryptionKey: randomBytes(32) } as AppConfig);
    expect(() => other.open(box.seal('secret'))).toThrow();
  });
});
