import { useStack } from '../support/fixture.js';
import { REQUEST_ID } from '../support/harness.js';

describe('error bodies (docs/errors.md)', () => {
  const stack = useStack({ projects: 1 });

  it('sends a v- request id header on every answer, and the same id in error bodies', async () => {
    const ok = await stack.http().get('/health');
    expect(ok.headers['x-request-id']).toMatch(REQUEST_ID);
    const missing = await stack.http().get('/v1/diagnostics/pings/ping_missing').set(stack.a.headers);
    expect(missing.headers['x-request-id']).toMatch(REQUEST_ID);
    expect(missing.body.request_id).toBe(missing.headers['x-request-id']);
    const other = await stack.http().get('/health');
    expect(other.headers['x-request-id']).not.toBe(ok.headers['x-request-id']);
  });

  it('404 not_found for an unknown route', async () => {
    const res = await stack.http().get('/v1/no-such-route').set(stack.a.headers);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      code: 404,
      key: 'not_found',
      message: 'Resource not found',
      details: 'Cannot find route GET /v1/no-such-route',
      request_id: res.headers['x-request-id'],
    });
  });

  it('404 not_found naming the resource and id', async () => {
    const res = await stack.http().get('/v1/diagnostics/pings/ping_nope').set(stack.a.headers);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      code: 404,
      key: 'not_found',
      message: 'Resource not found',
      details: 'Cannot find diagnostic_ping with id ping_nope',
      request_id: res.headers['x-request-id'],
      resource_id: 'ping_nope',
      resource_type: 'diagnostic_ping',
    });
  });

  it('400 invalid_payload naming a property of the wrong type', async () => {
    const res = await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).send({ note: 42 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 400, key: 'invalid_payload', message: 'Invalid payload', request_id: res.headers['x-request-id'] });
    expect(res.body.details).toContain('note must be a string');
  });

  it('400 invalid_payload naming an unknown property', async () => {
    const res = await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).send({ note: 'ok', colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.key).toBe('invalid_payload');
    expect(res.body.details).toBe('property colour is not allowed');
  });

  it('400 invalid_payload naming an out-of-range number', async () => {
    const res = await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).send({ work_ms: 10_001 });
    expect(res.status).toBe(400);
    expect(res.body.details).toBe('work_ms must not be greater than 10000');
  });

  it('400 invalid_payload for malformed JSON', async () => {
    const res = await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).set('Content-Type', 'application/json').send('{"note":');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 400, key: 'invalid_payload', details: 'Request body is not valid JSON' });
    expect(res.body.request_id).toMatch(REQUEST_ID);
  });

  it('400 invalid_payload for a JSON body that is not an object', async () => {
    const res = await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).set('Content-Type', 'application/json').send('[1,2]');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ key: 'invalid_payload', details: 'Request body must be a JSON object' });
  });

  it('413 JSON for a body over 1 MiB', async () => {
    const note = 'x'.repeat(1024 * 1024 + 10);
    const res = await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).set('Content-Type', 'application/json').send(JSON.stringify({ note }));
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toMatchObject({ code: 413, key: 'payload_too_large' });
    expect(res.body.request_id).toMatch(REQUEST_ID);
  });

  it('parses a body just under the limit (then the edge bounds its string, and the DTO the field)', async () => {
    const huge = await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).send({ note: 'x'.repeat(1000 * 1000) });
    expect(huge.status).toBe(400);
    expect(huge.body.details).toBe('note must be at most 65536 characters long');
    const long = await stack.http().post('/v1/diagnostics/pings').set(stack.a.headers).send({ note: 'x'.repeat(201) });
    expect(long.body.details).toContain('note must be shorter than or equal to 200 characters');
  });
});
