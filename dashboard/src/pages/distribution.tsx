import { useState } from 'preact/hooks';
import { api, call, type Distribution } from '../api/client';
import { time } from '../format';
import { navigate, segment } from '../router';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { useAction, useLoad } from '../ui/hooks';
import { Badge, Code, ErrorNotice, Link, Loading, Notice, PageTitle } from '../ui/parts';
import { DeliveriesPanel } from './deliveries';
import { PauseResume } from './distribution-status';

export function DistributionPage({ id }: { id: string }) {
  const loaded = useLoad(() => call(api.GET('/v1/distributions/{distributionId}', { params: { path: { distributionId: id } } })), [id]);
  const [override, setOverride] = useState<Distribution | undefined>();
  const [refresh, setRefresh] = useState(0);
  const test = useAction();
  const remove = useAction();
  const [confirming, setConfirming] = useState(false);

  if (loaded.problem && !loaded.data)
    return (
      <>
        <PageTitle>Distribution</PageTitle>
        <ErrorNotice problem={loaded.problem} onRetry={loaded.reload} />
        <Link to="/distributions">Back to the distributions</Link>
      </>
    );
  if (!loaded.data) return <Loading what="the distribution" />;
  const d = override?.id === id ? override : loaded.data;

  const sendTest = () =>
    test.run(async () => {
      const delivery = await call(api.POST('/v1/distributions/{distributionId}/test', { params: { path: { distributionId: id } } }));
      setRefresh((n) => n + 1);
      return `Test delivery ${delivery.id} queued: it shows below, marked "test", and updates by itself.`;
    });
  const doDelete = () =>
    remove.run(async () => {
      await call(api.DELETE('/v1/distributions/{distributionId}', { params: { path: { distributionId: id } } }));
      setConfirming(false);
      navigate('/distributions');
    });

  return (
    <>
      <PageTitle
        actions={
          <>
            <button type="button" class="primary" onClick={sendTest} disabled={test.running}>
              Send test
            </button>
            <Link to={`/distributions/${segment(id)}/edit`} class="button">
              Edit
            </Link>
            <PauseResume distribution={d} onChanged={setOverride} />
            <button type="button" class="danger" onClick={() => setConfirming(true)}>
              Delete
            </button>
          </>
        }
      >
        {d.name} <Badge value={d.status} />
      </PageTitle>
      {test.notice && <Notice>{test.notice}</Notice>}
      {test.problem && <ErrorNotice problem={test.problem} />}
      {d.status !== 'ACTIVE' && (
        <p class="notice warning">
          This distribution is {d.status}: it sends nothing and events are not delivered to it until you resume it. {d.status === 'DISABLED' ? 'The target answered 410 Gone, or someone disabled it.' : ''}
        </p>
      )}
      <dl class="facts">
        <dt>Id</dt>
        <dd>
          <Code>{d.id}</Code>
        </dd>
        <dt>Trigger</dt>
        <dd>
          <Code>{d.trigger}</Code>
        </dd>
        <dt>Target URL</dt>
        <dd class="url">{d.target_url}</dd>
        <dt>Event name</dt>
        <dd>{d.event_name ?? <span class="muted">the trigger</span>}</dd>
        <dt>Custom headers</dt>
        <dd>
          {Object.keys(d.custom_headers ?? {}).length === 0 ? (
            <span class="muted">none</span>
          ) : (
            Object.entries(d.custom_headers).map(([name, value]) => (
              <div key={name}>
                <Code>
                  {name}: {value}
                </Code>
              </div>
            ))
          )}
        </dd>
        <dt>Created</dt>
        <dd>{time(d.created_at)}</dd>
      </dl>
      <DeliveriesPanel distributionId={id} refresh={refresh} />
      <ConfirmDialog open={confirming} title={`Delete ${d.name}?`} confirmLabel="Delete distribution" danger busy={remove.running} onConfirm={doDelete} onCancel={() => setConfirming(false)}>
        <p>Its deliveries are deleted with it and nothing more is sent to its target. This cannot be undone.</p>
        {remove.problem && <ErrorNotice problem={remove.problem} />}
      </ConfirmDialog>
    </>
  );
}
