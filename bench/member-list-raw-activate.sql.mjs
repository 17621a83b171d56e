// The statements the API sends for POST /v1/loyalties/members/{code}/pending-points/{id}/activate, for the plain
// baseline (bench/member-list-raw-server.mjs), imported from the build (dist/): the service's own text, named as
// the API names it where the API prepares it once per connection. The card by code (MemberCardRepository), the
// entry (PendingPointsRepository), then in one transaction the card locked, its entry locked while PENDING, the
// activation itself (ActivationRepository: ledger row, point bucket, event), and the card's next expiration when
// its bucket is dated.
import { LOCK } from '../dist/cards/card.repository.js';
import { PUBLISHED_BY_CODE } from '../dist/members/member-card.repository.js';
import { REFRESH_NEXT } from '../dist/points/buckets/bucket.repository.js';
import { ACTIVATE_STATEMENT } from '../dist/points/pending/activation.repository.js';
import { BY_ID, LOCK_PENDING } from '../dist/points/pending/pending-points.repository.js';

export const ACTIVATE_SQL = {
  card: PUBLISHED_BY_CODE,
  entry: BY_ID,
  lockCards: LOCK,
  lockPending: LOCK_PENDING,
  activate: ACTIVATE_STATEMENT,
  refreshNext: REFRESH_NEXT,
};
