/**
 * One realistic value per kind of id, in the shapes the service makes them (src/common/ids.ts: `hexId` is the
 * prefix + 18 hex characters, `base62Id` the prefix + 24 or 32 base62 characters), for the OpenAPI document's
 * `example`s. Without an example Swagger UI invents a value from the schema's `pattern` (up to a hundred random
 * characters after the prefix), and readers copy what they see. The same ids are used everywhere, so the
 * examples of one document agree with each other (the member's program is the campaign's program…).
 */
export const EXAMPLE_IDS = {
  campaign: 'camp_wGlqXtnHddb39DvHuuhvvbxi',
  program: 'lprg_128f58429f4c4bf7b2',
  member: 'lmbr_128f962dbc8c4ba5dc',
  customer: 'cust_nM4jqPiaXUvQdVSA6vTRUnix',
  /** A loyalty card's voucher id. */
  card: 'v_0TxKw1bm0oZuS5lwA8526vze1OBMV1OH',
  /** A loyalty card's code (the v1 routes' `memberId`), made from the code_config pattern `L-####-####`. */
  cardCode: 'L-7Kq2-9xZ4',
  category: 'cat_0b6152ce12414820dc',
  earningRule: 'ern_63g6NQgtepfXn2z0QbT2ksLf',
  order: 'ord_100cc4b1b16ab710e7',
  pendingPoints: 'lopp_0ffdbd86f0120789f2',
  pointsBucket: 'lopb_3a91c07be5d2486f10',
  transaction: 'vtx_66171fbc42349566f2a206',
  event: 'evcus_66171fbc4234a0c93b5e17',
  distribution: 'distr_4f2b0c1d9e8a7b6c5d',
  delivery: 'whs_5e0c1f7a9b2d4c6e80',
  ping: 'ping_3f9a1c2b7d4e5f6a01',
  asyncAction: 'aa_7d2e0b94c1f35a6e08',
  accessAssignment: 'arsca_0a875d56c805df6601',
  reward: 'rew_uHWxt3c9bD9ArlbCdAgF2Zgr',
  rewardAssignment: 'rewa_KFlYtkaoMycGwj1bp4sZXdu1',
  redemption: 'r_0c9afe8fa2e1b24e71',
  rollback: 'rr_0c9b1a4e77d36c05f2',
  /** A request id (`X-Request-Id`, an event's `group_id`). */
  request: 'v-0c12951ec58e67577e',
  /** An application id: a UUID (auth.service.ts). */
  app: '8b4e2f0c-5d1a-4c3b-9e7f-2a6d0b8c1e94',
} as const;

/**
 * A member list cursor as the service hands it out (`lcrsmbr_` + hex of the payload and its MAC,
 * cursor.service.ts): long, because the payload carries the query the cursor is bound to. This one is the
 * payload after the first page of EXAMPLE_IDS.program in the default order, with a made-up MAC.
 */
export const EXAMPLE_MEMBERS_CURSOR =
  'lcrsmbr_7b2273223a2270726f6a5f3038333462663437636336303636666463377c6d656d626572737c7b5c2270726f6772616d5c223a5c226c7072675f3132386635383432396634633462663762325c222c5c22736f72745c223a5b7b5c22636f6c756d6e5c223a5c22637265617465645f61745c222c5c22646573635c223a747275657d2c7b5c22636f6c756d6e5c223a5c2269645c222c5c22646573635c223a747275657d5d2c5c2266696c746572735c223a7b5c226a756e6374696f6e5c223a5c22414e445c222c5c226669656c64735c223a5b5d7d7d222c2270223a5b22323032362d31312d32335431373a34373a34362e3037355a222c226c6d62725f313238663936326462633863346261356463225d2c2265223a313739353435393636363132397d154aec5a7f0225de17929cd12bd4cfed';

/**
 * `{ pattern, example }` for an @ApiProperty or a parameter schema: the pattern the value follows and an
 * example of it, checked here so that a wrong example fails when the module loads, not in a reader's request.
 */
export function patternExample(pattern: RegExp | string, example: string): { pattern: string; example: string } {
  const source = typeof pattern === 'string' ? pattern : pattern.source;
  if (!new RegExp(source).test(example)) throw new Error(`OpenAPI example '${example}' does not match its pattern ${source}`);
  return { pattern: source, example };
}
