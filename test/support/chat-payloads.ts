/**
 * Shape checks of chat platforms' incoming-webhook payloads, written from
 * each platform's published reference (only the parts Verity may send, with
 * objects closed and the documented limits):
 * - Slack Block Kit (api.slack.com/reference/block-kit): `text` and `blocks`,
 *   at most 50 blocks; header (plain_text, 150), section (text 3000 or up to
 *   10 fields of 2000), context (up to 10 elements), divider, actions (up to
 *   25 elements; a button's text plain_text 75, url 3000); text objects
 *   `plain_text` (optional `emoji`) or `mrkdwn` (optional `verbatim`).
 * - Microsoft Teams workflow webhooks: `{type: "message", attachments: [{
 *   contentType: "application/vnd.microsoft.card.adaptive", contentUrl,
 *   content}]}` whose content is an Adaptive Card of version 1.5
 *   (adaptivecards.io schema 1.5): TextBlock, FactSet, RichTextBlock,
 *   Container elements with their enumerated properties, Action.OpenUrl.
 * - Google Chat (developers.google.com/workspace/chat, Cards v2): `cardsV2`
 *   of `{cardId, card: {header, sections: [{header?, widgets}]}}`, each
 *   widget exactly one of textParagraph, decoratedText, buttonList, divider,
 *   at most 100 widgets per card.
 */
export type ChatPayloadKind = 'slack' | 'teams' | 'google_chat';

type Json = Record<string, unknown>;

class Checker {
  readonly errors: string[] = [];

  fail(path: string, message: string): void {
    this.errors.push(`${path}: ${message}`);
  }

  object(path: string, value: unknown, required: string[], optional: string[] = []): value is Json {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(path, 'must be an object');
      return false;
    }
    for (const key of required) if (!(key in value)) this.fail(path, `${key} is required`);
    for (const key of Object.keys(value)) {
      if (!required.includes(key) && !optional.includes(key)) this.fail(path, `${key} is not allowed`);
    }
    return true;
  }

  string(path: string, value: unknown, max = Infinity, min = 1): void {
    if (typeof value !== 'string') this.fail(path, 'must be a string');
    else if (value.length < min) this.fail(path, `must have at least ${min} characters`);
    else if (value.length > max) this.fail(path, `must have at most ${max} characters`);
  }

  array(path: string, value: unknown, max: number, min = 1): value is unknown[] {
    if (!Array.isArray(value)) {
      this.fail(path, 'must be an array');
      return false;
    }
    if (value.length < min || value.length > max) this.fail(path, `must have ${min} to ${max} items`);
    return true;
  }

  oneOf(path: string, value: unknown, allowed: readonly unknown[]): void {
    if (!allowed.includes(value)) this.fail(path, `must be one of ${allowed.join(', ')}`);
  }

  boolean(path: string, value: unknown): void {
    if (value !== undefined && typeof value !== 'boolean') this.fail(path, 'must be a boolean');
  }

  url(path: string, value: unknown, max = 3000): void {
    this.string(path, value, max);
    if (typeof value === 'string' && !/^https?:\/\/[^\s]+$/.test(value))
      this.fail(path, 'must be an http(s) URL');
  }
}

function slackText(c: Checker, path: string, value: unknown, max: number, plainOnly = false): void {
  if (!c.object(path, value, ['type', 'text'], ['emoji', 'verbatim'])) return;
  c.oneOf(`${path}.type`, value.type, plainOnly ? ['plain_text'] : ['plain_text', 'mrkdwn']);
  c.string(`${path}.text`, value.text, max);
  if (value.type === 'plain_text' && 'verbatim' in value) c.fail(path, 'verbatim is only for mrkdwn');
  if (value.type === 'mrkdwn' && 'emoji' in value) c.fail(path, 'emoji is only for plain_text');
  c.boolean(`${path}.emoji`, value.emoji);
}

function slackErrors(c: Checker, body: Json): void {
  if (!c.object('$', body, ['text', 'blocks'])) return;
  c.string('$.text', body.text, 40_000);
  if (!c.array('$.blocks', body.blocks, 50)) return;
  body.blocks.forEach((block, i) => {
    const path = `$.blocks[${i}]`;
    const type = (block as Json)?.type;
    switch (type) {
      case 'header':
        if (c.object(path, block, ['type', 'text'], ['block_id']))
          slackText(c, `${path}.text`, block.text, 150, true);
        break;
      case 'section':
        if (!c.object(path, block, ['type'], ['text', 'fields', 'block_id'])) break;
        if (!('text' in block) && !('fields' in block)) c.fail(path, 'needs text or fields');
        if ('text' in block) slackText(c, `${path}.text`, block.text, 3000);
        if ('fields' in block && c.array(`${path}.fields`, block.fields, 10)) {
          block.fields.forEach((field, j) => slackText(c, `${path}.fields[${j}]`, field, 2000));
        }
        break;
      case 'context':
        if (
          c.object(path, block, ['type', 'elements'], ['block_id']) &&
          c.array(`${path}.elements`, block.elements, 10)
        ) {
          block.elements.forEach((element, j) => slackText(c, `${path}.elements[${j}]`, element, 3000));
        }
        break;
      case 'divider':
        c.object(path, block, ['type'], ['block_id']);
        break;
      case 'actions':
        if (!c.object(path, block, ['type', 'elements'], ['block_id'])) break;
        if (!c.array(`${path}.elements`, block.elements, 25)) break;
        block.elements.forEach((element, j) => {
          const at = `${path}.elements[${j}]`;
          if (!c.object(at, element, ['type', 'text'], ['url', 'action_id', 'value', 'style'])) return;
          c.oneOf(`${at}.type`, element.type, ['button']);
          slackText(c, `${at}.text`, element.text, 75, true);
          if ('url' in element) c.url(`${at}.url`, element.url);
        });
        break;
      default:
        c.fail(path, `unknown block type ${String(type)}`);
    }
  });
}

const TEXT_COLORS = ['Default', 'Dark', 'Light', 'Accent', 'Good', 'Warning', 'Attention'];
const TEXT_BLOCK_PROPERTIES = [
  'id',
  'color',
  'fontType',
  'horizontalAlignment',
  'isSubtle',
  'maxLines',
  'size',
  'weight',
  'wrap',
  'style',
  'spacing',
  'separator',
  'isVisible',
];

function adaptiveElement(c: Checker, path: string, element: unknown): void {
  const type = (element as Json)?.type;
  switch (type) {
    case 'TextBlock':
      if (!c.object(path, element, ['type', 'text'], TEXT_BLOCK_PROPERTIES)) return;
      c.string(`${path}.text`, element.text, Infinity, 0);
      if ('weight' in element) c.oneOf(`${path}.weight`, element.weight, ['Default', 'Lighter', 'Bolder']);
      if ('size' in element)
        c.oneOf(`${path}.size`, element.size, ['Default', 'Small', 'Medium', 'Large', 'ExtraLarge']);
      // `heading` is new in 1.5.
      if ('style' in element) c.oneOf(`${path}.style`, element.style, ['default', 'heading']);
      if ('color' in element) c.oneOf(`${path}.color`, element.color, TEXT_COLORS);
      c.boolean(`${path}.wrap`, element.wrap);
      c.boolean(`${path}.isSubtle`, element.isSubtle);
      return;
    case 'FactSet':
      if (!c.object(path, element, ['type', 'facts'], ['id', 'spacing', 'separator'])) return;
      if (!c.array(`${path}.facts`, element.facts, 100)) return;
      element.facts.forEach((fact, i) => {
        if (!c.object(`${path}.facts[${i}]`, fact, ['title', 'value'])) return;
        c.string(`${path}.facts[${i}].title`, fact.title, Infinity, 0);
        c.string(`${path}.facts[${i}].value`, fact.value, Infinity, 0);
      });
      return;
    case 'RichTextBlock':
      if (!c.object(path, element, ['type', 'inlines'], ['id', 'horizontalAlignment', 'spacing'])) return;
      if (c.array(`${path}.inlines`, element.inlines, 100)) {
        element.inlines.forEach((inline, i) => {
          if (
            c.object(
              `${path}.inlines[${i}]`,
              inline,
              ['type', 'text'],
              ['weight', 'isSubtle', 'italic', 'color'],
            )
          )
            c.oneOf(`${path}.inlines[${i}].type`, inline.type, ['TextRun']);
        });
      }
      return;
    case 'Container':
      if (!c.object(path, element, ['type', 'items'], ['id', 'style', 'spacing', 'separator'])) return;
      if (c.array(`${path}.items`, element.items, 100))
        element.items.forEach((item, i) => adaptiveElement(c, `${path}.items[${i}]`, item));
      return;
    default:
      c.fail(path, `unknown or unexpected element type ${String(type)}`);
  }
}

function teamsErrors(c: Checker, body: Json): void {
  if (!c.object('$', body, ['type', 'attachments'], ['text', 'summary'])) return;
  c.oneOf('$.type', body.type, ['message']);
  if (!c.array('$.attachments', body.attachments, 10)) return;
  body.attachments.forEach((attachment, i) => {
    const path = `$.attachments[${i}]`;
    if (!c.object(path, attachment, ['contentType', 'content'], ['contentUrl', 'name'])) return;
    c.oneOf(`${path}.contentType`, attachment.contentType, ['application/vnd.microsoft.card.adaptive']);
    if (attachment.contentUrl !== undefined && attachment.contentUrl !== null)
      c.string(`${path}.contentUrl`, attachment.contentUrl);
    const card = attachment.content;
    const at = `${path}.content`;
    if (
      !c.object(
        at,
        card,
        ['type', 'version', 'body'],
        ['$schema', 'actions', 'msteams', 'fallbackText', 'lang'],
      )
    )
      return;
    c.oneOf(`${at}.type`, card.type, ['AdaptiveCard']);
    c.oneOf(`${at}.version`, card.version, ['1.5']);
    if ('$schema' in card)
      c.oneOf(`${at}.$schema`, card.$schema, ['http://adaptivecards.io/schemas/adaptive-card.json']);
    if (c.array(`${at}.body`, card.body, 100))
      card.body.forEach((el, j) => adaptiveElement(c, `${at}.body[${j}]`, el));
    if ('actions' in card && c.array(`${at}.actions`, card.actions, 6)) {
      card.actions.forEach((action, j) => {
        const ap = `${at}.actions[${j}]`;
        if (!c.object(ap, action, ['type', 'url'], ['title', 'id', 'style', 'iconUrl'])) return;
        c.oneOf(`${ap}.type`, action.type, ['Action.OpenUrl']);
        c.url(`${ap}.url`, action.url);
      });
    }
  });
}

function googleChatWidget(c: Checker, path: string, widget: unknown): void {
  if (typeof widget !== 'object' || widget === null) return c.fail(path, 'must be an object');
  const keys = Object.keys(widget).filter((k) => k !== 'horizontalAlignment');
  if (keys.length !== 1) return c.fail(path, 'must hold exactly one widget');
  const [kind] = keys;
  const value = (widget as Json)[kind];
  switch (kind) {
    case 'textParagraph':
      if (c.object(`${path}.textParagraph`, value, ['text'], ['maxLines']))
        c.string(`${path}.textParagraph.text`, value.text);
      return;
    case 'decoratedText':
      if (
        !c.object(
          `${path}.decoratedText`,
          value,
          ['text'],
          ['topLabel', 'bottomLabel', 'wrapText', 'startIcon', 'button'],
        )
      )
        return;
      c.string(`${path}.decoratedText.text`, value.text);
      if ('topLabel' in value) c.string(`${path}.decoratedText.topLabel`, value.topLabel);
      c.boolean(`${path}.decoratedText.wrapText`, value.wrapText);
      return;
    case 'buttonList':
      if (!c.object(`${path}.buttonList`, value, ['buttons'])) return;
      if (!c.array(`${path}.buttonList.buttons`, value.buttons, 20)) return;
      value.buttons.forEach((button, i) => {
        const at = `${path}.buttonList.buttons[${i}]`;
        if (!c.object(at, button, ['text', 'onClick'], ['icon', 'color', 'disabled', 'altText'])) return;
        c.string(`${at}.text`, button.text);
        if (
          c.object(`${at}.onClick`, button.onClick, ['openLink']) &&
          c.object(`${at}.onClick.openLink`, button.onClick.openLink, ['url'], ['openAs', 'onClose'])
        )
          c.url(`${at}.onClick.openLink.url`, button.onClick.openLink.url);
      });
      return;
    case 'divider':
      c.object(`${path}.divider`, value, []);
      return;
    default:
      c.fail(path, `unknown widget ${kind}`);
  }
}

function googleChatErrors(c: Checker, body: Json): void {
  if (!c.object('$', body, ['cardsV2'], ['text'])) return;
  if ('text' in body) c.string('$.text', body.text, 4096);
  if (!c.array('$.cardsV2', body.cardsV2, 10)) return;
  body.cardsV2.forEach((entry, i) => {
    const path = `$.cardsV2[${i}]`;
    if (!c.object(path, entry, ['cardId', 'card'])) return;
    c.string(`${path}.cardId`, entry.cardId, 255);
    const card = entry.card;
    if (!c.object(`${path}.card`, card, ['sections'], ['header', 'name'])) return;
    if (
      'header' in card &&
      c.object(
        `${path}.card.header`,
        card.header,
        ['title'],
        ['subtitle', 'imageUrl', 'imageType', 'imageAltText'],
      )
    ) {
      c.string(`${path}.card.header.title`, card.header.title);
      if ('subtitle' in card.header)
        c.string(`${path}.card.header.subtitle`, card.header.subtitle, Infinity, 0);
    }
    if (!c.array(`${path}.card.sections`, card.sections, 100)) return;
    let widgets = 0;
    card.sections.forEach((section, j) => {
      const at = `${path}.card.sections[${j}]`;
      if (!c.object(at, section, ['widgets'], ['header', 'collapsible', 'uncollapsibleWidgetsCount'])) return;
      if (!c.array(`${at}.widgets`, section.widgets, 100)) return;
      widgets += section.widgets.length;
      section.widgets.forEach((widget, k) => googleChatWidget(c, `${at}.widgets[${k}]`, widget));
    });
    if (widgets > 100) c.fail(`${path}.card`, 'has more than 100 widgets');
  });
}

/** What is wrong with a payload for the platform (empty when it has the published shape). */
export function chatPayloadErrors(kind: ChatPayloadKind, body: unknown): string[] {
  const c = new Checker();
  if (typeof body !== 'object' || body === null) return ['$: must be an object'];
  if (kind === 'slack') slackErrors(c, body as Json);
  else if (kind === 'teams') teamsErrors(c, body as Json);
  else googleChatErrors(c, body as Json);
  return c.errors;
}
