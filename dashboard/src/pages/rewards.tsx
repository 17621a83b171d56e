import { useState } from 'preact/hooks';
import { api, call } from '../api/client';
import { time } from '../format';
import { segment } from '../router';
import { useLoad } from '../ui/hooks';
import { Badge, Empty, ErrorNotice, Link, Loading, PageTitle } from '../ui/parts';
import { rewardSummary, stockLeft } from './reward-parts';

const LIMIT = 25;

/** The project's reward catalogue: what each reward gives, its stock and how many were redeemed. */
export function RewardsPage() {
  const [page, setPage] = useState(1);
  const list = useLoad(() => call(api.GET('/v1/rewards', { params: { query: { limit: LIMIT, page } } })), [page]);
  const rewards = list.data?.data ?? [];
  const pages = Math.max(1, Math.ceil((list.data?.total ?? 0) / LIMIT));
  return (
    <>
      <PageTitle
        actions={
          <Link to="/rewards/new" class="button primary">
            New reward
          </Link>
        }
      >
        Rewards
      </PageTitle>
      {list.problem && <ErrorNotice problem={list.problem} onRetry={list.reload} />}
      {!list.data && list.loading && <Loading what="rewards" />}
      {list.data && rewards.length === 0 && (
        <Empty title={page > 1 ? 'No rewards on this page.' : 'No rewards yet.'}>
          <p>A reward is what members spend points on: a product (MATERIAL), a discount on an order (COIN) or points in another loyalty campaign (CAMPAIGN). Create one, then offer it in a loyalty campaign at a price in points.</p>
        </Empty>
      )}
      {rewards.length > 0 && (
        <table>
          <caption class="visually-hidden">Rewards</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Gives</th>
              <th scope="col">Stock</th>
              <th scope="col">Redeemed</th>
              <th scope="col">Left</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {rewards.map((reward) => (
              <tr key={reward.id} data-reward={reward.id}>
                <td>
                  <Link to={`/rewards/${segment(reward.id)}`}>{reward.name}</Link>
                </td>
                <td>
                  <Badge value={reward.type} />
                </td>
                <td>{rewardSummary(reward)}</td>
                <td>{reward.stock ?? 'unlimited'}</td>
                <td>{reward.redeemed ?? 0}</td>
                <td>{stockLeft(reward)}</td>
                <td>{time(reward.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pages > 1 && (
        <nav class="pager" aria-label="Reward pages">
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
