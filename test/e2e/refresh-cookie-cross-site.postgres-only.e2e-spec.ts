/// <reference lib="dom" />
// (page callbacks run in the browser)
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { Browser, BrowserContext } from 'puppeteer-core';
import { startApp, TestApp } from '../support/app';
import { createUser, TestUser } from '../support/factories';

// A browser app served from another origin signs in, refreshes with the refresh cookie only and reads
// /auth/me, with CORS_ORIGINS set and credentials included. SameSite is about sites, not origins: the
// API listens on 127.0.0.1, so a page on http://localhost:<port> is cross-site and one on
// http://127.0.0.1:<other port> is same-site. Chromium treats both loopback hosts as secure contexts,
// so it keeps the Secure cookie that REFRESH_COOKIE_SAMESITE=none makes over plain http there.
// Debian's Chromium blocks third-party cookies by default; a second browser whose profile allows them
// shows that SameSite alone decides. Named postgres-only, like the Swagger UI suite: the browser does
// not depend on the database.
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'];

interface Step {
  status: number;
  body: { access_token?: string; refresh_token?: string; email?: string; detail?: string };
}

/** What the page's app does: sign in, refresh (cookie only), read /auth/me with the new token. */
async function signInRefreshAndReadMe(
  context: BrowserContext,
  pageOrigin: string,
  api: string,
  user: TestUser,
): Promise<{ token: Step; refresh: Step; me: Step | null; blocked: string[] }> {
  const page = await context.newPage();
  // Why the browser refused to store or send the refresh cookie, as Chromium reports it.
  const blocked: string[] = [];
  const cdp = await page.createCDPSession();
  await cdp.send('Network.enable');
  cdp.on('Network.responseReceivedExtraInfo', (event) => {
    for (const b of event.blockedCookies) {
      if (b.cookie?.name === 'verity_refresh') blocked.push(...b.blockedReasons);
    }
  });
  try {
    await page.goto(`${pageOrigin}/`);
    const steps = await page.evaluate(
      async (base: string, email: string, password: string) => {
        const call = async (path: string, init: RequestInit): Promise<Step> => {
          const res = await fetch(`${base}${path}`, { credentials: 'include', ...init });
          return { status: res.status, body: (await res.json().catch(() => ({}))) as Step['body'] };
        };
        const token = await call('/auth/token', {
          method: 'POST',
          body: new URLSearchParams({ username: email, password }),
        });
        // No refresh_token in the body: only the cookie can carry it.
        const refresh = await call('/auth/refresh', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{}',
        });
        const me =
          refresh.status === 200
            ? await call('/auth/me', { headers: { Authorization: `Bearer ${refresh.body.access_token}` } })
            : null;
        return { token, refresh, me };
      },
      `${api}/api/v1.0`,
      user.email,
      user.password,
    );
    return { ...steps, blocked };
  } finally {
    await page.close();
  }
}

describe('The refresh cookie for a browser app on another site (REFRESH_COOKIE_SAMESITE)', () => {
  let browser: Browser;
  let thirdPartyCookiesAllowed: Browser;
  let profile: string;
  let pages: Server;
  let port: number;
  // One page server answers on both names; the origin the browser uses decides the site.
  const crossSite = () => `http://localhost:${port}`;
  const sameSite = () => `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium".`);
    }
    pages = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>app</title>');
    });
    // Every address, IPv4 and IPv6, so that http://localhost reaches it whichever the browser tries first.
    await new Promise<void>((resolve) => pages.listen(0, resolve));
    port = (pages.address() as AddressInfo).port;
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
    profile = mkdtempSync(join(tmpdir(), 'verity-chromium-'));
    mkdirSync(join(profile, 'Default'));
    writeFileSync(
      join(profile, 'Default', 'Preferences'),
      JSON.stringify({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } }),
    );
    thirdPartyCookiesAllowed = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [...ARGS, `--user-data-dir=${profile}`],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await thirdPartyCookiesAllowed?.close();
    await new Promise((resolve) => pages?.close(resolve));
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  async function withApp(env: Record<string, string>, work: (t: TestApp, user: TestUser) => Promise<void>) {
    const t = await startApp({ env: { CORS_ORIGINS: `${crossSite()},${sameSite()}`, ...env } });
    try {
      await work(t, await createUser(t.http));
    } finally {
      await t.close();
    }
  }

  it('with none, a page on another site refreshes with the cookie and reads /auth/me', async () => {
    await withApp({ REFRESH_COOKIE_SAMESITE: 'none' }, async (t, user) => {
      for (const b of [browser, thirdPartyCookiesAllowed]) {
        const context = await b.createBrowserContext();
        try {
          const { token, refresh, me, blocked } = await signInRefreshAndReadMe(
            context,
            crossSite(),
            t.baseUrl,
            user,
          );
          expect(blocked).toEqual([]);
          expect(token.status).toBe(200);
          expect(refresh.status).toBe(200);
          expect(refresh.body.refresh_token).not.toBe(token.body.refresh_token);
          expect(me).toEqual({ status: 200, body: expect.objectContaining({ email: user.email }) });
          // The browser keeps the rotated token: a Secure, partitioned SameSite=None cookie of the API's host.
          const [cookie] = (await context.cookies()).filter((c) => c.name === 'verity_refresh');
          expect(cookie).toEqual(
            expect.objectContaining({
              value: refresh.body.refresh_token,
              domain: '127.0.0.1',
              path: '/api/v1.0/auth',
              httpOnly: true,
              secure: true,
              sameSite: 'None',
              partitionKey: expect.objectContaining({ sourceOrigin: 'http://localhost' }),
            }),
          );
          // Signing out from that page removes the cookie too (it is cleared with the attributes it was set with).
          const page = await context.newPage();
          await page.goto(`${crossSite()}/`);
          const logout = await page.evaluate(
            async (url: string, access: string) =>
              (
                await fetch(url, {
                  method: 'POST',
                  credentials: 'include',
                  headers: { Authorization: `Bearer ${access}` },
                })
              ).status,
            `${t.baseUrl}/api/v1.0/auth/logout`,
            refresh.body.access_token!,
          );
          expect(logout).toBe(204);
          expect((await context.cookies()).filter((c) => c.name === 'verity_refresh')).toEqual([]);
        } finally {
          await context.close();
        }
      }
    });
  }, 60_000);

  it('with strict (the default), the cookie never goes cross-site, but works for another origin of the same site', async () => {
    await withApp({}, async (t, user) => {
      // Third-party cookies allowed: only SameSite can keep the cookie from the other site.
      const context = await thirdPartyCookiesAllowed.createBrowserContext();
      try {
        const cross = await signInRefreshAndReadMe(context, crossSite(), t.baseUrl, user);
        expect(cross.token.status).toBe(200);
        expect(cross.blocked).toEqual(['SchemefulSameSiteStrict']);
        expect(cross.refresh.status).toBe(401);
        expect(cross.me).toBeNull();

        const same = await signInRefreshAndReadMe(context, sameSite(), t.baseUrl, user);
        expect(same.blocked).toEqual([]);
        expect(same.token.status).toBe(200);
        expect(same.refresh.status).toBe(200);
        expect(same.me).toEqual({ status: 200, body: expect.objectContaining({ email: user.email }) });
        const [cookie] = (await context.cookies()).filter((c) => c.name === 'verity_refresh');
        expect(cookie).toEqual(
          expect.objectContaining({
            value: same.refresh.body.refresh_token,
            sameSite: 'Strict',
            secure: false,
          }),
        );
        expect(cookie.partitionKey).toBeUndefined();
      } finally {
        await context.close();
      }
    });
  }, 60_000);
});
