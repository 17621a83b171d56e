import { jest } from '@jest/globals';
import { INITIAL_WINDOW, ProjectShares } from './project-shares.js';

const TIMEOUT_MS = 10_000;

describe('ProjectShares', () => {
  it('a project earns its window with timely attempts, up to the largest share, and loses one per slow attempt, down to the start', () => {
    const shares = new ProjectShares(100, 50, TIMEOUT_MS);
    expect(shares.window('proj_a')).toBe(INITIAL_WINDOW);
    for (let i = 0; i < 10; i += 1) shares.observe('proj_a', 20);
    expect(shares.window('proj_a')).toBe(INITIAL_WINDOW + 10);
    for (let i = 0; i < 100; i += 1) shares.observe('proj_a', 20);
    expect(shares.window('proj_a')).toBe(50);
    expect(shares.isSlow('proj_a')).toBe(false);
    shares.observe('proj_a', TIMEOUT_MS / 2);
    expect(shares.window('proj_a')).toBe(49);
    expect(shares.isSlow('proj_a')).toBe(true);
    // A wave of timeouts (its targets all hang): back to the start, not below.
    for (let i = 0; i < 60; i += 1) shares.observe('proj_a', TIMEOUT_MS);
    expect(shares.window('proj_a')).toBe(INITIAL_WINDOW);
    expect(shares.window('proj_b')).toBe(INITIAL_WINDOW);
  });

  it('a window not grown for 10 s goes back to the start', () => {
    const shares = new ProjectShares(100, 50, TIMEOUT_MS);
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
    try {
      for (let i = 0; i < 20; i += 1) shares.observe('proj_a', 20);
      clock.mockReturnValue(now + 9_999);
      expect(shares.window('proj_a')).toBe(INITIAL_WINDOW + 20);
      clock.mockReturnValue(now + 10_000);
      expect(shares.window('proj_a')).toBe(INITIAL_WINDOW);
    } finally {
      clock.mockRestore();
    }
  });

  it('caps each project in flight at its window', () => {
    const shares = new ProjectShares(100, 50, TIMEOUT_MS);
    for (let i = 0; i < 8; i += 1) shares.observe('proj_fast', 5);
    expect(shares.caps(new Map([['proj_fast', 3], ['proj_new', 1]]))).toEqual(new Map([['proj_fast', 10], ['proj_new', INITIAL_WINDOW]]));
  });

  it('slow projects together get at most half of the slots, in turns, however many they are', () => {
    const shares = new ProjectShares(100, 50, TIMEOUT_MS);
    const slow = Array.from({ length: 80 }, (_, i) => `proj_${String(i).padStart(2, '0')}`);
    for (const project of slow) shares.observe(project, TIMEOUT_MS);
    // 40 of them hold one request each: 10 more fit in the half, one each for ten of the others.
    const inFlight = new Map(slow.slice(0, 40).map((project) => [project, 1]));
    const given = new Set<string>();
    for (let claim = 0; claim < 8; claim += 1) {
      const caps = shares.caps(inFlight);
      expect(caps.size).toBe(80);
      const more = slow.reduce((sum, project) => sum + (caps.get(project)! - (inFlight.get(project) ?? 0)), 0);
      expect(more).toBe(10);
      for (const project of slow) if (caps.get(project)! > (inFlight.get(project) ?? 0)) given.add(project);
    }
    // The remainder goes round: over a few claims, every slow project's turn comes.
    expect(given.size).toBe(80);
    // At half, none gets more.
    const full = new Map(slow.slice(0, 50).map((project) => [project, 1]));
    const caps = shares.caps(full);
    expect(slow.every((project) => caps.get(project) === (full.get(project) ?? 0))).toBe(true);
  });
});
