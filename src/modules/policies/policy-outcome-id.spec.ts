import { policyOutcomeId } from './policy-outcome-id';

const POLICY = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('policyOutcomeId', () => {
  it('is the RFC 4122 version 5 UUID of the product id in the policy namespace', () => {
    // The RFC's DNS namespace and the name "python.org", as every v5 implementation answers it.
    expect(policyOutcomeId(POLICY, 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });

  it('is the same for the same pair, whatever the case of the ids, and differs between pairs', () => {
    const product = 'b3a1c2d4-0000-4000-8000-00000000000a';
    const id = policyOutcomeId(POLICY, product);
    expect(id).toMatch(UUID_V5);
    expect(policyOutcomeId(POLICY.toUpperCase(), product.toUpperCase())).toBe(id);
    expect(policyOutcomeId(POLICY, 'b3a1c2d4-0000-4000-8000-00000000000b')).not.toBe(id);
    expect(policyOutcomeId('6ba7b811-9dad-11d1-80b4-00c04fd430c8', product)).not.toBe(id);
  });
});
