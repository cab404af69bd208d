import { JobRunner } from '../../src/platform/jobs/job-runner.service';
import { MailerService } from '../../src/platform/mail/mailer.service';
import { OutboxDispatcher } from '../../src/platform/outbox/outbox.dispatcher';
import { startApp, TestApp } from '../support/app';
import { addMember, bearer, createProduct, createSpace, createUser, TestUser } from '../support/factories';
import { SmtpReceiver, startSmtpReceiver } from '../support/smtp-receiver';

const API = '/api/v1.0';

// The producers of access_submitted, access_approved and access_rejected, end to end:
// request -> outbox -> notification (and email by preferences).
describe('access request notifications', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  let admin: TestUser;
  let owner: TestUser;
  let steward: TestUser;
  let bystander: TestUser;
  let requester: TestUser;
  let product: { id: string; name: string };
  let slug: string;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    t = await startApp({ env: { SMTP_URL: smtp.url } });
    admin = await createUser(t.http);
    owner = await createUser(t.http);
    steward = await createUser(t.http);
    bystander = await createUser(t.http);
    requester = await createUser(t.http);
    const space = await createSpace(t.http, admin);
    slug = space.slug;
    for (const [user, role] of [
      [owner, 'editor'],
      [steward, 'viewer'],
      [bystander, 'editor'],
      [requester, 'viewer'],
    ] as const) {
      await addMember(t.http, admin, space, user, role);
    }
    product = await createProduct(t.http, owner, space, { owner_ids: [owner.id], steward_ids: [steward.id] });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  async function settle(): Promise<void> {
    await t.app.get(OutboxDispatcher).drain();
    await t.app.get(JobRunner).drain();
    await t.app.get(MailerService).flush();
  }

  const inbox = async (user: TestUser) =>
    (await t.http.get(`${API}/notifications`).set(bearer(user))).body.items as {
      type: string;
      title: string;
      data: Record<string, string>;
    }[];

  it("tells the product's owners and stewards of a new request, by notification and email", async () => {
    const res = await t.http
      .post(`${API}/catalog/spaces/${slug}/products/${product.id}/access-requests`)
      .set(bearer(requester))
      .send({ justification: 'Quarterly report', access_level: 'read' });
    expect(res.status).toBe(201);
    await settle();
    for (const reviewer of [owner, steward]) {
      const [notification] = await inbox(reviewer);
      expect(notification).toEqual(
        expect.objectContaining({
          type: 'access_submitted',
          title: `Access requested to ${product.name}`,
          data: expect.objectContaining({ request_id: res.body.id, product_id: product.id }),
        }),
      );
      await smtp.waitFor(
        (m) => m.to.includes(reviewer.email) && m.subject === `Access requested to ${product.name}`,
      );
    }
    expect(await inbox(bystander)).toEqual([]);
    expect(await inbox(requester)).toEqual([]);

    const approved = await t.http
      .post(`${API}/catalog/spaces/${slug}/access-requests/${res.body.id}/approve`)
      .set(bearer(owner))
      .send({});
    expect(approved.status).toBe(200);
    await settle();
    const [decision] = await inbox(requester);
    expect(decision).toEqual(
      expect.objectContaining({
        type: 'access_approved',
        data: expect.objectContaining({ request_id: res.body.id }),
      }),
    );
  });

  it('tells the requester of a rejection with its reason', async () => {
    const res = await t.http
      .post(`${API}/catalog/spaces/${slug}/products/${product.id}/access-requests`)
      .set(bearer(bystander))
      .send({ justification: 'Curious', access_level: 'write' });
    await t.http
      .post(`${API}/catalog/spaces/${slug}/access-requests/${res.body.id}/reject`)
      .set(bearer(steward))
      .send({ reason: 'Write access is for the pipeline team.' })
      .expect(200);
    await settle();
    const [decision] = await inbox(bystander);
    expect(decision.type).toBe('access_rejected');
    const mail = await smtp.waitFor((m) => m.to.includes(bystander.email) && /rejected/.test(m.subject));
    expect(mail.text).toContain('Write access is for the pipeline team.');
  });
});
