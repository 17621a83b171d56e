import { ApiParam } from '@nestjs/swagger';
import type { OwnErrorResponse } from '../common/openapi/api-responses.decorator.js';
import { EXAMPLE_IDS } from '../common/openapi/examples.js';

/** The rewards routes' path parameters and the error answers they document in their own words. */
export const REWARD_ID_PARAM = ApiParam({ name: 'rewardId', description: 'The reward (`rew_…`).', example: EXAMPLE_IDS.reward });
export const ASSIGNMENT_ID_PARAM = ApiParam({ name: 'assignmentId', description: 'The reward assignment (`rewa_…`).', example: EXAMPLE_IDS.rewardAssignment });

const EDGE = 'and, as on every route, the edge checks (docs/errors.md)';

export const REWARD_400: OwnErrorResponse = {
  status: 400,
  description:
    '`invalid_payload`, `details` naming the field: no `name` or `parameters`, none or several of `parameters.campaign`/`coin`/`product`, a `type` that contradicts them (or, on PUT, is not the reward\'s own), ' +
    '`parameters.campaign.type` DISCOUNT_COUPONS or GIFT_VOUCHERS (no such campaigns here), `exchange_ratio` ≤ 0, `points_ratio` < 1, `stock` < 0 or not an integer, ' +
    '`stock` or `attributes` on a reward that is not MATERIAL, a `stock` below the units already redeemed; `invalid_balance` for a `parameters.campaign.balance` below 1; ' +
    EDGE,
  example: { code: 400, key: 'invalid_payload', message: 'Invalid payload', details: 'type COIN contradicts parameters.product, which makes a MATERIAL reward', request_id: EXAMPLE_IDS.request },
};

export const REWARD_404: OwnErrorResponse = {
  status: 404,
  description: 'No such reward in the caller\'s project (`resource_type: "reward"`); on create or update, no such live campaign for a CAMPAIGN reward (`"campaign"`).',
  example: { code: 404, key: 'not_found', message: 'Resource not found', details: `Cannot find reward with id ${EXAMPLE_IDS.reward}`, request_id: EXAMPLE_IDS.request, resource_id: EXAMPLE_IDS.reward, resource_type: 'reward' },
};

export const REWARD_IN_USE: OwnErrorResponse = {
  status: 400,
  description:
    'The reward is offered in a live campaign: `resource_in_use`, with the assignments in `related_object_ids` (the first 100), `related_object_type: "reward_assignment"` and their number in `related_object_total`. Delete them first.',
  example: {
    code: 400,
    key: 'resource_in_use',
    message: 'Resource in use',
    details: `Resource reward with id ${EXAMPLE_IDS.reward} is in use by reward_assignments with ids [${EXAMPLE_IDS.rewardAssignment}]`,
    request_id: EXAMPLE_IDS.request,
    related_object_ids: [EXAMPLE_IDS.rewardAssignment],
    related_object_type: 'reward_assignment',
    related_object_total: 1,
  },
};

export const ASSIGNMENT_400: OwnErrorResponse = {
  status: 400,
  description:
    '`missing_param` when a CAMPAIGN or MATERIAL reward comes without its price (`Parameter \'parameters.loyalty\' is required`); `invalid_payload` for a price below 1 or not an integer, a price for a COIN reward, ' +
    `a reward twice in one request (its index named: \`[1] …\`); ${EDGE}.`,
  example: { code: 400, key: 'missing_param', message: 'Missing required parameter', details: "Parameter 'parameters.loyalty' is required", request_id: EXAMPLE_IDS.request },
};

export const ASSIGNMENT_404: OwnErrorResponse = {
  status: 404,
  description:
    'No such campaign (`resource_type: "campaign"`; a live one: not in the bin), reward (`"reward"`) or assignment of that campaign or reward (`"reward_assignment"`) in the caller\'s project.',
  example: {
    code: 404,
    key: 'not_found',
    message: 'Resource not found',
    details: `Cannot find reward_assignment with id ${EXAMPLE_IDS.rewardAssignment}`,
    request_id: EXAMPLE_IDS.request,
    resource_id: EXAMPLE_IDS.rewardAssignment,
    resource_type: 'reward_assignment',
  },
};

export const ASSIGNMENT_409: OwnErrorResponse = {
  status: 409,
  description: 'The reward is already offered in the campaign: `duplicate_found` naming that assignment; nothing is created (for an array, none of it).',
  example: {
    code: 409,
    key: 'duplicate_found',
    message: 'Duplicated resource found',
    details: `Duplicated reward_assignment exists with id ${EXAMPLE_IDS.rewardAssignment}`,
    request_id: EXAMPLE_IDS.request,
    resource_id: EXAMPLE_IDS.rewardAssignment,
    resource_type: 'reward_assignment',
  },
};
