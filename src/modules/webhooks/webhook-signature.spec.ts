import { Webhook } from 'standardwebhooks';
import {
  generateSecret,
  isValidSecret,
  retryDelayMs,
  signatureHeaders,
  verifySignature,
} from './webhook-signature';

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

describe('inbound signature verification', () => {
  const secret = generateSecret();
  const body = Buffer.from(JSON.stringify({ type: 'ai_literacy.completed', data: { email: 'a@b.test' } }));
  const now = new Date('2026-01-01T12:00:00Z');
  const signed = (at: Date, key = secret, payload = body) => {
    const h = new Webhook(key).sign('msg_1', at, payload.toString());
    return { id: 'msg_1', timestamp: String(Math.floor(at.getTime() / 1000)), signature: h };
  };

  it('accepts what the official library signs, among several signatures', () => {
    const h = signed(now);
    expect(verifySignature(secret, h, body, now, 300)).toEqual({
      valid: true,
      messageId: 'msg_1',
      timestamp: now,
    });
    const many = { ...h, signature: `v1,AAAA ${h.signature}` };
    expect(verifySignature(secret, many, body, now, 300).valid).toBe(true);
  });

  it('refuses a wrong secret, an altered body, missing headers and a stale or future timestamp', () => {
    expect(verifySignature(secret, signed(now, generateSecret()), body, now, 300).valid).toBe(false);
    expect(
      verifySignature(secret, signed(now), Buffer.concat([body, Buffer.from(' ')]), now, 300).valid,
    ).toBe(false);
    expect(verifySignature(secret, { id: 'msg_1' }, body, now, 300).valid).toBe(false);
    const stale = new Date(now.getTime() - 301_000);
    expect(verifySignature(secret, signed(stale), body, now, 300)).toEqual({
      valid: false,
      reason: expect.stringMatching(/300 seconds/),
    });
    expect(verifySignature(secret, signed(new Date(now.getTime() + 301_000)), body, now, 300).valid).toBe(
      false,
    );
    expect(verifySignature(secret, { ...signed(now), timestamp: 'soon' }, body, now, 300).valid).toBe(false);
  });
});
