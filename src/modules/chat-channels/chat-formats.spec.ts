import {
  cut,
  escapeGoogleChat,
  escapeSlack,
  escapeTeams,
  googleChatMessage,
  messageBody,
  slackMessage,
  teamsMessage,
} from './chat-formats';
import { retryAfterMs } from './chat-deliveries.service';
import { ChatNotice, draftOf, fold, passesMinSeverity } from './chat-notice';

const HOSTILE = '<!channel> <@U123> *bold* _it_ [x](https://evil.test) & @here <at>Bob</at> <b>hi</b>';

function notice(overrides: Partial<ChatNotice> = {}): ChatNotice {
  return {
    event_type: 'alert.raised',
    title: `Alert raised: ${HOSTILE}`,
    severity: 'high',
    space_name: 'Finance & <Ops>',
    summary: HOSTILE,
    products: ['orders', 'orders_daily'],
    link: 'http://app.verity.test/api/v1.0/spaces/fin/incidents/1',
    folded: 0,
    occurred_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

describe('chat formats: escaping', () => {
  it('escapes Slack mrkdwn control characters so no mention or link can be written', () => {
    const escaped = escapeSlack(HOSTILE);
    expect(escaped).not.toMatch(/[<>]/);
    expect(escaped).toContain('&lt;!channel&gt;');
    expect(escaped).toContain('&lt;@U123&gt;');
    expect(escaped).toContain('&amp;');
    expect(escaped).toContain('@\u2060here');
    expect(escapeSlack('a &amp; b')).toBe('a &amp;amp; b');
  });

  it('backslash-escapes every Adaptive Card markdown character and list marker', () => {
    expect(escapeTeams('*bold* _it_ [x](u) `c` #h <at>')).toBe(
      '\\*bold\\* \\_it\\_ \\[x\\]\\(u\\) \\`c\\` \\#h \\<at\\>',
    );
    expect(escapeTeams('- item\n1. first\n+ plus')).toBe('\\- item\n1\\. first\n\\+ plus');
    expect(escapeTeams('a - b 2. c')).toBe('a - b 2. c');
    expect(escapeTeams('back\\slash')).toBe('back\\\\slash');
  });

  it('escapes Google Chat card HTML', () => {
    expect(escapeGoogleChat('<b>"x"</b> & <users/all>')).toBe(
      '&lt;b&gt;&quot;x&quot;&lt;/b&gt; &amp; &lt;users/all&gt;',
    );
  });

  it('cuts text to a limit with an ellipsis, never splitting a surrogate pair', () => {
    expect(cut('abcdef', 6)).toBe('abcdef');
    expect(cut('abcdefg', 6)).toBe('abcde…');
    expect(cut('abcd😀xyz', 6)).toBe('abcd…');
  });
});

describe('chat formats: messages', () => {
  it('puts user data only in Slack plain_text objects and escapes the mrkdwn fallback', () => {
    const message = slackMessage(notice()) as { text: string; blocks: Record<string, unknown>[] };
    expect(message.text).not.toMatch(/[<>]/);
    expect(message.text).toContain('[high]');
    const texts: { type: string }[] = [];
    for (const block of message.blocks) {
      const b = block as {
        text?: { type: string };
        fields?: { type: string }[];
        elements?: { type: string }[];
      };
      if (b.text) texts.push(b.text);
      texts.push(...(b.fields ?? []));
      for (const element of b.elements ?? []) {
        const e = element as { type: string; text?: { type: string } };
        texts.push(e.text ?? e);
      }
    }
    expect(texts.every((t) => t.type === 'plain_text')).toBe(true);
    expect(message.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: expect.any(String), emoji: false },
    });
    expect((message.blocks[0] as { text: { text: string } }).text.text.length).toBeLessThanOrEqual(150);
    expect(message.blocks.at(-1)).toEqual({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: 'Open in Verity', emoji: false },
          url: 'http://app.verity.test/api/v1.0/spaces/fin/incidents/1',
        },
      ],
    });
  });

  it('builds a Teams message with one Adaptive Card 1.5 whose text is escaped', () => {
    const message = teamsMessage(notice({ folded: 3 })) as {
      type: string;
      attachments: { contentType: string; content: { version: string; body: { text?: string }[] } }[];
    };
    expect(message.type).toBe('message');
    expect(message.attachments).toHaveLength(1);
    const card = message.attachments[0];
    expect(card.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.content.version).toBe('1.5');
    expect(card.content.body[0].text).toContain('\\<\\!channel\\>');
    expect(card.content.body.at(-1)!.text).toBe('+3 more events for this incident in the last minute');
  });

  it('builds a Google Chat cardsV2 card with escaped widget text and a plain header', () => {
    const message = googleChatMessage(notice(), 'verity-1') as {
      cardsV2: {
        cardId: string;
        card: { header: { title: string; subtitle: string }; sections: unknown[] };
      }[];
    };
    expect(message.cardsV2[0].cardId).toBe('verity-1');
    expect(message.cardsV2[0].card.header.subtitle).toBe('Finance & <Ops>');
    expect(JSON.stringify(message.cardsV2[0].card.sections)).not.toContain('<b>');
    expect(JSON.stringify(message.cardsV2[0].card.sections)).toContain('&lt;b&gt;hi&lt;/b&gt;');
  });

  it('serialises each kind', () => {
    expect(JSON.parse(messageBody('slack', notice(), 'm'))).toHaveProperty('blocks');
    expect(JSON.parse(messageBody('teams', notice(), 'm'))).toHaveProperty('attachments');
    expect(JSON.parse(messageBody('google_chat', notice(), 'm'))).toHaveProperty('cardsV2');
  });
});

describe('chat notices', () => {
  it('reads an escalation only when the severity was raised', () => {
    const base = {
      incident_id: 'i',
      space_id: 's',
      title: 'Freshness',
      status: 'open',
      alert_count: 2,
      root_product_id: null,
      blast_radius_snapshot: [],
    };
    const raised = draftOf({
      type: 'incident.updated',
      data: { ...base, severity: 'high', previous_severity: 'low', changed: ['severity'] },
    });
    expect(raised).toMatchObject({ type: 'incident.escalated', incidentId: 'i', severity: 'high' });
    const lowered = draftOf({
      type: 'incident.updated',
      data: { ...base, severity: 'low', previous_severity: 'high', changed: ['severity'] },
    });
    expect(lowered).toBeNull();
    const other = draftOf({
      type: 'incident.updated',
      data: { ...base, severity: 'high', previous_severity: 'high', changed: ['alert_count'] },
    });
    expect(other).toBeNull();
  });

  it('keys the events of an incident for coalescing, but not its resolution', () => {
    const alert = draftOf({
      type: 'alert.created',
      data: {
        alert_id: 'a',
        space_id: 's',
        product_id: 'p',
        alert_type: 'freshness',
        severity: 'medium',
        status: 'open',
        check_id: null,
        incident_id: 'i',
        message: 'late',
      },
    });
    expect(alert).toMatchObject({ type: 'alert.raised', incidentId: 'i', productIds: ['p'] });
    expect(draftOf({ type: 'product.created', data: {} as never })).toBeNull();
  });

  it('filters by minimum severity, letting events without one through', () => {
    expect(passesMinSeverity('low', 'medium')).toBe(false);
    expect(passesMinSeverity('critical', 'high')).toBe(true);
    expect(passesMinSeverity(null, 'critical')).toBe(true);
  });

  it('folds a later event: counts it, keeps the highest severity and the products of both', () => {
    const folded = fold(
      notice({ severity: 'medium', products: ['a'] }),
      notice({ severity: 'critical', products: ['b'], folded: 2 }),
    );
    expect(folded).toMatchObject({ severity: 'critical', products: ['a', 'b'], folded: 3 });
  });

  it('reads policy violations, and failing webhooks by their host only', () => {
    expect(
      draftOf({
        type: 'policy.violated',
        data: {
          policy_id: 'po',
          policy_name: 'Owners required',
          severity: 'critical',
          space_id: 's',
          product_id: 'p',
          product_name: 'orders',
          previous_status: 'compliant',
          message: 'No owner',
          evaluated_at: '2026-01-01T00:00:00Z',
        },
      }),
    ).toMatchObject({
      type: 'policy.violated',
      severity: 'critical',
      productNames: ['orders'],
      path: 'spaces/{slug}/policies/po',
    });
    expect(
      draftOf({
        type: 'webhook.failing',
        data: {
          webhook_id: 'w',
          space_id: 's',
          url_host: 'hooks.example.com',
          state: 'disabled',
          failing_since: '2026-01-01T00:00:00Z',
          reason: 'The endpoint answered 410 Gone.',
        },
      }),
    ).toMatchObject({ type: 'webhook.failing', title: 'Webhook to hooks.example.com disabled' });
  });
});

describe('Retry-After', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);

  it('reads seconds and HTTP dates, caps them at 60 s and ignores what it cannot read', () => {
    expect(retryAfterMs(undefined, now)).toBeNull();
    expect(retryAfterMs('7', now)).toBe(7_000);
    expect(retryAfterMs(['3', '9'], now)).toBe(3_000);
    expect(retryAfterMs('3600', now)).toBe(60_000);
    expect(retryAfterMs(new Date(now + 20_000).toUTCString(), now)).toBe(20_000);
    expect(retryAfterMs(new Date(now - 20_000).toUTCString(), now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeNull();
  });
});
