import { prepared } from './prepared.js';

describe('prepared', () => {
  it('names a statement by its text, so that a changed statement is prepared anew', () => {
    const a = prepared('cards_lock', 'SELECT 1');
    expect(a).toEqual({ name: expect.stringMatching(/^cards_lock_[0-9a-f]{8}$/), text: 'SELECT 1' });
    expect(prepared('cards_lock', 'SELECT 1').name).toBe(a.name);
    expect(prepared('cards_lock', 'SELECT 2').name).not.toBe(a.name);
  });
});
