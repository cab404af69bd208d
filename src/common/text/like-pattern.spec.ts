import { likePattern } from './like-pattern';

describe('likePattern', () => {
  it('matches the text anywhere, its wildcards and backslashes taken literally', () => {
    expect(likePattern('ann')).toBe('%ann%');
    expect(likePattern('50%_off\\')).toBe('%50\\%\\_off\\\\%');
    expect(likePattern('')).toBe('%%');
  });
});
