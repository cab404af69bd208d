import { Webhook } from 'standardwebhooks';
import { generateSecret, isValidSecret, retryDelayMs, signatureHeaders } from './webhook-signature';

describe('webhook signatures', () => {
  it('signs so that the official Standard Webhooks library verifies', () => {
    const secret = generateSecret();
    const body = JSON.stringify({
      type: 'product.created',
      timestamp: new Date().toISOString(),
      data: { id: 1 },
    });
    const headers = signatureHeaders(secret, 'msg_1', body, new Date());
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('1', '2'), headers)).toThrow();
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
  });

  it('accepts only whsec_ secrets of at least 16 random bytes', () => {
    expect(isValidSecret(generateSecret())).toBe(true);
    expect(isValidSecret(`whsec_${Buffer.alloc(16, 7).toString('base64')}`)).toBe(true);
    expect(isValidSecret(`whsec_${Buffer.alloc(15, 7).toString('base64')}`)).toBe(false);
    expect(isValidSecret(Buffer.alloc(32).toString('base64'))).toBe(false);
    expect(isValidSecret('whsec_not base64!')).toBe(false);
  });

  it('retries after about 5 s, 5 min, 30 min, 2 h, 5 h and 10 h, then gives up', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(retryDelayMs)).toEqual([
      5_000,
      300_000,
      1_800_000,
      7_200_000,
      18_000_000,
      36_000_000,
      null,
    ]);
  });
});
