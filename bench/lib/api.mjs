// What the benchmarks that drive the API through HTTP share (bench/orders.mjs, bench/redemptions.mjs): a request
// that must answer 200, a campaign made through the API, and a statement on the server's `postgres` database.
import pg from 'pg';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A request to the API that must answer 200. */
export async function call(base, headers, method, path, body) {
  const response = await fetch(base + path, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = await response.json().catch(() => null);
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** An AUTO_UPDATE loyalty campaign, once its (empty) card generation is DONE, with these earning rules if given. */
export async function campaign(api, headers, name, rules) {
  const created = await call(api.base, headers, 'POST', '/v1/loyalties', { name, type: 'AUTO_UPDATE', vouchers_count: 0 });
  let got = created;
  for (let i = 0; got.vouchers_generation_status !== 'DONE'; i += 1) {
    if (i > 300) throw new Error(`campaign ${name}: vouchers_generation_status still ${got.vouchers_generation_status}`);
    await sleep(100);
    got = await call(api.base, headers, 'GET', `/v1/loyalties/${created.id}`);
  }
  const ruleIds = rules ? (await call(api.base, headers, 'POST', `/v1/loyalties/${created.id}/earning-rules`, rules)).map((rule) => rule.id) : [];
  return { id: created.id, program_id: got.program_id ?? created.program_id, rule_ids: ruleIds };
}

/** `sql` on the `postgres` database of the server `databaseUrl` names (CREATE/ALTER/DROP DATABASE). */
export async function adminQuery(databaseUrl, sql) {
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}
