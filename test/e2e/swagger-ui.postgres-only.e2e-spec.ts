/// <reference lib="dom" />
// (page callbacks run in the browser)
import { existsSync } from 'node:fs';
import puppeteer, { Browser, Page } from 'puppeteer-core';
import { startApp, TestApp } from '../support/app';
import { createUser, TestUser } from '../support/factories';

// Debian's package (`apt-get install -y chromium`; .ci/run installs it). Named
// postgres-only so that the embedded run does not drive the browser twice:
// the page does not depend on the database.
const CHROMIUM = '/usr/bin/chromium';

describe('Swagger UI in a real browser', () => {
  let t: TestApp;
  let user: TestUser;
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];
  const cspReports: string[] = [];
  const meRequests: { authorization: string | undefined }[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium".`);
    }
    t = await startApp();
    user = await createUser(t.http);
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    page = await browser.newPage();
    page.on('request', (req) => {
      requested.push(req.url());
      if (new URL(req.url()).pathname === '/api/v1.0/auth/me') {
        meRequests.push({ authorization: req.headers().authorization });
      }
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspReports.push(message.text());
    });
    await page.evaluateOnNewDocument(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(`Content Security Policy violation: ${event.violatedDirective} ${event.blockedURI}`);
      });
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('loads with local assets only and no CSP violation', async () => {
    const response = await page.goto(`${t.baseUrl}/api/v1.0/docs`, { waitUntil: 'networkidle0' });
    expect(response?.status()).toBe(200);
    // Tags start collapsed; every one is listed, and opening one shows its operations.
    await page.waitForSelector('#operations-tag-Reports', { timeout: 20_000 });
    await page.click('#operations-tag-Accounts');
    await page.waitForSelector('#operations-Accounts-getCurrentUser');
    expect(requested.length).toBeGreaterThan(3);
    const external = requested.filter((url) => !url.startsWith(`${t.baseUrl}/`) && !url.startsWith('data:'));
    expect(external).toEqual([]);
    expect(cspReports).toEqual([]);
  }, 60_000);

  it('authorizes with a bearer token and runs "Try it out" on GET /auth/me with a 200', async () => {
    await page.click('.auth-wrapper .btn.authorize');
    await page.waitForSelector('.modal-ux .auth-container');
    // The modal lists each security scheme; fill the bearer one.
    let authorized = false;
    for (const form of await page.$$('.modal-ux .auth-container')) {
      const title = await form.$eval('h4', (h) => h.textContent ?? '');
      if (!title.trim().startsWith('bearer')) continue;
      await (await form.$('input'))!.type(user.token);
      await (await form.$('button.authorize'))!.click();
      authorized = true;
      break;
    }
    expect(authorized).toBe(true);
    await page.waitForSelector('.modal-ux button[aria-label="Remove authorization"]');
    await page.click('.modal-ux .close-modal');
    await page.waitForSelector('.modal-ux', { hidden: true });

    const operation = '#operations-Accounts-getCurrentUser';
    if (!(await page.$(operation))) await page.click('#operations-tag-Accounts');
    await page.waitForSelector(operation);
    await page.click(`${operation} .opblock-summary-control`);
    await page.waitForSelector(`${operation} .try-out__btn`);
    await page.click(`${operation} .try-out__btn`);
    await page.waitForSelector(`${operation} .btn.execute`);
    await page.click(`${operation} .btn.execute`);
    const status = await page.waitForSelector(
      `${operation} .live-responses-table tr.response .response-col_status`,
      {
        timeout: 20_000,
      },
    );
    expect((await status!.evaluate((cell) => cell.textContent ?? '')).trim()).toBe('200');
    const body = await page.$eval(
      `${operation} .live-responses-table tr.response .response-col_description`,
      (cell) => cell.textContent ?? '',
    );
    expect(body).toContain(user.email);
    expect(meRequests.at(-1)?.authorization).toBe(`Bearer ${user.token}`);
    expect(cspReports).toEqual([]);
  }, 60_000);
});
