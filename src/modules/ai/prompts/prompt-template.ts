import { variableText } from '../guardrails';

const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/g;

/** The variable names a template uses, in order of first use. */
export function templateVariables(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

/** The declared variables the call did not give (null and undefined count as missing). */
export function missingVariables(declared: readonly string[], variables: Record<string, unknown>): string[] {
  return declared.filter((name) => variables[name] === undefined || variables[name] === null);
}

/** Fills `{{name}}` placeholders; a placeholder without a value stays empty. */
export function render(template: string, variables: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_match, name: string) => variableText(variables[name]));
}
