import { ApiParam } from '@nestjs/swagger';
import { EXAMPLE_IDS } from './examples.js';

/**
 * Path parameters several controllers share, with their examples (Swagger UI fills "Try it out" with the
 * example, so it is an id, not a name that the UI would percent-encode a second time).
 */
export const CAMPAIGN_ID_PARAM = ApiParam({
  name: 'campaignId',
  description: 'The campaign id (`camp_…`) or its name, URL-encoded (`Summer%20Loyalty`).',
  example: EXAMPLE_IDS.campaign,
});

/** v1 routes call a loyalty card's code `memberId`: in v1 a member is its card. */
export const CARD_CODE_PARAM = ApiParam({ name: 'memberId', description: 'The loyalty card code.', example: EXAMPLE_IDS.cardCode });
