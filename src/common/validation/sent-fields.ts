/**
 * The fields a request body actually sent, sorted. Declared DTO fields exist
 * on the instance even when the body left them out (class fields are
 * defined as `undefined`), so `Object.keys(dto)` alone would list them all.
 */
export function sentFields(dto: object): string[] {
  return Object.entries(dto)
    .filter(([, value]) => value !== undefined)
    .map(([key]) => key)
    .sort();
}
