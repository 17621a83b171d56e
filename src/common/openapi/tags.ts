/**
 * The Swagger tag of the loyalty campaigns and of everything addressed through a campaign's card in v1: its
 * members (a v1 member is the customer's loyalty card) and their transactions. Voucherify's reference keeps
 * these together, and a reader looking for "add a member to my campaign" looks under the campaigns.
 */
export const LOYALTY_CAMPAIGNS_TAG = 'Loyalty campaigns';
