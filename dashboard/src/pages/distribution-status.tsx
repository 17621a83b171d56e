import { api, call, type Distribution } from '../api/client';
import { useAction } from '../ui/hooks';
import { ErrorNotice } from '../ui/parts';

/** Pause / Resume: PUT status. Resuming sends the distribution's PENDING deliveries again. */
export function PauseResume({ distribution, onChanged }: { distribution: Distribution; onChanged: (d: Distribution) => void }) {
  const action = useAction();
  const active = distribution.status === 'ACTIVE';
  const toggle = () =>
    action.run(async () => {
      const updated = await call(api.PUT('/v1/distributions/{distributionId}', { params: { path: { distributionId: distribution.id } }, body: { status: active ? 'PAUSED' : 'ACTIVE' } }));
      onChanged(updated);
    });
  return (
    <>
      <button type="button" onClick={toggle} disabled={action.running} aria-label={`${active ? 'Pause' : 'Resume'} ${distribution.name}`}>
        {active ? 'Pause' : 'Resume'}
      </button>
      {action.problem && <ErrorNotice problem={action.problem} />}
    </>
  );
}
