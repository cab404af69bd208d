import { getMetadataStorage } from 'class-validator';

type RuleLookup = ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas'];
type Rules = ReturnType<RuleLookup>;

let installed = false;

/**
 * class-validator looks up a class's rules on every validation by testing
 * every decorated class of the process (hundreds of DTOs here) for being one
 * of its ancestors: 2-3% of a write request's CPU in profiles. A class's
 * rules are fixed once it is defined (its decorators run with it, after its
 * ancestors'), so the answer is kept per class and lookup options.
 */
export function cacheValidationRules(): void {
  if (installed) return;
  installed = true;
  const storage = getMetadataStorage();
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const cache = new WeakMap<object, Map<string, Rules>>();
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    let byOptions = cache.get(target);
    if (!byOptions) cache.set(target, (byOptions = new Map()));
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0000') ?? ''}`;
    let rules = byOptions.get(key);
    if (!rules) byOptions.set(key, (rules = lookup(target, schema, always, strictGroups, groups)));
    return rules;
  };
}
