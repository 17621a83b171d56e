import { useState } from 'preact/hooks';
import { api, call, type Distribution } from '../api/client';
import { relative, shortEventType } from '../format';
import { segment } from '../router';
import { useAction, useLoad } from '../ui/hooks';
import { Badge, Empty, ErrorNotice, Link, Loading, PageTitle } from '../ui/parts';
import { PauseResume } from './distribution-status';

export function DistributionsPage() {
  const first = useLoad(() => call(api.GET('/v1/distributions', { params: { query: { limit: 50 } } })), []);
  const [extra, setExtra] = useState<Distribution[]>([]);
  // undefined until "Load more" was used: then the cursor of the last page loaded (null: no more).
  const [next, setNext] = useState<string | null | undefined>(undefined);
  const cursor = next === undefined ? (first.data?.cursor?.next ?? null) : next;
  const more = useAction();
  const loadMore = () =>
    more.run(async () => {
      if (!cursor) return;
      const page = await call(api.GET('/v1/distributions', { params: { query: { limit: 50, cursor } } }));
      setExtra((list) => [...list, ...page.data]);
      setNext(page.cursor?.next ?? null);
    });

  const [changed, setChanged] = useState<Record<string, Distribution>>({});
  const rows = [...(first.data?.data ?? []), ...extra].map((d) => changed[d.id] ?? d);
  return (
    <>
      <PageTitle actions={<Link to="/distributions/new" class="button primary">New distribution</Link>}>Distributions</PageTitle>
      <p class="muted">A distribution sends a signed webhook to your system each time an event of its trigger happens.</p>
      {first.problem && <ErrorNotice problem={first.problem} onRetry={first.reload} />}
      {!first.data && first.loading && <Loading what="distributions" />}
      {first.data && rows.length === 0 && (
        <Empty title="No distributions yet.">
          <p>
            Create one to have pending points events (added, activated, canceled, updated) POSTed to your endpoint, signed with the project's <Link to="/secret">signing secret</Link>.
          </p>
          <p>
            <Link to="/distributions/new" class="button primary">Create a distribution</Link>
          </p>
        </Empty>
      )}
      {rows.length > 0 && (
        <table>
          <caption class="visually-hidden">Distributions</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Trigger</th>
              <th scope="col">Target</th>
              <th scope="col">Status</th>
              <th scope="col">Last delivery</th>
              <th scope="col">Last 24 h</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={d.id}>
                <td>
                  <Link to={`/distributions/${segment(d.id)}`}>{d.name}</Link>
                </td>
                <td>{shortEventType(d.trigger)}</td>
                <td class="url">{d.target_url}</td>
                <td>
                  <Badge value={d.status} />
                </td>
                <Stats id={d.id} />
                <td>
                  <PauseResume distribution={d} onChanged={(u) => setChanged((c) => ({ ...c, [u.id]: u }))} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {more.problem && <ErrorNotice problem={more.problem} />}
      {cursor && (
        <button type="button" onClick={loadMore} disabled={more.running}>
          Load more
        </button>
      )}
    </>
  );
}

/** Two cells: the last delivery's outcome and the last 24 hours' counts (GET …/stats). */
function Stats({ id }: { id: string }) {
  const stats = useLoad(() => call(api.GET('/v1/distributions/{distributionId}/stats', { params: { path: { distributionId: id } } })), [id]);
  if (stats.problem || !stats.data) {
    const text = stats.problem ? 'unavailable' : '…';
    return (
      <>
        <td class="muted" title={stats.problem?.message}>
          {text}
        </td>
        <td class="muted">{text}</td>
      </>
    );
  }
  const { last_delivery: last, last_24h: day } = stats.data;
  return (
    <>
      <td>
        {last ? (
          <Link to={`/distributions/${segment(id)}/deliveries/${segment(last.id)}`}>
            <Badge value={last.status} /> {last.status_code ?? ''} <span class="muted">{relative(last.at)}</span>
          </Link>
        ) : (
          <span class="muted">none yet</span>
        )}
      </td>
      <td>
        <span class="ok">{day.succeeded} succeeded</span>, <span class={day.failed ? 'bad' : ''}>{day.failed} failed</span>
        {day.pending > 0 && <span class="muted">, {day.pending} pending</span>}
      </td>
    </>
  );
}
