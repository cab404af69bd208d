/**
 * The gateway's guardrails as pure functions: PII and secret redaction of
 * everything sent to a provider, and prompt-injection markers in the
 * variables a caller marks untrusted.
 */

export type GuardrailKind =
  | 'redact_email'
  | 'redact_phone'
  | 'redact_card'
  | 'redact_iban'
  | 'redact_secret'
  | 'injection_flagged'
  | 'injection_blocked';

export interface GuardrailAction {
  kind: GuardrailKind;
  /** How many occurrences were replaced or found. */
  count: number;
  /** The variable concerned, for injection markers. */
  variable?: string;
}

export interface Redaction {
  text: string;
  counts: Partial<Record<GuardrailKind, number>>;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
// 13 to 19 digits, optionally grouped by spaces or dashes; confirmed by Luhn.
// Not after a +: an international phone number is not a card.
const CARD = /(?<!\+)\b\d(?:[ -]?\d){12,18}\b/g;
// Country code, check digits, then 11 to 30 alphanumerics, optionally in groups of four; confirmed by mod 97.
const IBAN = /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30}\b/g;
// International (+…) or grouped national numbers; 8 to 15 digits, dates excluded below.
const PHONE =
  /(?<![\w+.-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,5}(?:[ .-]\d{2,8}){1,4}(?![\w-])|(?<![\w+])\+\d{8,15}(?!\w)/g;
// Dates and IPv4 addresses have the same shape as grouped numbers.
const DATE_LIKE = /^\d{4}[-./]\d{1,2}[-./]\d{1,2}$|^\d{1,2}[-./]\d{1,2}[-./]\d{4}$|^\d{1,3}(?:\.\d{1,3}){3}$/;
/** Well-known credential shapes (cloud keys, tokens, private keys, bearer headers). */
const SECRET_PATTERNS: RegExp[] = [
  /\b(?:sk|pk|rk)-(?:proj-|live-|test-|ant-)?[A-Za-z0-9_-]{16,}\b/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\b(?:api[_-]?key|secret|token|password|passwd)\s*[:=]\s*["']?[^\s"']{8,}/gi,
  /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/g,
];
/** A long token mixing character classes with high entropy looks like a generated secret. */
const CANDIDATE_TOKEN = /\b[A-Za-z0-9_+/=-]{24,}\b/g;

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length >= 13 && sum % 10 === 0;
}

export function ibanValid(raw: string): boolean {
  const iban = raw.replace(/ /g, '').toUpperCase();
  if (iban.length < 15 || iban.length > 34) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = /[A-Z]/.test(ch) ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

/** Shannon entropy in bits per character. */
export function entropy(text: string): number {
  const freq = new Map<string, number>();
  for (const ch of text) freq.set(ch, (freq.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of freq.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

function looksGenerated(token: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /\d/].filter((re) => re.test(token)).length;
  return classes >= 3 && entropy(token) >= 4;
}

/** Replaces PII and secrets by typed placeholders, counting each kind. Order matters: secrets first (they may contain digits). */
export function redact(input: string): Redaction {
  const counts: Partial<Record<GuardrailKind, number>> = {};
  const bump = (kind: GuardrailKind) => {
    counts[kind] = (counts[kind] ?? 0) + 1;
  };
  let text = input;
  for (const pattern of SECRET_PATTERNS) {
    text = text.replace(pattern, () => {
      bump('redact_secret');
      return '[REDACTED_SECRET]';
    });
  }
  text = text.replace(EMAIL, () => {
    bump('redact_email');
    return '[REDACTED_EMAIL]';
  });
  text = text.replace(IBAN, (match) => {
    if (!ibanValid(match)) return match;
    bump('redact_iban');
    return '[REDACTED_IBAN]';
  });
  text = text.replace(CARD, (match) => {
    if (!luhnValid(match.replace(/[ -]/g, ''))) return match;
    bump('redact_card');
    return '[REDACTED_CARD]';
  });
  text = text.replace(CANDIDATE_TOKEN, (match) => {
    if (!looksGenerated(match)) return match;
    bump('redact_secret');
    return '[REDACTED_SECRET]';
  });
  text = text.replace(PHONE, (match) => {
    const digits = match.replace(/\D/g, '').length;
    if (digits < 8 || digits > 15 || DATE_LIKE.test(match)) return match;
    bump('redact_phone');
    return '[REDACTED_PHONE]';
  });
  return { text, counts };
}

/**
 * Markers that try to take over the model. Strong ones (an instruction to
 * drop the system prompt, a forged role tag) block the call; weak ones
 * (role-play, asking for the prompt) are only flagged in the log.
 */
const STRONG_MARKERS: RegExp[] = [
  /\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}\b(?:previous|prior|above|earlier|all|system)\b[^.\n]{0,20}\b(?:instructions?|prompts?|rules?|directions?)\b/i,
  /<\|?(?:im_start|im_end|system|endoftext)\|?>/i,
  /^\s*(?:#{1,3}\s*)?(?:system|assistant)\s*:/im,
  /\[\/?(?:INST|SYS)\]/,
];
const WEAK_MARKERS: RegExp[] = [
  /\byou are now\b/i,
  /\b(?:act|pretend|behave) as\b/i,
  /\b(?:reveal|print|show|repeat)\b[^.\n]{0,30}\b(?:system prompt|instructions|hidden prompt)\b/i,
  /\bjailbreak|\bDAN mode\b|\bdeveloper mode\b/i,
  /\bdo not follow\b[^.\n]{0,30}\brules\b/i,
];

export interface InjectionVerdict {
  strong: number;
  weak: number;
}

export function detectInjection(text: string): InjectionVerdict {
  return {
    strong: STRONG_MARKERS.filter((re) => re.test(text)).length,
    weak: WEAK_MARKERS.filter((re) => re.test(text)).length,
  };
}

/** A variable's value as the prompt shows it. */
export function variableText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

export interface GuardrailOutcome {
  actions: GuardrailAction[];
  blocked: boolean;
}

/** Injection markers in each untrusted variable: strong markers block the call, weak ones are flagged. */
export function checkUntrusted(
  variables: Record<string, unknown>,
  untrusted: readonly string[],
): GuardrailOutcome {
  const actions: GuardrailAction[] = [];
  let blocked = false;
  for (const name of untrusted) {
    if (!(name in variables)) continue;
    const verdict = detectInjection(variableText(variables[name]));
    if (verdict.strong > 0) {
      blocked = true;
      actions.push({ kind: 'injection_blocked', count: verdict.strong, variable: name });
    } else if (verdict.weak > 0) {
      actions.push({ kind: 'injection_flagged', count: verdict.weak, variable: name });
    }
  }
  return { actions, blocked };
}

/** Merges redaction counts into action records, in a stable order. */
export function redactionActions(counts: Partial<Record<GuardrailKind, number>>): GuardrailAction[] {
  return (Object.keys(counts) as GuardrailKind[]).sort().map((kind) => ({ kind, count: counts[kind] ?? 0 }));
}
