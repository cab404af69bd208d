import { redactText, redactValue } from './redact';

describe('log redaction', () => {
  it('removes credentials from text and leaves ordinary text alone', () => {
    expect(redactText('Serving on http://0.0.0.0:8000/api/v1.0')).toBe(
      'Serving on http://0.0.0.0:8000/api/v1.0',
    );
    expect(redactText('connect postgres://verity:hunter2@db:5432/verity failed')).toBe(
      'connect postgres://verity:[REDACTED]@db:5432/verity failed',
    );
    expect(redactText('smtp://user:p%40ss@mail:587')).toBe('smtp://user:[REDACTED]@mail:587');
    expect(redactText('header Authorization: Bearer abc.def.ghi')).not.toContain('abc.def');
    expect(redactText('Basic dXNlcjpwYXNz')).toBe('Basic [REDACTED]');
    expect(redactText('token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-part')).not.toContain('eyJ');
    expect(redactText(`key vk_${'A'.repeat(43)} used`)).toBe('key [REDACTED] used');
    expect(redactText('password=hunter2&user=a')).toBe('password=[REDACTED]&user=a');
    expect(redactText('{"secret": "s3cr3t"}')).toBe('{"secret": "[REDACTED]"}');
  });

  it('removes values under secret-named keys at any depth, keeping the shape', () => {
    const logged = {
      user: 'a@example.com',
      headers: { authorization: 'Bearer t0ken', Cookie: 'refresh=abc', accept: 'application/json' },
      body: { password: 'hunter2', nested: [{ api_key: 'k1', client_secret: 's', refreshToken: 'r' }] },
      config: { connectionString: 'postgres://a:b@h/db', DATABASE_URL: 'postgres://a:pw@h/db' },
      count: 3,
      missing: null,
    };
    const out = JSON.stringify(redactValue(logged));
    for (const secret of ['t0ken', 'refresh=abc', 'hunter2', 'k1', '"s"', '"r"', 'a:b@', 'pw@']) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('"accept":"application/json"');
    expect(out).toContain('"user":"a@example.com"');
    expect(out).toContain('"count":3');
    expect(out).toContain('"missing":null');
  });

  it('turns errors into redacted plain objects', () => {
    const error = new Error('login with postgres://admin:hunter2@db refused');
    const out = redactValue(error) as { type: string; message: string; stack: string };
    expect(out.type).toBe('Error');
    expect(out.message).toBe('login with postgres://admin:[REDACTED]@db refused');
    expect(out.stack).not.toContain('hunter2');
  });
});
