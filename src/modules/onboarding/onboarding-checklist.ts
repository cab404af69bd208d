export const CHECKLIST = [
  { key: 'profile_completed', title: 'Complete your profile (first and last name)' },
  { key: 'first_space', title: 'Join or create your first space' },
  { key: 'first_product', title: 'Create or take ownership of your first data product' },
  { key: 'first_quality_check', title: 'Add a quality check in one of your spaces' },
  { key: 'notification_preferences', title: 'Set your notification preferences' },
] as const;

export const CHECKLIST_KEYS = CHECKLIST.map((item) => item.key);
export type ChecklistKey = (typeof CHECKLIST)[number]['key'];
