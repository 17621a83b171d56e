import { useState } from 'preact/hooks';
import { api, call } from '../api/client';
import { time } from '../format';
import { navigate, segment } from '../router';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { useAction, useLoad } from '../ui/hooks';
import { Badge, Code, ErrorNotice, Link, Loading, PageTitle } from '../ui/parts';
import { RewardAssignments } from './reward-assignments';
import { rewardSummary, stockLeft } from './reward-parts';

/** One reward: what it gives, its stock and redemptions, Edit, Delete, and the campaigns that offer it. */
export function RewardPage({ id }: { id: string }) {
  const loaded = useLoad(() => call(api.GET('/v1/rewards/{rewardId}', { params: { path: { rewardId: id } } })), [id]);
  const remove = useAction();
  const [confirming, setConfirming] = useState(false);

  if (loaded.problem && !loaded.data)
    return (
      <>
        <PageTitle>Reward</PageTitle>
        <ErrorNotice problem={loaded.problem} onRetry={loaded.reload} />
        <Link to="/rewards">Back to the rewards</Link>
      </>
    );
  if (!loaded.data) return <Loading what="the reward" />;
  const r = loaded.data;
  const doDelete = () =>
    remove.run(async () => {
      await call(api.DELETE('/v1/rewards/{rewardId}', { params: { path: { rewardId: id } } }));
      setConfirming(false);
      navigate('/rewards');
    });

  return (
    <>
      <PageTitle
        actions={
          <>
            <Link to={`/rewards/${segment(id)}/edit`} class="button">
              Edit
            </Link>
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Delete
            </button>
          </>
        }
      >
        {r.name} <Badge value={r.type} />
      </PageTitle>
      <p>
        <Link to="/rewards">Back to the rewards</Link>
      </p>
      <dl class="facts">
        <dt>Reward</dt>
        <dd>
          <Code>{r.id}</Code>
        </dd>
        <dt>Gives</dt>
        <dd>{rewardSummary(r)}</dd>
        <dt>Stock</dt>
        <dd data-testid="reward-stock">{r.stock ?? 'unlimited'}</dd>
        <dt>Redeemed</dt>
        <dd data-testid="reward-redeemed">{r.redeemed ?? 0}</dd>
        <dt>Left</dt>
        <dd data-testid="reward-left">{stockLeft(r)}</dd>
        {r.attributes?.description && (
          <>
            <dt>Description</dt>
            <dd>{r.attributes.description}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>{time(r.created_at)}</dd>
        <dt>Updated</dt>
        <dd>{time(r.updated_at)}</dd>
      </dl>
      <RewardAssignments reward={r} />
      <ConfirmDialog open={confirming} title={`Delete ${r.name}?`} confirmLabel="Delete reward" danger busy={remove.running} onConfirm={doDelete} onCancel={() => setConfirming(false)}>
        <p>The reward leaves the catalogue; its past redemptions stay. A reward still offered in a campaign cannot be deleted: remove its assignments first.</p>
        {remove.problem && <ErrorNotice problem={remove.problem} />}
      </ConfirmDialog>
    </>
  );
}
