import { createHash } from 'node:crypto';
import { startApp, TestApp } from '../support/app';
import { bearer, createUser, login, rootUser, TestUser, uniqueEmail } from '../support/factories';
import { expectProblem, invalidFields } from '../support/problem';
import { SmtpReceiver, startSmtpReceiver } from '../support/smtp-receiver';

const API = '/api/v1.0';

function cookieValue(setCookie: string[] | string | undefined, name: string): string | undefined {
  const cookies = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const found = cookies.find((c) => c.startsWith(`${name}=`));
  return found?.split(';')[0].slice(name.length + 1);
}

describe('accounts', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    t = await startApp({ env: { SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  describe('POST /auth/register', () => {
    it('creates a user with 201 and the user record, email trimmed and lowercased', async () => {
      const email = uniqueEmail('Reg').toUpperCase();
      const res = await t.http
        .post(`${API}/auth/register`)
        .send({ email: `  ${email} `, password: 'password-123', first_name: 'Ada', last_name: 'Lovelace' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual(
        expect.objectContaining({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          email: email.toLowerCase(),
          first_name: 'Ada',
          last_name: 'Lovelace',
          is_active: true,
          is_superadmin: false,
          created_at: expect.stringMatching(/Z$/),
        }),
      );
      expect(res.body).not.toHaveProperty('password_hash');
      expect(res.body).not.toHaveProperty('password');
    });

    it('answers 409 for a duplicate email, whatever its case', async () => {
      const user = await createUser(t.http);
      const res = await t.http
        .post(`${API}/auth/register`)
        .send({ email: user.email.toUpperCase(), password: 'password-123' });
      expectProblem(res, 409);
    });

    it('answers 422 for a short password', async () => {
      const res = await t.http.post(`${API}/auth/register`).send({ email: uniqueEmail(), password: 'short' });
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['password']);
    });

    it('refuses privileged fields from anonymous callers with 403', async () => {
      for (const extra of [{ is_superadmin: true }, { is_active: false }]) {
        const res = await t.http
          .post(`${API}/auth/register`)
          .send({ email: uniqueEmail(), password: 'password-123', ...extra });
        expectProblem(res, 403);
      }
    });

    it('refuses privileged fields from a non-superadmin caller with 403', async () => {
      const user = await createUser(t.http);
      const res = await t.http
        .post(`${API}/auth/register`)
        .set(bearer(user))
        .send({ email: uniqueEmail(), password: 'password-123', is_superadmin: true });
      expectProblem(res, 403);
    });

    it('honours privileged fields from a superadmin', async () => {
      const root = await rootUser(t.http);
      const res = await t.http
        .post(`${API}/auth/register`)
        .set(bearer(root))
        .send({
          email: uniqueEmail('admin'),
          password: 'password-123',
          is_superadmin: true,
          is_active: false,
        });
      expect(res.status).toBe(201);
      expect(res.body).toEqual(expect.objectContaining({ is_superadmin: true, is_active: false }));
    });
  });

  describe('POST /auth/token', () => {
    it('signs in with the form and answers tokens, no-store and the refresh cookie', async () => {
      const user = await createUser(t.http);
      const res = await t.http
        .post(`${API}/auth/token`)
        .type('form')
        .send({ username: user.email, password: user.password });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        access_token: expect.any(String),
        token_type: 'bearer',
        expires_in: 1800,
        refresh_token: expect.stringMatching(/^vrt_/),
      });
      expect(res.headers['cache-control']).toBe('no-store');
      const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) =>
        c.startsWith('verity_refresh='),
      );
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      expect(cookie).toMatch(/Path=\/api\/v1\.0\/auth/);
      const [, payload] = res.body.access_token.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      expect(claims).toEqual(
        expect.objectContaining({
          sub: user.id,
          sid: expect.any(String),
          typ: 'access',
          iat: expect.any(Number),
        }),
      );
      expect(claims.exp - claims.iat).toBe(1800);
    });

    it('gives the same 401 for an unknown email and a wrong password', async () => {
      const user = await createUser(t.http);
      const wrongPassword = await t.http
        .post(`${API}/auth/token`)
        .type('form')
        .send({ username: user.email, password: 'not-the-password' });
      const unknownEmail = await t.http
        .post(`${API}/auth/token`)
        .type('form')
        .send({ username: uniqueEmail('ghost'), password: 'not-the-password' });
      for (const res of [wrongPassword, unknownEmail]) {
        expectProblem(res, 401);
        expect(res.body.detail).toBe('Incorrect email or password');
      }
    });

    it('answers 403 for a deactivated account with the right password', async () => {
      const user = await createUser(t.http);
      await t.http.delete(`${API}/auth/me`).set(bearer(user)).expect(204);
      const res = await t.http
        .post(`${API}/auth/token`)
        .type('form')
        .send({ username: user.email, password: user.password });
      expectProblem(res, 403);
    });

    it('locks an email for 15 minutes after 10 failures, with 429 and Retry-After', async () => {
      const user = await createUser(t.http);
      for (let i = 0; i < 10; i++) {
        const res = await t.http
          .post(`${API}/auth/token`)
          .type('form')
          .send({ username: user.email, password: `wrong-${i}` });
        expect(res.status).toBe(401);
      }
      const locked = await t.http
        .post(`${API}/auth/token`)
        .type('form')
        .send({ username: user.email, password: user.password });
      expectProblem(locked, 429);
      const retryAfter = Number(locked.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect(locked.body.detail).toContain(`${retryAfter} seconds`);
      // Another email is not affected.
      const other = await createUser(t.http);
      await login(t.http, other.email, other.password);
    });

    it('clears earlier failures on a successful sign-in', async () => {
      const user = await createUser(t.http);
      for (let i = 0; i < 9; i++) {
        await t.http
          .post(`${API}/auth/token`)
          .type('form')
          .send({ username: user.email, password: 'wrong' })
          .expect(401);
      }
      await login(t.http, user.email, user.password);
      for (let i = 0; i < 9; i++) {
        await t.http
          .post(`${API}/auth/token`)
          .type('form')
          .send({ username: user.email, password: 'wrong' })
          .expect(401);
      }
      await login(t.http, user.email, user.password);
    });

    it('answers 422 when the form lacks a field', async () => {
      const res = await t.http
        .post(`${API}/auth/token`)
        .type('form')
        .send({ username: 'someone@example.test' });
      expectProblem(res, 422);
      expect(invalidFields(res)).toEqual(['password']);
    });
  });

  describe('/auth/me', () => {
    let user: TestUser;
    beforeAll(async () => {
      user = await createUser(t.http, { first_name: 'Grace', last_name: 'Hopper' });
    });

    it('reads the signed-in user', async () => {
      const res = await t.http.get(`${API}/auth/me`).set(bearer(user));
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          id: user.id,
          email: user.email,
          first_name: 'Grace',
          last_name: 'Hopper',
          is_active: true,
        }),
      );
    });

    it('splits full_name at the first space', async () => {
      const res = await t.http
        .patch(`${API}/auth/me`)
        .set(bearer(user))
        .send({ full_name: 'Grace Brewster Hopper' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({ first_name: 'Grace', last_name: 'Brewster Hopper' }),
      );
    });

    it('derives a gravatar URL from the MD5 of the email, accepting the email_avatar alias', async () => {
      const digest = createHash('md5').update(user.email).digest('hex');
      const res = await t.http
        .patch(`${API}/auth/me`)
        .set(bearer(user))
        .send({ avatar_type: 'email_avatar', avatar_color: '#12AB9f' });
      expect(res.status).toBe(200);
      expect(res.body.avatar_style).toBe('gravatar');
      expect(res.body.avatar_color).toBe('#12AB9f');
      expect(res.body.avatar_url).toContain(digest);
    });

    it('keeps an uploaded avatar URL and clears it back to initials', async () => {
      const upload = await t.http
        .patch(`${API}/auth/me`)
        .set(bearer(user))
        .send({ avatar_type: 'upload', avatar_url: 'https://cdn.example.test/a.png' });
      expect(upload.body).toEqual(
        expect.objectContaining({ avatar_style: 'upload', avatar_url: 'https://cdn.example.test/a.png' }),
      );
      const initials = await t.http
        .patch(`${API}/auth/me`)
        .set(bearer(user))
        .send({ avatar_type: 'initials', avatar_url: null });
      expect(initials.body).toEqual(expect.objectContaining({ avatar_style: 'initials', avatar_url: null }));
    });

    it('rejects a bad color and an unknown avatar type with 422', async () => {
      const res = await t.http
        .patch(`${API}/auth/me`)
        .set(bearer(user))
        .send({ avatar_color: 'red', avatar_type: 'hologram' });
      expectProblem(res, 422);
      expect(invalidFields(res).sort()).toEqual(['avatar_color', 'avatar_type']);
    });

    it('DELETE deactivates the account and revokes its sessions', async () => {
      const victim = await createUser(t.http);
      const second = await login(t.http, victim.email, victim.password);
      await t.http.delete(`${API}/auth/me`).set(bearer(victim)).expect(204);
      expectProblem(await t.http.get(`${API}/auth/me`).set(bearer(victim)), 401);
      expectProblem(await t.http.get(`${API}/auth/me`).set(bearer(second)), 401);
      const refreshed = await t.http.post(`${API}/auth/refresh`).send({ refresh_token: second.refreshToken });
      expectProblem(refreshed, 401);
    });
  });

  describe('POST /auth/refresh', () => {
    it('rotates the refresh token (body) and the new access token works', async () => {
      const user = await createUser(t.http);
      const res = await t.http.post(`${API}/auth/refresh`).send({ refresh_token: user.refreshToken });
      expect(res.status).toBe(200);
      expect(res.body.refresh_token).not.toBe(user.refreshToken);
      expect(res.headers['cache-control']).toBe('no-store');
      await t.http
        .get(`${API}/auth/me`)
        .set(bearer({ token: res.body.access_token }))
        .expect(200);
    });

    it('accepts the refresh token from the cookie', async () => {
      const user = await createUser(t.http);
      const signIn = await t.http
        .post(`${API}/auth/token`)
        .type('form')
        .send({ username: user.email, password: user.password });
      const cookie = cookieValue(signIn.headers['set-cookie'], 'verity_refresh');
      const res = await t.http.post(`${API}/auth/refresh`).set('Cookie', `verity_refresh=${cookie}`);
      expect(res.status).toBe(200);
      expect(cookieValue(res.headers['set-cookie'], 'verity_refresh')).toBe(res.body.refresh_token);
    });

    it('treats reuse of a rotated token as theft: 401 and the whole session ends', async () => {
      const user = await createUser(t.http);
      const first = await t.http
        .post(`${API}/auth/refresh`)
        .send({ refresh_token: user.refreshToken })
        .expect(200);
      const reuse = await t.http.post(`${API}/auth/refresh`).send({ refresh_token: user.refreshToken });
      expectProblem(reuse, 401, /already used/);
      // The token issued by the legitimate rotation and the session's access tokens are dead too.
      expectProblem(
        await t.http.post(`${API}/auth/refresh`).send({ refresh_token: first.body.refresh_token }),
        401,
      );
      expectProblem(await t.http.get(`${API}/auth/me`).set(bearer({ token: first.body.access_token })), 401);
      expectProblem(await t.http.get(`${API}/auth/me`).set(bearer(user)), 401);
    });

    it('answers 401 without a token or with an unknown one', async () => {
      expectProblem(await t.http.post(`${API}/auth/refresh`), 401);
      expectProblem(await t.http.post(`${API}/auth/refresh`).send({ refresh_token: 'vrt_nope' }), 401);
    });

    it('logout ends the session: access and refresh tokens stop working', async () => {
      const user = await createUser(t.http);
      await t.http.post(`${API}/auth/logout`).set(bearer(user)).expect(204);
      expectProblem(await t.http.get(`${API}/auth/me`).set(bearer(user)), 401);
      expectProblem(await t.http.post(`${API}/auth/refresh`).send({ refresh_token: user.refreshToken }), 401);
    });
  });

  describe('password reset by email', () => {
    it('answers the same sentence whether or not the account exists', async () => {
      const user = await createUser(t.http);
      const known = await t.http.post(`${API}/auth/forgot-password`).send({ email: user.email });
      const unknown = await t.http.post(`${API}/auth/forgot-password`).send({ email: uniqueEmail('nobody') });
      expect(known.status).toBe(200);
      expect(unknown.status).toBe(200);
      expect(known.body).toEqual(unknown.body);
      expect(known.body.message).toMatch(/If an account exists/);
    });

    it('mails a single-use token (text and HTML) that resets the password and ends every session', async () => {
      const user = await createUser(t.http);
      const other = await login(t.http, user.email, user.password);
      await t.http.post(`${API}/auth/forgot-password`).send({ email: user.email }).expect(200);
      const mail = await smtp.waitFor((m) => m.to.includes(user.email));
      expect(mail.subject).toMatch(/Reset your Verity password/);
      expect(mail.html).toContain('reset-password?token=');
      const token = /Reset token: (\S+)/.exec(mail.text)?.[1];
      expect(token).toBeDefined();

      const reset = await t.http
        .post(`${API}/auth/reset-password`)
        .send({ token, new_password: 'brand-new-pass-1' });
      expect(reset.status).toBe(200);
      expect(reset.body.message).toEqual(expect.any(String));
      expectProblem(await t.http.get(`${API}/auth/me`).set(bearer(other)), 401);
      expectProblem(await t.http.get(`${API}/auth/me`).set(bearer(user)), 401);
      await login(t.http, user.email, 'brand-new-pass-1');
      expectProblem(
        await t.http
          .post(`${API}/auth/token`)
          .type('form')
          .send({ username: user.email, password: user.password }),
        401,
      );
      // Single use.
      expectProblem(
        await t.http.post(`${API}/auth/reset-password`).send({ token, new_password: 'another-pass-1' }),
        400,
      );
    });

    it('answers 400 for an unknown token and 422 for a short new password', async () => {
      expectProblem(
        await t.http
          .post(`${API}/auth/reset-password`)
          .send({ token: 'nope', new_password: 'long-enough-1' }),
        400,
      );
      const short = await t.http
        .post(`${API}/auth/reset-password`)
        .send({ token: 'nope', new_password: 'short' });
      expectProblem(short, 422);
    });
  });

  describe('POST /auth/change-password', () => {
    it('needs the current password (400 when wrong)', async () => {
      const user = await createUser(t.http);
      const res = await t.http
        .post(`${API}/auth/change-password`)
        .set(bearer(user))
        .send({ current_password: 'wrong-password', new_password: 'another-pass-1' });
      expectProblem(res, 400);
    });

    it('changes the password and ends the other sessions, keeping this one', async () => {
      const user = await createUser(t.http);
      const other = await login(t.http, user.email, user.password);
      const res = await t.http
        .post(`${API}/auth/change-password`)
        .set(bearer(user))
        .send({ current_password: user.password, new_password: 'another-pass-1' });
      expect(res.status).toBe(200);
      expect(res.body.message).toEqual(expect.any(String));
      await t.http.get(`${API}/auth/me`).set(bearer(user)).expect(200);
      expectProblem(await t.http.get(`${API}/auth/me`).set(bearer(other)), 401);
      await login(t.http, user.email, 'another-pass-1');
    });

    it('needs authentication', async () => {
      expectProblem(
        await t.http
          .post(`${API}/auth/change-password`)
          .send({ current_password: 'x', new_password: 'long-enough-1' }),
        401,
      );
    });
  });

  describe('impersonation', () => {
    it('gives a superadmin a 15-minute token acting as the user, limited in what it may do', async () => {
      const root = await rootUser(t.http);
      const user = await createUser(t.http);
      const res = await t.http.post(`${API}/admin/impersonate/${user.id}`).set(bearer(root));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 900 });
      const claims = JSON.parse(Buffer.from(res.body.access_token.split('.')[1], 'base64url').toString());
      expect(claims.act).toEqual({ sub: root.id });
      expect(claims.sub).toBe(user.id);
      const token = { token: res.body.access_token };

      const me = await t.http.get(`${API}/auth/me`).set(bearer(token));
      expect(me.body.id).toBe(user.id);
      expectProblem(
        await t.http
          .post(`${API}/auth/change-password`)
          .set(bearer(token))
          .send({ current_password: user.password, new_password: 'x-long-enough' }),
        403,
      );
      expectProblem(await t.http.delete(`${API}/auth/me`).set(bearer(token)), 403);
      expectProblem(
        await t.http
          .post(`${API}/auth/refresh`)
          .set(bearer(token))
          .send({ refresh_token: user.refreshToken }),
        401,
      );
      // The user's own session is untouched by the refused refresh.
      await t.http.get(`${API}/auth/me`).set(bearer(user)).expect(200);
    });

    it('refuses superadmins and inactive users as targets (403) and non-superadmin callers (403)', async () => {
      const root = await rootUser(t.http);
      const admin = await t.http
        .post(`${API}/auth/register`)
        .set(bearer(root))
        .send({ email: uniqueEmail('sa'), password: 'password-123', is_superadmin: true });
      expectProblem(await t.http.post(`${API}/admin/impersonate/${admin.body.id}`).set(bearer(root)), 403);
      const inactive = await t.http
        .post(`${API}/auth/register`)
        .set(bearer(root))
        .send({ email: uniqueEmail('off'), password: 'password-123', is_active: false });
      expectProblem(await t.http.post(`${API}/admin/impersonate/${inactive.body.id}`).set(bearer(root)), 403);
      const user = await createUser(t.http);
      expectProblem(await t.http.post(`${API}/admin/impersonate/${inactive.body.id}`).set(bearer(user)), 403);
      expectProblem(
        await t.http.post(`${API}/admin/impersonate/00000000-0000-4000-8000-000000000000`).set(bearer(root)),
        404,
      );
    });

    it('an impersonation token cannot impersonate', async () => {
      const root = await rootUser(t.http);
      const user = await createUser(t.http);
      const target = await createUser(t.http);
      const res = await t.http.post(`${API}/admin/impersonate/${user.id}`).set(bearer(root));
      expectProblem(
        await t.http
          .post(`${API}/admin/impersonate/${target.id}`)
          .set(bearer({ token: res.body.access_token })),
        403,
      );
    });
  });
});
