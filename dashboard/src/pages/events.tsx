import { useState } from 'preact/hooks';
import { EVENT_TYPES } from '../../../src/events/event-catalogue';
import { api, call, type Schemas } from '../api/client';
import { eventCause, shortEventType, time } from '../format';
import { segment } from '../router';
import { useAction, useLoad } from '../ui/hooks';
import { Empty, ErrorNotice, Link, Loading, PageTitle } from '../ui/parts';

type EventType = Schemas['EventDto']['type'];
type LoyaltyEvent = Schemas['EventDto'];
// The service's event catalogue, in its order.
const TYPES: readonly EventType[] = EVENT_TYPES;

export function EventsPage() {
  const [type, setType] = useState<EventType | ''>('');
  const first = useLoad(() => call(api.GET('/v1/events', { params: { query: { limit: 25, type: type || undefined } } })), [type]);
  const [older, setOlder] = useState<{ type: string; rows: LoyaltyEvent[]; next: string | null } | undefined>();
  const more = useAction();
  const extra = older?.type === type ? older : undefined;
  const rows = [...(first.data?.data ?? []), ...(extra?.rows ?? [])];
  const cursor = extra ? extra.next : (first.data?.cursor?.next ?? null);
  const loadOlder = () =>
    more.run(async () => {
      if (!cursor) return;
      const page = await call(api.GET('/v1/events', { params: { query: { limit: 25, type: type || undefined, cursor } } }));
      setOlder({ type, rows: [...(extra?.rows ?? []), ...page.data], next: page.cursor?.next ?? null });
    });

  return (
    <>
      <PageTitle>Events</PageTitle>
      <p class="muted">The project's event log, newest first. Distributions deliver these as webhooks.</p>
      <div class="toolbar">
        <label class="inline">
          Type
          <select value={type} onChange={(e) => setType(e.currentTarget.value as EventType | '')}>
            <option value="">All types</option>
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {shortEventType(t)}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={first.reload} disabled={first.loading}>
          Refresh
        </button>
      </div>
      {first.problem && <ErrorNotice problem={first.problem} onRetry={first.reload} />}
      {!first.data && first.loading && <Loading what="events" />}
      {first.data && rows.length === 0 && (
        <Empty title={type ? `No ${shortEventType(type)} events yet.` : 'No events yet.'}>
          <p>Events appear when pending points are added (a paid order under an earning rule with pending points), activated, canceled or adjusted. See the Loyalty section for members' cards.</p>
        </Empty>
      )}
      {rows.length > 0 && (
        <table>
          <caption class="visually-hidden">Events, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Type</th>
              <th scope="col">Customer</th>
              <th scope="col">Id</th>
              <th scope="col">Caused by</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.id}>
                <td>{time(e.created_at)}</td>
                <td>{shortEventType(e.type)}</td>
                <td>{e.entity_id}</td>
                <td>
                  <Link to={`/events/${segment(e.id)}`}>{e.id}</Link>
                </td>
                <td>{eventCause(e.event_source)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {more.problem && <ErrorNotice problem={more.problem} />}
      {cursor && (
        <button type="button" onClick={loadOlder} disabled={more.running}>
          Load older events
        </button>
      )}
    </>
  );
}

export function EventPage({ id }: { id: string }) {
  const loaded = useLoad(() => call(api.GET('/v1/events/{eventId}', { params: { path: { eventId: id } } })), [id]);
  return (
    <>
      <PageTitle>Event {loaded.data ? shortEventType(loaded.data.type) : ''}</PageTitle>
      <p>
        <Link to="/events">Back to the events</Link>
      </p>
      {loaded.problem && <ErrorNotice problem={loaded.problem} onRetry={loaded.reload} />}
      {!loaded.data && loaded.loading && <Loading what="the event" />}
      {loaded.data && (
        <pre class="json" tabIndex={0} aria-label="The event as JSON">
          {JSON.stringify(loaded.data, null, 2)}
        </pre>
      )}
    </>
  );
}
