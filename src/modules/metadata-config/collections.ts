import { CriticalityLevel } from './entities/criticality-level.entity';
import { MaintenanceStatus } from './entities/maintenance-status.entity';
import type { MetadataValue } from './entities/metadata-value.base';
import { SensitivityLevel } from './entities/sensitivity-level.entity';

export const COLLECTIONS = ['criticality-levels', 'sensitivity-levels', 'maintenance-statuses'] as const;
export type Collection = (typeof COLLECTIONS)[number];

export interface DefaultValue {
  name: string;
  color: string;
  description?: string;
  slug?: string;
}

export interface CollectionSpec {
  entity: new () => MetadataValue;
  /** For problem details: "criticality level". */
  label: string;
  /** Whether values carry a snake_case slug (maintenance statuses) or a description (levels). */
  hasSlug: boolean;
  /** The standard defaults `seed` creates, in order. */
  defaults: DefaultValue[];
}

export const COLLECTION_SPECS: Record<Collection, CollectionSpec> = {
  'criticality-levels': {
    entity: CriticalityLevel,
    label: 'criticality level',
    hasSlug: false,
    defaults: [
      { name: 'Critical', color: '#DC2626', description: 'Failure stops core business processes.' },
      { name: 'High', color: '#F97316', description: 'Failure seriously impairs important work.' },
      { name: 'Medium', color: '#EAB308', description: 'Failure is a nuisance with workarounds.' },
      { name: 'Low', color: '#22C55E', description: 'Failure has little business impact.' },
    ],
  },
  'sensitivity-levels': {
    entity: SensitivityLevel,
    label: 'sensitivity level',
    hasSlug: false,
    defaults: [
      { name: 'Public', color: '#22C55E', description: 'May be shared with anyone.' },
      { name: 'Internal', color: '#3B82F6', description: 'For people inside the organisation.' },
      { name: 'Confidential', color: '#F97316', description: 'For named groups with a need to know.' },
      {
        name: 'Restricted',
        color: '#DC2626',
        description: 'Highest protection; access is granted individually.',
      },
    ],
  },
  'maintenance-statuses': {
    entity: MaintenanceStatus,
    label: 'maintenance status',
    hasSlug: true,
    defaults: [
      { name: 'Active', slug: 'active', color: '#22C55E' },
      { name: 'Deprecated', slug: 'deprecated', color: '#EAB308' },
      { name: 'Retired', slug: 'retired', color: '#6B7280' },
      { name: 'Under Maintenance', slug: 'under_maintenance', color: '#3B82F6' },
    ],
  },
};

export const DEFAULT_COLOR = '#6B7280';

/** `Under Maintenance` -> `under_maintenance`. */
export function snakeSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 63)
    .replace(/_+$/, '');
  if (!slug) return 'status';
  return /^[a-z]/.test(slug) ? slug : `s_${slug}`.slice(0, 63);
}
