/**
 * Feature flags of a space, with their defaults. A flag not stored on the
 * space takes its default; PATCH /spaces/{slug}/features takes only these keys.
 */
export const SPACE_FEATURES = {
  'quality.incidents': {
    default: true,
    description: 'Quality incidents (correlated alert groups); when off, incident endpoints answer 403.',
  },
} as const;

export type SpaceFeature = keyof typeof SPACE_FEATURES;

export function featuresWithDefaults(
  stored: Record<string, boolean> | null | undefined,
): Record<string, boolean> {
  const features: Record<string, boolean> = {};
  for (const [name, feature] of Object.entries(SPACE_FEATURES)) {
    const value = stored?.[name];
    features[name] = typeof value === 'boolean' ? value : feature.default;
  }
  return features;
}
