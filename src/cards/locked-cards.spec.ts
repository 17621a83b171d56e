import type { Tx } from '../database/transaction-runner.js';
import { LockedCards } from './card.repository.js';

describe('LockedCards', () => {
  const tx = {} as Tx;

  it('lets a write name only the cards it holds', () => {
    const locked = new LockedCards(tx, ['v_b', 'v_a']);
    expect(() => locked.require(['v_a', 'v_b', 'v_a'])).not.toThrow();
    expect(locked.has('v_a')).toBe(true);
    expect(() => locked.require(['v_a', 'v_c'])).toThrow('card v_c is written for without its lock (CardRepository.lock first)');
  });

  it('holds nothing when nothing was locked', () => {
    const locked = new LockedCards(tx, []);
    expect(locked.cardIds).toEqual([]);
    expect(() => locked.require([])).not.toThrow();
    expect(() => locked.require(['v_a'])).toThrow();
  });
});
