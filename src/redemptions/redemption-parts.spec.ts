import { coinPoints } from './redemption-parts.js';

describe('coinPoints: pay with points', () => {
  const coin = { exchange_ratio: 20, points_ratio: 100 };

  it('with points: those, the discount in minor units capped at the order', () => {
    expect(coinPoints(coin, 45000, 100, 1000)).toEqual({ points: 100, discount: 2000 });
    expect(coinPoints(coin, 1500, 100, 1000)).toEqual({ points: 100, discount: 1500 });
    expect(coinPoints(coin, 45000, 50, 1000)).toEqual({ points: 50, discount: 1000 });
    expect(coinPoints(coin, 45000, 1001, 1000)).toBeNull();
  });

  it('without points: the whole order in whole points_ratio units (Voucherify\'s 2300 for 45000), at most the balance\'s whole units', () => {
    expect(coinPoints(coin, 45000, undefined, 5000)).toEqual({ points: 2300, discount: 45000 });
    expect(coinPoints(coin, 44000, undefined, 5000)).toEqual({ points: 2200, discount: 44000 });
    expect(coinPoints(coin, 45000, undefined, 650)).toEqual({ points: 600, discount: 12000 });
    expect(coinPoints(coin, 45000, undefined, 99)).toBeNull();
    expect(coinPoints(coin, 0, undefined, 1000)).toBeNull();
  });

  it('ratios that binary floating point does not hold exactly: 1 point = 0.01', () => {
    expect(coinPoints({ exchange_ratio: 0.01, points_ratio: 1 }, 4550, undefined, 10_000)).toEqual({ points: 4550, discount: 4550 });
    expect(coinPoints({ exchange_ratio: 0.1, points_ratio: 3 }, 100, undefined, 10_000)).toEqual({ points: 30, discount: 100 });
  });
});
