import { useState } from 'preact/hooks';
import { api, call, type Delivery } from '../api/client';
import { localToIso, relative, shortEventType, time, toLocalInput } from '../format';
import { segment } from '../router';
import { useAction, useLoad, usePoll } from '../ui/hooks';
import { Badge, Empty, ErrorNotice, Link, Loading, Notice } from '../ui/parts';

type Status = 'PENDING' | 'SUCCEEDED' | 'FAILED';
const POLL_MS = 2_000;

export function lastAttempt(delivery: Delivery) {
  return delivery.attempts.length ? delivery.attempts[delivery.attempts.length - 1] : undefined;
}

/** The deliveries of a distribution, newest first; refreshes by itself while any shown is PENDING. */
export function DeliveriesPanel({ distributionId, refresh }: { distributionId: string; refresh: number }) {
  const [status, setStatus] = useState<Status | ''>('');
  const [limit, setLimit] = useState(20);
  const list = useLoad(
    () => call(api.GET('/v1/distributions/{distributionId}/deliveries', { params: { path: { distributionId }, query: { limit, status: status || undefined } } })),
    [distributionId, status, limit, refresh],
  );
  const rows = (list.data?.data ?? []) as Delivery[];
  const pending = rows.some((d) => d.status === 'PENDING');
  usePoll(pending && !list.loading, POLL_MS, list.reload);

  return (
    <section aria-labelledby="deliveries-title">
      <div class="section-title">
        <h2 id="deliveries-title">Deliveries</h2>
        <label class="inline">
          Status
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value as Status | '')}>
            <option value="">All</option>
            <option value="PENDING">Pending</option>
            <option value="SUCCEEDED">Succeeded</option>
            <option value="FAILED">Failed</option>
          </select>
        </label>
        <button type="button" onClick={list.reload} disabled={list.loading}>
          Refresh
        </button>
        <span class="muted" aria-live="polite">
          {pending ? 'Updating while deliveries are pending…' : ''}
        </span>
      </div>
      {list.problem && <ErrorNotice problem={list.problem} onRetry={list.reload} />}
      {!list.data && list.loading && <Loading what="deliveries" />}
      {list.data && rows.length === 0 && (
        <Empty title={status ? `No ${status.toLowerCase()} deliveries.` : 'No deliveries yet.'}>
          <p>A delivery is made each time an event of the trigger happens while the distribution is active. Use "Send test" above to send a sample now.</p>
        </Empty>
      )}
      {rows.length > 0 && (
        <table>
          <caption class="visually-hidden">Deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last status code</th>
              <th scope="col">Latency</th>
              <th scope="col">Next attempt</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => {
              const last = lastAttempt(d);
              return (
                <tr key={d.id} data-delivery={d.id}>
                  <td>
                    <Link to={`/distributions/${segment(distributionId)}/deliveries/${segment(d.id)}`}>{time(d.created_at)}</Link>
                  </td>
                  <td>
                    {shortEventType(d.event_type)} {d.test && <span class="badge badge-test">test</span>}
                  </td>
                  <td>
                    <Badge value={d.status} />
                  </td>
                  <td>{d.attempts_count}</td>
                  <td>{last?.status_code ?? (last ? <span title={last.error ?? ''}>no answer</span> : '—')}</td>
                  <td>{last ? `${last.duration_ms} ms` : '—'}</td>
                  <td>{d.next_attempt_at ? relative(d.next_attempt_at) : '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {list.data?.has_more && (
        <button type="button" onClick={() => setLimit((n) => Math.min(100, n + 20))} disabled={limit >= 100}>
          {limit >= 100 ? 'Showing the newest 100' : 'Show more'}
        </button>
      )}
      <Recover distributionId={distributionId} onDone={list.reload} />
    </section>
  );
}

/** Every FAILED delivery created since a chosen time gets one attempt now. */
function Recover({ distributionId, onDone }: { distributionId: string; onDone: () => void }) {
  const [since, setSince] = useState(() => toLocalInput(new Date(Date.now() - 86_400_000)));
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const iso = localToIso(since);
      const result = await call(api.POST('/v1/distributions/{distributionId}/recover', { params: { path: { distributionId } }, body: { since: iso ?? since } }));
      onDone();
      return result.deliveries_count === 0 ? 'No FAILED delivery since then: nothing to send again.' : `${result.deliveries_count} failed ${result.deliveries_count === 1 ? 'delivery' : 'deliveries'} sent again.`;
    });
  };
  return (
    <form class="recover" onSubmit={submit} aria-labelledby="recover-title">
      <h3 id="recover-title">Recover failed deliveries</h3>
      <p class="muted">After an outage of your endpoint: send every FAILED delivery created since this time again (same webhook-id each).</p>
      <div class="row">
        <label for="recover-since">Failed since (your local time)</label>
        <input id="recover-since" type="datetime-local" value={since} onInput={(e) => setSince(e.currentTarget.value)} required />
        <button type="submit" disabled={action.running}>
          Send failed deliveries again
        </button>
      </div>
      {action.notice && <Notice>{action.notice}</Notice>}
      {action.problem && <ErrorNotice problem={action.problem} />}
    </form>
  );
}
