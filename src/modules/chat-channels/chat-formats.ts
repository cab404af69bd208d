import type { ChatKind } from './entities/chat-channel.entity';
import type { ChatNotice } from './chat-notice';

/**
 * A notice in each platform's own message format. User data (titles,
 * messages, product and space names) is never read as markup or a mention:
 * - Slack: it goes in `plain_text` objects (header, section, fields,
 *   context), which Slack does not parse; in the fallback `text` (mrkdwn,
 *   shown in notifications) `&`, `<` and `>` are escaped as Slack asks, which
 *   leaves no way to write `<!channel>`, `<!here>` or `<@U…>`, and a bare
 *   `@channel` or `@here` gets a word joiner so that no client highlights it.
 * - Teams: TextBlock and FactSet text is a markdown subset; every character
 *   that could start markup is escaped with a backslash (CommonMark rules),
 *   and mentions need `msteams.entities`, which are never sent.
 * - Google Chat: card text is an HTML subset; `&`, `<`, `>` and `"` become
 *   entities. The header is plain text and not parsed.
 */

const WORD_JOINER = '\u2060';

/** Cuts text to a platform's limit (in UTF-16 units), with an ellipsis. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 2] ?? '') ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

/** Slack mrkdwn: the three control characters as entities, broadcast words defused. */
export function escapeSlack(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(channel|here|everyone)\b/gi, `@${WORD_JOINER}$1`);
}

/** Adaptive Card markdown: a backslash before anything that could start markup, list markers included. */
export function escapeTeams(text: string): string {
  return text
    .replace(/[\\`*_~[\]()#<>|!{}]/g, '\\$&')
    .replace(/^(\s*)([-+])(?=\s)/gm, '$1\\$2')
    .replace(/^(\s*\d+)\.(?=\s)/gm, '$1\\.');
}

/** Google Chat card text (an HTML subset). */
export function escapeGoogleChat(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const LINK_LABEL = 'Open in Verity';

function foldedLine(notice: ChatNotice): string | null {
  if (!notice.folded) return null;
  return `+${notice.folded} more event${notice.folded === 1 ? '' : 's'} for this incident in the last minute`;
}

function facts(notice: ChatNotice): { title: string; value: string }[] {
  const list = [{ title: 'Space', value: notice.space_name }];
  if (notice.severity) list.push({ title: 'Severity', value: notice.severity });
  if (notice.products.length) list.push({ title: 'Products', value: notice.products.join(', ') });
  return list;
}

/** Slack incoming webhook: Block Kit `blocks` with a fallback `text` for notifications. */
export function slackMessage(notice: ChatNotice): Record<string, unknown> {
  const plain = (text: string, max: number) => ({ type: 'plain_text', text: cut(text, max), emoji: false });
  const folded = foldedLine(notice);
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: plain(notice.title, 150) },
    { type: 'section', text: plain(notice.summary || notice.title, 3000) },
    {
      type: 'section',
      fields: facts(notice).map((fact) => plain(`${fact.title}: ${fact.value}`, 2000)),
    },
  ];
  if (folded) blocks.push({ type: 'context', elements: [plain(folded, 2000)] });
  blocks.push({
    type: 'actions',
    elements: [{ type: 'button', text: plain(LINK_LABEL, 75), url: cut(notice.link, 3000) }],
  });
  const severity = notice.severity ? ` [${notice.severity}]` : '';
  return {
    text: cut(`${escapeSlack(notice.title)}${severity} in ${escapeSlack(notice.space_name)}`, 3000),
    blocks,
  };
}

/** Teams workflow webhook: a message with one Adaptive Card 1.5 attachment. */
export function teamsMessage(notice: ChatNotice): Record<string, unknown> {
  const folded = foldedLine(notice);
  const body: Record<string, unknown>[] = [
    {
      type: 'TextBlock',
      text: escapeTeams(notice.title),
      weight: 'Bolder',
      size: 'Medium',
      style: 'heading',
      wrap: true,
    },
  ];
  if (notice.summary) body.push({ type: 'TextBlock', text: escapeTeams(notice.summary), wrap: true });
  body.push({
    type: 'FactSet',
    facts: facts(notice).map((fact) => ({ title: fact.title, value: escapeTeams(fact.value) })),
  });
  if (folded) body.push({ type: 'TextBlock', text: escapeTeams(folded), isSubtle: true, wrap: true });
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.5',
          body,
          actions: [{ type: 'Action.OpenUrl', title: LINK_LABEL, url: notice.link }],
        },
      },
    ],
  };
}

/** Google Chat incoming webhook: one `cardsV2` card. */
export function googleChatMessage(notice: ChatNotice, cardId: string): Record<string, unknown> {
  const folded = foldedLine(notice);
  const widgets: Record<string, unknown>[] = [];
  if (notice.summary) widgets.push({ textParagraph: { text: escapeGoogleChat(notice.summary) } });
  for (const fact of facts(notice)) {
    widgets.push({
      decoratedText: { topLabel: fact.title, text: escapeGoogleChat(fact.value), wrapText: true },
    });
  }
  if (folded) widgets.push({ textParagraph: { text: escapeGoogleChat(folded) } });
  widgets.push({
    buttonList: { buttons: [{ text: LINK_LABEL, onClick: { openLink: { url: notice.link } } }] },
  });
  return {
    cardsV2: [
      {
        cardId,
        card: {
          header: { title: cut(notice.title, 200), subtitle: cut(notice.space_name, 200) },
          sections: [{ widgets }],
        },
      },
    ],
  };
}

/** The JSON body posted to a channel of `kind`. */
export function messageBody(kind: ChatKind, notice: ChatNotice, messageId: string): string {
  switch (kind) {
    case 'slack':
      return JSON.stringify(slackMessage(notice));
    case 'teams':
      return JSON.stringify(teamsMessage(notice));
    case 'google_chat':
      return JSON.stringify(googleChatMessage(notice, `verity-${messageId}`));
  }
}
