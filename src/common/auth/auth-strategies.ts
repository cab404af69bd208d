/** Passport strategies the global guard tries, in order. */
export const AUTH_STRATEGIES = ['jwt'];
