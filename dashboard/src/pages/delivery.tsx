import { useState } from 'preact/hooks';
import { api, call } from '../api/client';
import { time } from '../format';
import { segment } from '../router';
import { useAction, useLoad, usePoll } from '../ui/hooks';
import { Badge, Code, Empty, ErrorNotice, Link, Loading, Notice, PageTitle } from '../ui/parts';

/** One delivery: each attempt, the exact body sent, and Redeliver. Refreshes by itself while PENDING. */
export function DeliveryPage({ distributionId, deliveryId }: { distributionId: string; deliveryId: string }) {
  const loaded = useLoad(
    () => call(api.GET('/v1/distributions/{distributionId}/deliveries/{deliveryId}', { params: { path: { distributionId, deliveryId } } })),
    [distributionId, deliveryId],
  );
  const redeliver = useAction();
  const [formatted, setFormatted] = useState(false);
  const d = loaded.data;
  usePoll(d?.status === 'PENDING' && !loaded.loading, 2_000, loaded.reload);
  const back = <Link to={`/distributions/${segment(distributionId)}`}>Back to the distribution</Link>;

  if (!d)
    return (
      <>
        <PageTitle>Delivery</PageTitle>
        {loaded.problem ? <ErrorNotice problem={loaded.problem} onRetry={loaded.reload} /> : <Loading what="the delivery" />}
        {back}
      </>
    );

  const send = () =>
    redeliver.run(async () => {
      await call(api.POST('/v1/distributions/{distributionId}/deliveries/{deliveryId}/redeliver', { params: { path: { distributionId, deliveryId } } }));
      loaded.reload();
      return 'Sent again now, with the same webhook-id and body. The attempts below update by themselves.';
    });

  return (
    <>
      <PageTitle
        actions={
          <button type="button" class="primary" onClick={send} disabled={redeliver.running}>
            Redeliver
          </button>
        }
      >
        Delivery <Badge value={d.status} /> {d.test && <span class="badge badge-test">test</span>}
      </PageTitle>
      <p>{back}</p>
      {redeliver.notice && <Notice>{redeliver.notice}</Notice>}
      {redeliver.problem && <ErrorNotice problem={redeliver.problem} />}
      {loaded.problem && <ErrorNotice problem={loaded.problem} onRetry={loaded.reload} />}
      <dl class="facts">
        <dt>webhook-id</dt>
        <dd>
          <Code>{d.id}</Code>
        </dd>
        <dt>Event</dt>
        <dd>
          {d.test ? <Code>{d.event_id}</Code> : <Link to={`/events/${segment(d.event_id)}`}>{d.event_id}</Link>} <span class="muted">{d.event_type}</span>
        </dd>
        <dt>Created</dt>
        <dd>{time(d.created_at)}</dd>
        <dt>Delivered</dt>
        <dd>{time(d.delivered_at)}</dd>
        <dt>Next attempt</dt>
        <dd>{time(d.next_attempt_at)}</dd>
        <dt>Attempts</dt>
        <dd>{d.attempts_count}</dd>
      </dl>
      <h2>Attempts</h2>
      {d.attempts.length === 0 ? (
        <Empty title="No attempt yet.">
          <p>The worker sends it shortly; this page updates by itself.</p>
        </Empty>
      ) : (
        <table>
          <caption class="visually-hidden">Attempts, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">At</th>
              <th scope="col">Status code</th>
              <th scope="col">Latency</th>
              <th scope="col">Error</th>
              <th scope="col">Response (first 1 KB)</th>
            </tr>
          </thead>
          <tbody>
            {d.attempts.map((a, i) => (
              <tr key={a.at + i}>
                <td>{i + 1}</td>
                <td>{time(a.at)}</td>
                <td>{a.status_code ?? 'no answer'}</td>
                <td>{a.duration_ms} ms</td>
                <td>{a.error ?? '—'}</td>
                <td>
                  <pre class="excerpt">{a.response_excerpt ?? ''}</pre>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="body-title">
        <h2 id="body-title">Body sent</h2>
        <button type="button" aria-pressed={formatted} onClick={() => setFormatted((f) => !f)}>
          {formatted ? 'Show the exact bytes' : 'Format for reading'}
        </button>
      </div>
      <p class="muted">{formatted ? 'Indented for reading: the signature covers the exact bytes, not this.' : 'Exactly as sent and signed.'}</p>
      <pre class="json" aria-labelledby="body-title" tabIndex={0}>
        {formatted ? pretty(d.request_body) : d.request_body}
      </pre>
    </>
  );
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
