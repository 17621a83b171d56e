import { useState } from 'preact/hooks';
import { api, call } from '../api/client';
import { time } from '../format';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { described, Field } from '../ui/field';
import { useAction, useLoad } from '../ui/hooks';
import { Code, Empty, ErrorNotice, Loading, Notice } from '../ui/parts';
import type { Assignment, Reward } from './reward-parts';

/**
 * The loyalty campaigns that offer a reward, each at its price in points (a COIN reward has none: the member
 * chooses what to spend): add one, change a price, remove one.
 */
export function RewardAssignments({ reward }: { reward: Reward }) {
  const [version, setVersion] = useState(0);
  const list = useLoad(() => call(api.GET('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: reward.id }, query: { limit: 100 } } })), [reward.id, version]);
  const campaigns = useLoad(() => call(api.GET('/v1/loyalties', { params: { query: { limit: 100 } } })), []);
  const action = useAction();
  const [campaign, setCampaign] = useState('');
  const [points, setPoints] = useState('');
  const [prices, setPrices] = useState<Record<string, string>>({});
  const [removing, setRemoving] = useState<Assignment | undefined>();
  const coin = reward.type === 'COIN';
  const names = new Map((campaigns.data?.campaigns ?? []).map((c) => [c.id, c.name]));
  const nameOf = (id: string) => names.get(id) ?? id;
  const assignments = list.data?.data ?? [];
  const changed = () => setVersion((v) => v + 1);
  const price = (text: string) => (coin ? {} : { parameters: { loyalty: { points: text.trim() === '' ? (undefined as unknown as number) : Number(text.trim()) } } });

  const add = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const made = await call(api.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: reward.id } }, body: { campaign, ...price(points) } }));
      setPoints('');
      changed();
      return `Offered in ${nameOf(made.related_object_id)}${coin ? '' : ` for ${made.parameters?.loyalty.points} points`}.`;
    });
  };
  const save = (a: Assignment) =>
    action.run(async () => {
      const made = await call(api.PUT('/v1/rewards/{rewardId}/assignments/{assignmentId}', { params: { path: { rewardId: reward.id, assignmentId: a.id } }, body: price(prices[a.id] ?? '') }));
      changed();
      return `The price in ${nameOf(made.related_object_id)} is now ${made.parameters?.loyalty.points} points.`;
    });
  const remove = () =>
    action.run(async () => {
      if (!removing) return;
      await call(api.DELETE('/v1/rewards/{rewardId}/assignments/{assignmentId}', { params: { path: { rewardId: reward.id, assignmentId: removing.id } } }));
      const name = nameOf(removing.related_object_id);
      setRemoving(undefined);
      changed();
      return `No longer offered in ${name}.`;
    });

  return (
    <section aria-labelledby="assignments">
      <h2 id="assignments">Offered in</h2>
      {action.notice && <Notice>{action.notice}</Notice>}
      {action.problem && !removing && <ErrorNotice problem={action.problem} />}
      {list.problem && <ErrorNotice problem={list.problem} onRetry={list.reload} />}
      {!list.data && list.loading && <Loading what="assignments" />}
      {list.data && assignments.length === 0 && (
        <Empty title="Not offered in any campaign yet.">
          <p>Members can redeem it only in a loyalty campaign that offers it{coin ? '' : ', at the price in points set here'}.</p>
        </Empty>
      )}
      {assignments.length > 0 && (
        <table>
          <caption class="visually-hidden">Assignments</caption>
          <thead>
            <tr>
              <th scope="col">Campaign</th>
              <th scope="col">Assignment</th>
              {!coin && <th scope="col">Price in points</th>}
              <th scope="col">Since</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {assignments.map((a) => (
              <tr key={a.id} data-assignment={a.id}>
                <td>{nameOf(a.related_object_id)}</td>
                <td>
                  <Code>{a.id}</Code>
                </td>
                {!coin && (
                  <td>
                    <input
                      class="narrow"
                      type="number"
                      min={1}
                      step={1}
                      aria-label={`Price in points in ${nameOf(a.related_object_id)}`}
                      value={prices[a.id] ?? String(a.parameters?.loyalty.points ?? '')}
                      onInput={(e) => setPrices((p) => ({ ...p, [a.id]: e.currentTarget.value }))}
                    />
                  </td>
                )}
                <td>{time(a.created_at)}</td>
                <td class="row-actions">
                  {!coin && (
                    <button type="button" disabled={action.running || prices[a.id] === undefined} onClick={() => save(a)}>
                      Save price
                    </button>
                  )}
                  <button type="button" disabled={action.running} onClick={() => setRemoving(a)} aria-label={`Remove from ${nameOf(a.related_object_id)}`}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form class="form adjust" onSubmit={add} noValidate aria-labelledby="assign-title">
        <h3 id="assign-title">Offer in a campaign</h3>
        <div class="field-row">
          <Field id="assign-campaign" label="Loyalty campaign">
            <select {...described('assign-campaign', false, undefined)} name="campaign" value={campaign} onChange={(e) => setCampaign(e.currentTarget.value)}>
              <option value="">Choose a campaign</option>
              {(campaigns.data?.campaigns ?? []).map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </Field>
          {!coin && (
            <Field id="assign-points" label="Price in points" hint="What a member pays for one.">
              <input {...described('assign-points', true, undefined)} name="points" type="number" min={1} step={1} inputMode="numeric" value={points} onInput={(e) => setPoints(e.currentTarget.value)} />
            </Field>
          )}
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={action.running}>
            Offer it
          </button>
        </div>
      </form>
      <ConfirmDialog open={Boolean(removing)} title="Stop offering this reward here?" confirmLabel="Remove" danger busy={action.running} onConfirm={remove} onCancel={() => setRemoving(undefined)}>
        <p>Members of {removing ? nameOf(removing.related_object_id) : ''} can no longer redeem it; past redemptions stay.</p>
        {action.problem && <ErrorNotice problem={action.problem} />}
      </ConfirmDialog>
    </section>
  );
}
