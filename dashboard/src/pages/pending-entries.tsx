import { useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client';
import { relative, time } from '../format';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { useAction, useLoad } from '../ui/hooks';
import { Empty, ErrorNotice, Loading, Notice } from '../ui/parts';

type Entry = Schemas['PendingPointsDto'];

/** The card's PENDING entries with Activate (now) and Cancel (after a confirmation). */
export function PendingEntries({ code, version, onChanged }: { code: string; version: number; onChanged: () => void }) {
  const list = useLoad(() => call(api.GET('/v1/loyalties/members/{memberId}/pending-points', { params: { path: { memberId: code }, query: { limit: 100 } } })), [code, version]);
  const action = useAction();
  const [canceling, setCanceling] = useState<Entry | undefined>();
  const entries = list.data?.data ?? [];

  const activate = (entry: Entry) =>
    action.run(async () => {
      const balance = await call(api.POST('/v1/loyalties/members/{memberId}/pending-points/{pendingPointsId}/activate', { params: { path: { memberId: code, pendingPointsId: entry.id } } }));
      onChanged();
      return `Activated ${balance.points} points: the balance is now ${balance.balance}.`;
    });
  const cancel = () =>
    action.run(async () => {
      if (!canceling) return;
      await call(api.POST('/v1/loyalties/members/{memberId}/pending-points/{pendingPointsId}/cancel', { params: { path: { memberId: code, pendingPointsId: canceling.id } } }));
      const points = canceling.points;
      setCanceling(undefined);
      onChanged();
      return `Canceled ${points} pending points.`;
    });

  return (
    <section aria-labelledby={`pending-${code}`}>
      <h3 id={`pending-${code}`}>Pending points</h3>
      {action.notice && <Notice>{action.notice}</Notice>}
      {action.problem && !canceling && <ErrorNotice problem={action.problem} />}
      {list.problem && <ErrorNotice problem={list.problem} onRetry={list.reload} />}
      {!list.data && list.loading && <Loading what="pending points" />}
      {list.data && entries.length === 0 && (
        <Empty title="No pending points on this card.">
          <p>A paid order under an earning rule with a pending period adds an entry here; the worker activates it when due, or you can activate it by hand.</p>
        </Empty>
      )}
      {entries.length > 0 && (
        <table>
          <caption class="visually-hidden">Pending entries</caption>
          <thead>
            <tr>
              <th scope="col">Points</th>
              <th scope="col">Order</th>
              <th scope="col">Added</th>
              <th scope="col">Activates</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} data-entry={entry.id}>
                <td>{entry.points}</td>
                <td>{entry.details.order?.source_id ?? entry.order_id}</td>
                <td>{time(entry.created_at)}</td>
                <td title={time(entry.activates_at_time)}>{relative(entry.activates_at_time)}</td>
                <td class="row-actions">
                  <button type="button" class="primary" disabled={action.running} onClick={() => activate(entry)} aria-label={`Activate ${entry.points} points of ${entry.id}`}>
                    Activate
                  </button>
                  <button type="button" disabled={action.running} onClick={() => setCanceling(entry)} aria-label={`Cancel ${entry.points} points of ${entry.id}`}>
                    Cancel
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog open={Boolean(canceling)} title="Cancel these pending points?" confirmLabel="Cancel the points" danger busy={action.running} onConfirm={cancel} onCancel={() => setCanceling(undefined)}>
        <p>{canceling?.points} points will never reach the card. This cannot be undone.</p>
        {action.problem && <ErrorNotice problem={action.problem} />}
      </ConfirmDialog>
    </section>
  );
}
