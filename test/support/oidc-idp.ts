import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export interface OidcIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  stop(): Promise<void>;
}

/** Starts the oidc-provider identity provider (test/support/oidc-idp-process.mjs) on a loopback port. */
export async function startOidcIdp(redirectUri: string): Promise<OidcIdp> {
  const clientId = 'verity-test';
  const clientSecret = 'verity-test-client-secret-0123456789';
  const child: ChildProcess = spawn(
    process.execPath,
    [join(__dirname, 'oidc-idp-process.mjs'), JSON.stringify({ clientId, clientSecret, redirectUri })],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const orphanGuard = () => child.exitCode === null && child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  const issuer = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`OIDC IdP did not start: ${err}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = out.match(/listening (\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`OIDC IdP exited with ${code}: ${err}`));
    });
  });
  return {
    issuer,
    clientId,
    clientSecret,
    stop: async () => {
      process.off('exit', orphanGuard);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function formOf(html: string, base: string): { action: string; fields: URLSearchParams } {
  const form = html.match(/<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i);
  if (!form) throw new Error(`no form in the identity provider's page:\n${html.slice(0, 500)}`);
  const fields = new URLSearchParams();
  for (const input of form[2].matchAll(/<input[^>]*>/gi)) {
    const name = input[0].match(/name="([^"]*)"/)?.[1];
    const value = input[0].match(/value="([^"]*)"/)?.[1] ?? '';
    if (name) fields.set(name, value);
  }
  return { action: new URL(form[1].replace(/&amp;/g, '&'), base).toString(), fields };
}

/**
 * A headless browser through the identity provider: follows its redirects
 * with a cookie jar, signs in as `login` on the development login form,
 * grants consent, and stops at the first redirect leaving the IdP (the
 * callback URL), which it returns.
 */
export async function signInAtIdp(startUrl: string, idpIssuer: string, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = startUrl;
  let method = 'GET';
  let body: URLSearchParams | undefined;
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, {
      method,
      body,
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (!next.toString().startsWith(idpIssuer)) return next;
      url = next.toString();
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200)
      throw new Error(`identity provider answered ${res.status}: ${html.slice(0, 500)}`);
    const { action, fields } = formOf(html, url);
    if (fields.get('prompt') === 'login') {
      fields.set('login', login);
      fields.set('password', 'any password');
    }
    url = action;
    method = 'POST';
    body = fields;
  }
  throw new Error('the identity provider never redirected back');
}
