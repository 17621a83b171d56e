import { useState } from 'preact/hooks';
import { api, call } from '../api/client';
import { time } from '../format';
import { useLoad } from '../ui/hooks';
import { Empty, ErrorNotice, Loading } from '../ui/parts';

const LIMIT = 20;

interface BalanceDetails {
  balance?: { points?: number; balance?: number };
}

/** The card's ledger, newest first, a page at a time. */
export function Ledger({ code, version }: { code: string; version: number }) {
  const [page, setPage] = useState(1);
  const list = useLoad(() => call(api.GET('/v1/loyalties/members/{memberId}/transactions', { params: { path: { memberId: code }, query: { limit: LIMIT, page } } })), [code, page, version]);
  const rows = list.data?.data ?? [];
  return (
    <section aria-labelledby={`ledger-${code}`}>
      <h3 id={`ledger-${code}`}>Ledger</h3>
      {list.problem && <ErrorNotice problem={list.problem} onRetry={list.reload} />}
      {!list.data && list.loading && <Loading what="the ledger" />}
      {list.data && rows.length === 0 && (
        <Empty title={page > 1 ? 'No older transactions.' : 'No transactions yet.'}>
          <p>Every change of the card's points (initial points, earning, activations, points added or removed by hand, expiries) is recorded here.</p>
        </Empty>
      )}
      {rows.length > 0 && (
        <table>
          <caption class="visually-hidden">Transactions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Type</th>
              <th scope="col">Points</th>
              <th scope="col">Balance after</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => {
              const details = t.details as BalanceDetails;
              return (
                <tr key={t.id}>
                  <td>{time(t.created_at)}</td>
                  <td>{t.type}</td>
                  <td>{details.balance?.points ?? '—'}</td>
                  <td>{details.balance?.balance ?? '—'}</td>
                  <td>{t.reason ?? t.source ?? '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {(page > 1 || list.data?.has_more) && (
        <nav class="pager" aria-label="Ledger pages">
          <button type="button" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
            Newer
          </button>
          <button type="button" disabled={!list.data?.has_more} onClick={() => setPage((p) => p + 1)}>
            Older
          </button>
        </nav>
      )}
    </section>
  );
}
