/** What POST /search finds, in the order results of equal score are listed. */
export const SEARCH_TYPES = ['product', 'standard_page', 'risk', 'policy', 'incident', 'ticket'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const SEARCH_MODES = ['keyword', 'semantic', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** Whether `total` is exact (`eq`) or a lower bound where counting stopped (`gte`). */
export const SEARCH_TOTAL_RELATIONS = ['eq', 'gte'] as const;
export type SearchTotalRelation = (typeof SEARCH_TOTAL_RELATIONS)[number];
