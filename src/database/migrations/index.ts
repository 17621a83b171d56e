import { Init1795267621531 } from './1795267621531-Init.js';
import { LoyaltyCampaigns1795268201228 } from './1795268201228-LoyaltyCampaigns.js';

/** Every migration in order. New ones come from `npm run migration:generate -- src/database/migrations/<Name>`. */
export const MIGRATIONS = [Init1795267621531, LoyaltyCampaigns1795268201228];
