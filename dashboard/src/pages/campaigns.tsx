import { useState } from 'preact/hooks';
import { api, call } from '../api/client';
import { time } from '../format';
import { segment } from '../router';
import { useLoad } from '../ui/hooks';
import { Badge, Empty, ErrorNotice, Link, Loading, PageTitle } from '../ui/parts';

const LIMIT = 25;

/** Loyalty campaigns, each leading to its program's members. */
export function CampaignsPage() {
  const [page, setPage] = useState(1);
  const list = useLoad(() => call(api.GET('/v1/loyalties', { params: { query: { limit: LIMIT, page } } })), [page]);
  const campaigns = list.data?.campaigns ?? [];
  const pages = Math.max(1, Math.ceil((list.data?.total ?? 0) / LIMIT));
  return (
    <>
      <PageTitle>Loyalty campaigns</PageTitle>
      {list.problem && <ErrorNotice problem={list.problem} onRetry={list.reload} />}
      {!list.data && list.loading && <Loading what="campaigns" />}
      {list.data && campaigns.length === 0 && (
        <Empty title={page > 1 ? 'No campaigns on this page.' : 'No loyalty campaigns yet.'}>
          <p>
            Create one with <code>POST /v1/loyalties</code> (see the README), add an earning rule with pending points, and enrol members; they show here.
          </p>
        </Empty>
      )}
      {campaigns.length > 0 && (
        <table>
          <caption class="visually-hidden">Loyalty campaigns</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Active</th>
              <th scope="col">Cards</th>
              <th scope="col">Created</th>
              <th scope="col">Members</th>
            </tr>
          </thead>
          <tbody>
            {campaigns.map((c) => (
              <tr key={c.id}>
                <td>{c.name}</td>
                <td>
                  <Badge value={c.active ? 'ACTIVE' : 'INACTIVE'} />
                </td>
                <td>{c.vouchers_count}</td>
                <td>{time(c.created_at)}</td>
                <td>
                  <Link to={`/loyalty/programs/${segment(c.program_id)}`}>Members of {c.name}</Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pages > 1 && (
        <nav class="pager" aria-label="Campaign pages">
          <button type="button" onClick={() => setPage((p) => p - 1)} disabled={page <= 1}>
            Previous
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button type="button" onClick={() => setPage((p) => p + 1)} disabled={page >= pages}>
            Next
          </button>
        </nav>
      )}
    </>
  );
}
