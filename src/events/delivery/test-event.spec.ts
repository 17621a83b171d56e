import { EVENT_CATALOGUE, EVENT_TYPES, EVENTS } from '../event-catalogue.js';
import { testEventOf } from './test-event.js';

describe('testEventOf', () => {
  const delivery = (trigger: string) => ({ id: 'whs_0123456789abcdef01', createdAt: new Date('2026-11-23T15:13:36.577Z'), trigger });

  it('gives each type the event_source of a real event of it: API with a made-up named key, or INTERNAL', () => {
    for (const type of EVENT_TYPES) {
      const source = testEventOf(delivery(type)).eventSource;
      if (EVENT_CATALOGUE[type].channel === 'API') expect(source).toEqual({ channel: 'API', api_key: { name: 'Test key', app_id: 'app_test_0123456789abcdef01' } });
      else expect(source).toEqual({ channel: 'INTERNAL' });
    }
    expect(testEventOf(delivery(EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.POINTS_EXPIRED)).eventSource).toEqual({ channel: 'INTERNAL' });
    expect(testEventOf(delivery(EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.POINTS_ADDED)).eventSource.channel).toBe('API');
  });

  it('is the same for every attempt of a delivery (built from the delivery alone)', () => {
    expect(testEventOf(delivery(EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS.ADDED))).toEqual(testEventOf(delivery(EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS.ADDED)));
  });
});
