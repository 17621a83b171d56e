import { ApiParam } from '@nestjs/swagger';
import type { OwnErrorResponse } from '../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS } from '../common/openapi/examples.js';

/** The redemption routes' path parameters and the error answers they document in their own words. */
export const REDEMPTION_ID_PARAM = ApiParam({ name: 'redemptionId', description: 'A redemption (`r_…`); GET also reads a rollback (`rr_…`).', example: EXAMPLE_IDS.redemption });
export const VOUCHER_CODE_PARAM = ApiParam({ name: 'code', description: 'The loyalty card code.', example: EXAMPLE_IDS.cardCode });

export const REDEEM_400: OwnErrorResponse = {
  status: 400,
  description:
    '`missing_reward` (no `reward`), `missing_order` (a COIN reward without `order`), `loyalty_card_points_exceeded` (the price, or `reward.points`, above the balance; a COIN redemption whose balance holds ' +
    'not one `points_ratio`), `quantity_exceeded` (a MATERIAL reward whose stock is used up), `voucher_disabled` (the member is INACTIVE or the campaign switched off), `voucher_not_active` / ' +
    '`voucher_expired` (the campaign has not started / has ended), `no_voucher_suitable_for_publication` (a CAMPAIGN reward whose campaign cannot give the customer a card), `invalid_payload`; ' +
    'a refused redemption changes nothing. `resource_id` is a failed redemption\'s id (`rf_…`, not stored).',
  example: {
    code: 400,
    key: 'loyalty_card_points_exceeded',
    message: 'loyalty card points exceeded',
    details: `There are not enough loyalty points on the card ${EXAMPLE_IDS.cardCode}: 400 needed, its balance is 120.`,
    request_id: EXAMPLE_IDS.request,
    resource_id: 'rf_0c9b1a4e77d36c05f3',
    resource_type: 'redemption',
  },
};

export const REDEEM_404: OwnErrorResponse = {
  status: 404,
  description: 'No such card (`resource_type: "voucher"`), campaign (`"campaign"`, the campaign form), reward (`"reward"`), or the reward is not offered in the card\'s campaign (`"reward_assignment"`), in the caller\'s project.',
  example: { code: 404, key: 'not_found', message: 'Resource not found', details: `Cannot find voucher with id ${EXAMPLE_IDS.cardCode}`, request_id: EXAMPLE_IDS.request, resource_id: EXAMPLE_IDS.cardCode, resource_type: 'voucher' },
};

export const ROLLBACK_400: OwnErrorResponse = {
  status: 400,
  description:
    '`already_rolled_back` (the redemption was rolled back before; `resource_id` a failed rollback\'s id, `rrf_…`); `invalid_redemption` (its points cannot be given back: a bucket they came from has expired since, ' +
    'or the points a CAMPAIGN reward credited have been spent); `invalid_payload`, `invalid_query_params`. Nothing changes.',
  example: { code: 400, key: 'already_rolled_back', message: 'Already rolled back', details: 'Redemption has been already rolled back.', request_id: EXAMPLE_IDS.request, resource_id: 'rrf_0c9b1a4e77d36c05f4', resource_type: 'redemption_rollback' },
};

export const REDEMPTION_404: OwnErrorResponse = {
  status: 404,
  description: 'No such redemption in the caller\'s project (`resource_type: "redemption"`).',
  example: { code: 404, key: 'not_found', message: 'Resource not found', details: `Cannot find redemption with id ${EXAMPLE_IDS.redemption}`, request_id: EXAMPLE_IDS.request, resource_id: EXAMPLE_IDS.redemption, resource_type: 'redemption' },
};
