import { parseConnectionString } from './connection-string';

const open = { allowPrivate: true };
const strict = { allowPrivate: false };

describe('connection strings', () => {
  it('takes a postgres URL apart', () => {
    expect(
      parseConnectionString('postgres://ana:s%40cret@db.example.com:6432/sales?sslmode=require', strict),
    ).toEqual({
      target: {
        host: 'db.example.com',
        port: 6432,
        database: 'sales',
        user: 'ana',
        password: 's@cret',
        sslmode: 'require',
      },
    });
    expect(parseConnectionString('postgresql://ana@db.example.com/sales', strict)).toEqual({
      target: expect.objectContaining({ port: 5432, password: '', sslmode: 'disable' }),
    });
  });

  it('refuses what is not a usable postgres URL, without quoting the password', () => {
    const cases = [
      'mysql://a:b@h/db',
      'not a url',
      'postgres://a:topsecret@db.example.com',
      'postgres://db.example.com/db',
      'postgres://a:topsecret@db.example.com/db?host=/tmp',
      'postgres://a:topsecret@db.example.com/db?sslmode=bogus',
    ];
    for (const raw of cases) {
      const result = parseConnectionString(raw, strict);
      expect(result).toEqual({ error: expect.any(String) });
      expect(JSON.stringify(result)).not.toContain('topsecret');
    }
  });

  it('applies the outbound address policy to the host', () => {
    for (const host of ['127.0.0.1', 'localhost', '10.1.2.3', '[::1]', 'db']) {
      expect(parseConnectionString(`postgres://a@${host}/db`, strict)).toEqual({
        error: expect.any(String),
        reason: expect.stringMatching(/^(private_address|local_host_name)$/),
      });
      expect(parseConnectionString(`postgres://a@${host}/db`, open)).toHaveProperty('target');
    }
    // Cloud metadata and link-local stay out of reach even when private targets are allowed.
    expect(parseConnectionString('postgres://a@169.254.169.254/db', open)).toEqual({
      error: expect.stringContaining('169.254.169.254'),
      reason: 'metadata_host',
    });
    // Normalised first: another notation of loopback, a trailing dot.
    expect(parseConnectionString('postgres://a@0x7f.1/db', strict)).toMatchObject({
      reason: 'private_address',
    });
    expect(parseConnectionString('postgres://a@LOCALHOST./db', strict)).toMatchObject({
      reason: 'local_host_name',
    });
    expect(parseConnectionString('postgres://a@DB.Example.com./db', strict)).toMatchObject({
      target: { host: 'db.example.com' },
    });
  });
});
