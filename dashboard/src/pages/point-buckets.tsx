import { useState } from 'preact/hooks';
import { api, call } from '../api/client';
import { time } from '../format';
import { useLoad } from '../ui/hooks';
import { Empty, ErrorNotice, Loading } from '../ui/parts';

const LIMIT = 20;

/** The card's ACTIVE point buckets, the soonest-expiring first, a page at a time. */
export function PointBuckets({ campaignId, code, version }: { campaignId: string; code: string; version: number }) {
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => call(api.GET('/v1/loyalties/{campaignId}/members/{memberId}/points-expiration', { params: { path: { campaignId, memberId: code }, query: { limit: LIMIT, page } } })),
    [campaignId, code, page, version],
  );
  const rows = list.data?.data ?? [];
  const total = list.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / LIMIT));
  return (
    <section aria-labelledby={`buckets-${code}`}>
      <h3 id={`buckets-${code}`}>Point buckets</h3>
      {list.problem && <ErrorNotice problem={list.problem} onRetry={list.reload} />}
      {!list.data && list.loading && <Loading what="point buckets" />}
      {list.data && (
        <p class="muted" data-testid="buckets-total">
          {total === 1 ? '1 active bucket' : `${total} active buckets`}, the soonest-expiring first. Points can be spent through their last day (the project's time zone); a removal takes them from the
          top.
        </p>
      )}
      {list.data && rows.length === 0 && (
        <Empty title={page > 1 ? 'No more buckets.' : 'No points on this card.'}>
          <p>Every credit (initial points, earning, an activation, points added by hand) makes a bucket with its own last day.</p>
        </Empty>
      )}
      {rows.length > 0 && (
        <table>
          <caption class="visually-hidden">Active point buckets, the soonest-expiring first</caption>
          <thead>
            <tr>
              <th scope="col">Points left</th>
              <th scope="col">Last day</th>
              <th scope="col">Created</th>
              <th scope="col">Last drawn from</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((b) => (
              <tr key={b.id} data-bucket={b.id}>
                <td>{b.bucket.total_points}</td>
                <td>{b.expires_at ?? 'never'}</td>
                <td>{time(b.created_at)}</td>
                <td>{time(b.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(page > 1 || page < pages) && (
        <nav class="pager" aria-label="Bucket pages">
          <button type="button" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
            Sooner
          </button>
          <span class="muted">
            Page {page} of {pages}
          </span>
          <button type="button" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>
            Later
          </button>
        </nav>
      )}
    </section>
  );
}
