import { useState } from 'preact/hooks';
import { api, call } from '../api/client';
import { time } from '../format';
import { segment } from '../router';
import { useLoad } from '../ui/hooks';
import { Badge, Empty, ErrorNotice, Link, Loading, PageTitle } from '../ui/parts';

type Order = 'created_at' | '-created_at' | 'status' | '-status' | 'customer_id' | '-customer_id';
type Status = 'ACTIVE' | 'INACTIVE';
const ORDERS: { value: Order; label: string }[] = [
  { value: '-created_at', label: 'Newest first' },
  { value: 'created_at', label: 'Oldest first' },
  { value: 'status', label: 'Status A→Z' },
  { value: '-status', label: 'Status Z→A' },
  { value: 'customer_id', label: 'Customer id A→Z' },
  { value: '-customer_id', label: 'Customer id Z→A' },
];

/**
 * A program's members through the v2 list: order, status filter and the signed cursor (which binds them,
 * so changing either starts again from the first page).
 */
export function MembersPage({ programId }: { programId: string }) {
  const [order, setOrder] = useState<Order>('-created_at');
  const [status, setStatus] = useState<Status | ''>('');
  // The cursors of the pages before the current one (empty: first page), for "Previous".
  const [trail, setTrail] = useState<string[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  const program = useLoad(() => call(api.GET('/v2/loyalties/programs/{programId}', { params: { path: { programId } } })), [programId]);
  const list = useLoad(
    () =>
      call(
        api.GET('/v2/loyalties/programs/{programId}/members', {
          params: {
            path: { programId },
            // The cursor carries the filters and order of the first page; sending them again with it is refused.
            query: cursor ? { limit: 25, cursor } : { limit: 25, order, ...(status ? { filters: { status: { conditions: { $is: status } } } } : {}) },
          },
        }),
      ),
    [programId, order, status, cursor],
  );
  const restart = () => {
    setTrail([]);
    setCursor(undefined);
  };
  const members = list.data?.data ?? [];

  return (
    <>
      <PageTitle>Members{program.data ? ` of ${program.data.name}` : ''}</PageTitle>
      <p>
        <Link to="/loyalty">Back to the campaigns</Link>
      </p>
      {program.problem && <ErrorNotice problem={program.problem} onRetry={program.reload} />}
      <div class="toolbar">
        <label class="inline" for="members-status">
          Status
        </label>
        <select id="members-status" value={status} onChange={(e) => (setStatus(e.currentTarget.value as Status | ''), restart())}>
          <option value="">Any</option>
          <option value="ACTIVE">Active</option>
          <option value="INACTIVE">Inactive</option>
        </select>
        <label class="inline" for="members-order">
          Order
        </label>
        <select id="members-order" value={order} onChange={(e) => (setOrder(e.currentTarget.value as Order), restart())}>
          {ORDERS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      {list.problem && <ErrorNotice problem={list.problem} onRetry={restart} />}
      {!list.data && list.loading && <Loading what="members" />}
      {list.data && members.length === 0 && (
        <Empty title={status ? `No ${status.toLowerCase()} members.` : 'No members yet.'}>
          <p>
            Enrol a customer with <code>POST /v2/loyalties/programs/{programId}/members</code>; each member gets a loyalty card.
          </p>
        </Empty>
      )}
      {members.length > 0 && (
        <table>
          <caption class="visually-hidden">Members</caption>
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Customer</th>
              <th scope="col">Status</th>
              <th scope="col">Joined</th>
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <tr key={m.id}>
                <td>
                  <Link to={`/loyalty/programs/${segment(programId)}/members/${segment(m.id)}`}>{m.id}</Link>
                </td>
                <td>{m.customer_id}</td>
                <td>
                  <Badge value={m.status} />
                </td>
                <td>{time(m.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label="Member pages">
        <button type="button" disabled={trail.length === 0} onClick={() => (setCursor(trail[trail.length - 1] || undefined), setTrail((t) => t.slice(0, -1)))}>
          Previous page
        </button>
        <button type="button" disabled={!list.data?.cursor} onClick={() => (setTrail((t) => [...t, cursor ?? '']), setCursor(list.data?.cursor?.next))}>
          Next page
        </button>
      </nav>
    </>
  );
}
