import { useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client';
import { time } from '../format';
import { segment } from '../router';
import { useLoad } from '../ui/hooks';
import { Badge, Code, Empty, ErrorNotice, Link, Loading, PageTitle } from '../ui/parts';
import { BalanceForm } from './balance-form';
import { CardRedemptions } from './card-redemptions';
import { Ledger } from './ledger';
import { PendingEntries } from './pending-entries';
import { PointBuckets } from './point-buckets';

type Card = Schemas['CardDto'];

/**
 * A member and its card: balance, points added or removed by hand, the point buckets, pending entries to
 * activate or cancel by hand, its redemptions with a rollback, and the ledger.
 */
export function MemberCardPage({ programId, memberId }: { programId: string; memberId: string }) {
  const member = useLoad(() => call(api.GET('/v2/loyalties/programs/{programId}/members/{memberId}', { params: { path: { programId, memberId } } })), [programId, memberId]);
  // Bumped after an activation, a cancellation or a change by hand: the balance, the buckets, the entries and
  // the ledger all change.
  const [version, setVersion] = useState(0);
  const changed = () => {
    setVersion((v) => v + 1);
    member.reload();
  };
  const m = member.data;
  return (
    <>
      <PageTitle>Member {m ? <Badge value={m.status} /> : null}</PageTitle>
      <p>
        <Link to={`/loyalty/programs/${segment(programId)}`}>Back to the members</Link>
      </p>
      {member.problem && <ErrorNotice problem={member.problem} onRetry={member.reload} />}
      {!m && member.loading && <Loading what="the member" />}
      {m && (
        <dl class="facts">
          <dt>Member</dt>
          <dd>
            <Code>{m.id}</Code>
          </dd>
          <dt>Customer</dt>
          <dd>
            <Code>{m.customer_id}</Code>
          </dd>
          <dt>Joined</dt>
          <dd>{time(m.created_at)}</dd>
        </dl>
      )}
      {m && m.cards.length === 0 && (
        <Empty title="This member has no card.">
          <p>A member gets a card when enrolled; a deleted member's card is gone.</p>
        </Empty>
      )}
      {m?.cards.map(({ card }) => <CardView key={card.id} card={card} version={version} onChanged={changed} />)}
    </>
  );
}

function CardView({ card, version, onChanged }: { card: Card; version: number; onChanged: () => void }) {
  return (
    <section class="card" aria-labelledby={`card-${card.id}`}>
      <h2 id={`card-${card.id}`}>
        Card <Code>{card.code}</Code>
      </h2>
      <div class="balances">
        <div class="balance">
          <span class="label">Balance</span>
          <span class="value" data-testid="balance">
            {card.balance.points}
          </span>
          <span class="muted">points to spend</span>
        </div>
        <div class="balance">
          <span class="label">Pending</span>
          <span class="value" data-testid="pending-balance">
            {card.balance.pending_points}
          </span>
          <span class="muted">points not yet activated</span>
        </div>
        <div class="balance">
          <span class="label">Ever added</span>
          <span class="value">{card.points_total}</span>
        </div>
      </div>
      <BalanceForm campaignId={card.campaign_id} code={card.code} onChanged={onChanged} />
      <PointBuckets campaignId={card.campaign_id} code={card.code} version={version} />
      <PendingEntries code={card.code} version={version} onChanged={onChanged} />
      <CardRedemptions code={card.code} version={version} onChanged={onChanged} />
      <Ledger code={card.code} version={version} />
    </section>
  );
}
