// A real OpenID Connect identity provider (the certified oidc-provider package) in its own process, for the SSO tests
// and the SSO benchmark. Usage: node oidc-idp-process.mjs '<json: {clientId, clientSecret, redirectUri}>'
// Prints "listening <issuer>". Its development login form accepts any password; the login is the account id and
// email. A login starting with "unverified" has email_verified false.
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const { clientId, clientSecret, redirectUri } = JSON.parse(process.argv[2]);

let handler = (_req, res) => res.writeHead(503).end();
const server = createServer((req, res) => handler(req, res));
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['given_name', 'family_name', 'name'],
    },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['verity-test-idp-cookie-key'] },
    async findAccount(_ctx, id) {
      return {
        accountId: id,
        async claims() {
          return {
            sub: id,
            email: id,
            email_verified: !id.startsWith('unverified'),
            given_name: 'Ada',
            family_name: 'Lovelace',
            name: 'Ada Lovelace',
          };
        },
      };
    },
  });
  handler = provider.callback();
  process.stdout.write(`listening ${issuer}\n`);
});
