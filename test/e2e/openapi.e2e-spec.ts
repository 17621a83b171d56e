import { readFile } from 'node:fs/promises';
import { buildOpenApiDocument, serializeOpenApi } from '../../src/app/openapi.js';
import { useStack } from '../support/fixture.js';
import { createProject } from '../support/harness.js';

type Json = Record<string, unknown>;
interface Operation {
  tags?: string[];
  parameters?: { name: string; in: string; example?: unknown; schema?: Json }[];
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
}

/**
 * The shapes of the service's ids (src/common/ids.ts: hexId is the prefix + 18 hex characters, base62Id the
 * prefix + 24 or 32 base62 characters; `whs_` ids are made in SQL with 18 hex characters too; the ledger's
 * and the events' ids grow with time, timeId and loyalty_time_id: 13 hex characters of the microsecond and 9
 * random ones). An example of another shape is not an id a reader will ever meet.
 */
const hex = (prefix: string) => new RegExp(`^${prefix}[0-9a-f]{18}$`);
const timeOrdered = (prefix: string) => new RegExp(`^${prefix}[0-9a-f]{22}$`);
const base62 = (prefix: string, length: number) => new RegExp(`^${prefix}[0-9A-Za-z]{${length}}$`);
const ID_SHAPES = {
  campaign: base62('camp_', 24),
  program: hex('lprg_'),
  member: hex('lmbr_'),
  customer: base62('cust_', 24),
  card: base62('v_', 32),
  v2Card: /^lcrd_[a-f0-9]{64}$/,
  cardDefinition: /^lcdef_[a-f0-9]{48}$/,
  automation: base62('auto_', 24),
  cardCode: /^[A-Z]+-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}$/,
  category: hex('cat_'),
  earningRule: base62('ern_', 24),
  order: hex('ord_'),
  pendingPoints: hex('lopp_'),
  pointsBucket: hex('lopb_'),
  transaction: timeOrdered('vtx_'),
  event: timeOrdered('evcus_'),
  distribution: hex('distr_'),
  delivery: hex('whs_'),
  ping: hex('ping_'),
  asyncAction: hex('aa_'),
  accessAssignment: hex('arsca_'),
  reward: base62('rew_', 24),
  rewardAssignment: base62('rewa_', 24),
  redemption: hex('r_'),
  rollback: hex('rr_'),
  // A refused redemption's or rollback's `resource_id` (Voucherify's failed-redemption ids; not stored here).
  failedRedemption: hex('rf_'),
  failedRollback: hex('rrf_'),
  request: hex('v-'),
  app: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
} as const;
type IdKind = keyof typeof ID_SHAPES;

/** Which kind of id a `*_id` property holds, whatever schema it is in. */
const KIND_OF_FIELD: Record<string, IdKind> = {
  campaign_id: 'campaign',
  object_id: 'campaign', // an earning rule's source object: its campaign
  program_id: 'program',
  customer_id: 'customer',
  holder_id: 'customer',
  entity_id: 'customer', // events are about a customer
  category_id: 'category',
  order_id: 'order',
  voucher_id: 'card',
  event_id: 'event',
  distribution_id: 'distribution',
  related_transaction_id: 'transaction',
  group_id: 'request',
  request_id: 'request',
  app_id: 'app',
  card_definition_id: 'cardDefinition',
  automation_id: 'automation',
  async_action_id: 'asyncAction',
  reward_id: 'reward',
  related_object_id: 'campaign', // a reward assignment's campaign
  channel_id: 'app', // a redemption's channel: the application key
};
/** A `*_id` property that holds another kind in one schema than KIND_OF_FIELD says. */
const KIND_OF_SCHEMA_FIELD: Record<string, IdKind> = {
  'LoyaltyRedemptionDto.related_object_id': 'card', // a redemption's card
  'RedemptionRollbackDto.related_object_id': 'card',
};
/** Which kind of id the `id` property of a schema holds. */
const KIND_OF_ID: Record<string, IdKind> = {
  LoyaltyCampaignDto: 'campaign',
  LoyaltyProgramDto: 'program',
  MemberDto: 'member',
  MemberWithCardsDto: 'member',
  CustomerDto: 'customer',
  UpsertCustomerDto: 'customer',
  OrderCustomerRefDto: 'customer',
  CardDto: 'v2Card',
  LoyaltyMemberDto: 'card',
  RelatedVoucherDto: 'card',
  CategoryDto: 'category',
  EarningRuleDto: 'earningRule',
  EarningRuleRefDto: 'earningRule',
  OrderDto: 'order',
  CreateOrderDto: 'order',
  OrderRefDto: 'order',
  PendingPointsDto: 'pendingPoints',
  PointsBucketDto: 'pointsBucket',
  PendingPointsEventDto: 'event',
  TransactionEventRefDto: 'event',
  ExpiredBucketRefDto: 'pointsBucket',
  TransactionDto: 'transaction',
  EventDto: 'event',
  DistributionDto: 'distribution',
  DeliveryDto: 'delivery',
  DeliveryDetailDto: 'delivery',
  LastDeliveryDto: 'delivery',
  DiagnosticPingDto: 'ping',
  AsyncActionDto: 'asyncAction',
  AsyncActionSummaryDto: 'asyncAction',
  AccessSettingsAssignmentDto: 'accessAssignment',
  RewardDto: 'reward',
  RewardAssignmentDto: 'rewardAssignment',
  RedeemRewardRefDto: 'reward',
  LoyaltyRedemptionDto: 'redemption',
  RedemptionRollbackDto: 'rollback',
  RedemptionRollbackRefDto: 'rollback',
  CampaignRewardParamsDto: 'campaign',
  CampaignRewardParamsPatchDto: 'campaign',
  CampaignRewardParamsAnswerDto: 'campaign',
};
/** Path parameters; v1 routes call a card code `memberId`. */
const KIND_OF_PARAM: Record<string, IdKind | ((path: string) => IdKind)> = {
  campaignId: 'campaign',
  programId: 'program',
  memberId: (path) => (path.startsWith('/v2/') ? 'member' : 'cardCode'),
  customerId: 'customer',
  orderId: 'order',
  earningRuleId: 'earningRule',
  pendingPointsId: 'pendingPoints',
  eventId: 'event',
  distributionId: 'distribution',
  deliveryId: 'delivery',
  pingId: 'ping',
  asyncActionId: 'asyncAction',
  rewardId: 'reward',
  assignmentId: 'rewardAssignment',
  redemptionId: 'redemption',
  code: 'cardCode', // GET /v1/vouchers/{code}/redemption: a card's code
};
/** Ids this service does not make: the caller's own (source ids, tracking ids, products), Areas and Stores ids, and fields always null. */
const NOT_OUR_IDS = new Set(['tracking_id', 'source_id', 'customer_source_id', 'product_id', 'sku_id', 'area_id', 'area_store_id', 'validation_rule_id', 'referrer_id', 'resource_id']);
/** Schemas whose `id` is the caller's own: a MATERIAL reward's product. */
const NOT_OUR_ID_SCHEMAS = new Set(['ProductRewardParamsDto', 'ProductRewardParamsPatchDto', 'ProductRewardParamsAnswerDto']);

/** Every object in `value` with the path to it and whether it lies under a query parameter. */
function* nodes(value: unknown, path = '', inQuery = false): Generator<{ node: Json; path: string; inQuery: boolean }> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* nodes(item, `${path}[${i}]`, inQuery);
  } else if (value !== null && typeof value === 'object') {
    const node = value as Json;
    const query = inQuery || node.in === 'query';
    yield { node, path, inQuery: query };
    for (const [key, child] of Object.entries(node)) yield* nodes(child, `${path}/${key}`, query);
  }
}

describe('openapi/openapi.json', () => {
  const stack = useStack();
  let document: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, { properties?: Record<string, Json> }> } };
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));

  beforeAll(async () => {
    document = JSON.parse(serializeOpenApi(buildOpenApiDocument(stack.app)));
  });

  it('is exactly what the code generates (run `npm run openapi` after an API change)', async () => {
    const committed = await readFile(new URL('../../openapi/openapi.json', import.meta.url), 'utf8');
    expect(serializeOpenApi(buildOpenApiDocument(stack.app))).toBe(committed);
  });

  it('describes every route with its error responses and both security headers', () => {
    const document = buildOpenApiDocument(stack.app);
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op: op as { responses: Record<string, unknown>; security?: unknown[] } })),
    );
    expect(operations.length).toBeGreaterThan(0);
    for (const { path, op } of operations) {
      expect(op.responses['500']).toBeDefined();
      if (path.startsWith('/v1') || path.startsWith('/v2')) {
        expect(op.responses['401']).toBeDefined();
        expect(op.security ?? document.security).toEqual([{ 'X-App-Id': [], 'X-App-Token': [] }]);
      }
    }
  });

  it('puts the v1 member routes (and their cards\' transactions) in the tag of the loyalty campaigns', () => {
    const campaignsTag = document.paths['/v1/loyalties'].post.tags;
    const memberRoutes = operations().filter(({ path }) => /^\/v1\/loyalties\/(\{campaignId\}\/)?members(\/\{memberId\})?(\/transactions)?$/.test(path));
    expect(memberRoutes.map(({ method, path }) => `${method} ${path}`).sort()).toEqual([
      'GET /v1/loyalties/members/{memberId}',
      'GET /v1/loyalties/members/{memberId}/transactions',
      'GET /v1/loyalties/{campaignId}/members',
      'GET /v1/loyalties/{campaignId}/members/{memberId}',
      'GET /v1/loyalties/{campaignId}/members/{memberId}/transactions',
      'POST /v1/loyalties/{campaignId}/members',
    ]);
    for (const { method, path, op } of memberRoutes) expect({ route: `${method} ${path}`, tags: op.tags }).toEqual({ route: `${method} ${path}`, tags: campaignsTag });
  });

  it('gives every example a value its own schema allows (pattern, enum)', () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const { node, path } of nodes(document)) {
      if (!('example' in node)) continue;
      // A parameter may carry its example next to its schema rather than in it.
      const schema = node.in && node.schema ? (node.schema as Json) : node;
      const example = node.example;
      if (typeof schema.pattern === 'string') {
        checked += 1;
        if (typeof example !== 'string' || !new RegExp(schema.pattern).test(example)) wrong.push(`${path}: ${JSON.stringify(example)} !~ ${schema.pattern}`);
      }
      if (Array.isArray(schema.enum) && !schema.enum.includes(example)) wrong.push(`${path}: ${JSON.stringify(example)} not in ${JSON.stringify(schema.enum)}`);
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });

  it('gives every pattern an example, so that Swagger UI does not invent a regex sample (query parameters aside)', () => {
    // Swagger UI fills "Try it out" with a parameter's example: an optional query parameter (a cursor, a
    // starting id) keeps none, or every tried request would send it. Swagger UI does not sample those.
    const missing = [...nodes(document)].filter(({ node, inQuery }) => typeof node.pattern === 'string' && !('example' in node) && !inQuery).map(({ path }) => path);
    expect(missing).toEqual([]);
  });

  it('gives every id property and id path parameter an example that is a real id of its kind', () => {
    const wrong: string[] = [];
    const check = (where: string, kind: IdKind | undefined, example: unknown) => {
      if (!kind) wrong.push(`${where}: which kind of id? (add it to this test)`);
      else if (typeof example !== 'string' || !ID_SHAPES[kind].test(example)) wrong.push(`${where}: ${JSON.stringify(example)} is not a ${kind} id (${ID_SHAPES[kind]})`);
    };
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      for (const [field, property] of Object.entries(schema.properties ?? {})) {
        if ((field === 'id' || field.endsWith('_id')) && !NOT_OUR_IDS.has(field) && !(field === 'id' && NOT_OUR_ID_SCHEMAS.has(name))) check(`${name}.${field}`, field === 'id' ? KIND_OF_ID[name] : (KIND_OF_SCHEMA_FIELD[`${name}.${field}`] ?? KIND_OF_FIELD[field]), property.example);
      }
    }
    let params = 0;
    for (const { method, path, op } of operations()) {
      for (const param of op.parameters ?? []) {
        if (param.in !== 'path') continue;
        params += 1;
        const kind = KIND_OF_PARAM[param.name];
        check(`${method} ${path} {${param.name}}`, typeof kind === 'function' ? kind(path) : kind, param.example ?? param.schema?.example);
      }
    }
    expect(wrong).toEqual([]);
    expect(params).toBeGreaterThan(40);
  });

  it('uses real ids in the error examples too', () => {
    const wrong: string[] = [];
    for (const { method, path, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const media of Object.values(response.content ?? {})) {
          const example = media.example as Json | undefined;
          if (!example || typeof example !== 'object') continue;
          const where = `${method} ${path} ${status}`;
          if ('request_id' in example && !ID_SHAPES.request.test(String(example.request_id))) wrong.push(`${where}: request_id ${JSON.stringify(example.request_id)}`);
          if ('resource_id' in example && !Object.values(ID_SHAPES).some((shape) => shape.test(String(example.resource_id)))) wrong.push(`${where}: resource_id ${JSON.stringify(example.resource_id)}`);
          if (typeof example.details === 'string' && typeof example.resource_id === 'string' && / with id /.test(example.details) && !example.details.endsWith(example.resource_id)) {
            wrong.push(`${where}: details name another id than resource_id`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('shows, as the enrolment 400, what the API answers to an enrolment without a valid customer', async () => {
    const project = await createProject(stack.app, 'OpenAPI examples');
    const campaign = await stack.http()
      .post('/v1/loyalties')
      .set(project.headers)
      .send({ name: 'OpenAPI examples', type: 'AUTO_UPDATE', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    expect(campaign.status).toBe(200);
    const routes = [
      { path: '/v1/loyalties/{campaignId}/members', url: `/v1/loyalties/${campaign.body.id}/members`, body: { customer: {} } },
      {
        path: '/v2/loyalties/programs/{programId}/members',
        url: `/v2/loyalties/programs/${campaign.body.program_id}/members`,
        body: { customer_identification: { type: 'customer_id', customer_id: 'alice' } },
      },
    ];
    for (const { path, url, body } of routes) {
      const documented = document.paths[path].post.responses['400'] as { description: string; content: { 'application/json': { example: Json } } };
      const example = documented.content['application/json'].example;
      expect(example.details).toMatch(/customer/);
      expect(documented.description).toMatch(/^The customer to enrol/);
      const res = await stack.http().post(url).set(project.headers).send(body);
      expect(res.status).toBe(400);
      const { request_id: _documentedId, ...documentedBody } = example;
      const { request_id: _answeredId, ...answeredBody } = res.body as Json;
      expect({ path, body: answeredBody }).toEqual({ path, body: documentedBody });
    }
  });
});
