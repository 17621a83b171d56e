import { useState } from 'preact/hooks';
import { api, call } from '../api/client';
import { time } from '../format';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { described, Field } from '../ui/field';
import { useAction, useLoad } from '../ui/hooks';
import { Badge, Code, Empty, ErrorNotice, Loading, Notice } from '../ui/parts';
import { newKey } from './balance-form';

/** A row of GET /v1/vouchers/{code}/redemption: a redemption (`r_…`) or a rollback (`rr_…`). */
interface Entry {
  id: string;
  object: 'redemption' | 'redemption_rollback';
  date: string;
  status: string;
  amount: number;
  redemption?: string;
  reason?: string | null;
  reward?: { id?: string; name?: string } | null;
}

/**
 * The card's redemptions and their rollbacks, newest first, with Rollback on a redemption that stands: after a
 * confirmation with an optional reason, `POST /v1/redemptions/{id}/rollback` with an Idempotency-Key made for
 * that confirmation, so a retry after a lost answer gives the points back once.
 */
export function CardRedemptions({ code, version, onChanged }: { code: string; version: number; onChanged: () => void }) {
  const list = useLoad(() => call(api.GET('/v1/vouchers/{code}/redemption', { params: { path: { code } } })), [code, version]);
  const action = useAction();
  const [rolling, setRolling] = useState<{ entry: Entry; key: string } | undefined>();
  const [reason, setReason] = useState('');
  const entries = (list.data?.redemption_entries ?? []) as unknown as Entry[];

  const rollback = () =>
    action.run(async () => {
      if (!rolling) return;
      const { entry, key } = rolling;
      const done = await call(
        api.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: entry.id }, query: reason.trim() ? { reason: reason.trim() } : {}, header: { 'Idempotency-Key': key } }, body: {} }),
      );
      setRolling(undefined);
      setReason('');
      onChanged();
      return `Rolled back ${entry.id}: ${Math.abs(done.loyalty_card?.points ?? entry.amount)} points are back on the card (${done.id}).`;
    });

  return (
    <section aria-labelledby={`redemptions-${code}`}>
      <h3 id={`redemptions-${code}`}>Redemptions</h3>
      {action.notice && <Notice>{action.notice}</Notice>}
      {action.problem && !rolling && <ErrorNotice problem={action.problem} />}
      {list.problem && <ErrorNotice problem={list.problem} onRetry={list.reload} />}
      {!list.data && list.loading && <Loading what="redemptions" />}
      {list.data && entries.length === 0 && (
        <Empty title="No redemptions with this card.">
          <p>A member spends points on a reward offered in the card's campaign (POST …/members/{'{memberId}'}/redemption); each redemption shows here and can be rolled back.</p>
        </Empty>
      )}
      {entries.length > 0 && (
        <table>
          <caption class="visually-hidden">Redemptions and rollbacks</caption>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">When</th>
              <th scope="col">Reward</th>
              <th scope="col">Points</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} data-redemption={entry.id}>
                <td>
                  <Code>{entry.id}</Code>
                  {entry.object === 'redemption_rollback' && <span class="muted"> rollback of {entry.redemption}</span>}
                </td>
                <td>{time(entry.date)}</td>
                <td>{entry.reward?.name ?? entry.reward?.id ?? '—'}</td>
                <td>{entry.object === 'redemption_rollback' ? `+${Math.abs(entry.amount)}` : `−${entry.amount}`}</td>
                <td>
                  <Badge value={entry.status} />
                  {entry.reason ? <span class="muted"> {entry.reason}</span> : null}
                </td>
                <td class="row-actions">
                  {entry.object === 'redemption' && entry.status === 'SUCCEEDED' && (
                    <button type="button" disabled={action.running} onClick={() => setRolling({ entry, key: newKey() })} aria-label={`Roll back ${entry.id}`}>
                      Roll back
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog open={Boolean(rolling)} title="Roll back this redemption?" confirmLabel="Roll back" danger busy={action.running} onConfirm={rollback} onCancel={() => setRolling(undefined)}>
        <p>
          {rolling?.entry.amount} points go back to the buckets they came from, and the reward's unit back to its stock. A redemption is rolled back once only.
        </p>
        <Field id={`rollback-reason-${code}`} label="Reason (optional)" hint="Kept on the rollback.">
          <input {...described(`rollback-reason-${code}`, true, undefined)} value={reason} maxLength={1000} onInput={(e) => setReason(e.currentTarget.value)} />
        </Field>
        {action.problem && <ErrorNotice problem={action.problem} />}
      </ConfirmDialog>
    </section>
  );
}
