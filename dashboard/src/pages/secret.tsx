import { useState } from 'preact/hooks';
import { api, call, type Schemas } from '../api/client';
import { duration, time } from '../format';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { useAction, useLoad } from '../ui/hooks';
import { ErrorNotice, Loading, Notice, PageTitle } from '../ui/parts';

type Secret = Schemas['WebhookSecretDto'];
const GRACE_CHOICES = [0, 3_600, 86_400, 259_200, 604_800];

/** The project's signing secret: hidden until revealed, copyable, rotated with a grace period. */
export function SecretPage() {
  const loaded = useLoad(() => call(api.GET('/v1/webhook-secret')), []);
  const [rotated, setRotated] = useState<Secret | undefined>();
  const [revealed, setRevealed] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [grace, setGrace] = useState(86_400);
  const copy = useAction();
  const rotate = useAction();
  const secret = rotated ?? loaded.data;

  const doCopy = () =>
    copy.run(async () => {
      if (!secret) return;
      // Browsers offer the clipboard API only on https or localhost; elsewhere, select the secret instead.
      if (navigator.clipboard) {
        await navigator.clipboard.writeText(secret.secret);
        return 'Copied to the clipboard.';
      }
      setRevealed(true);
      requestAnimationFrame(() => {
        const node = document.querySelector('[data-testid=secret-value]');
        if (node) getSelection()?.selectAllChildren(node);
      });
      return 'This browser allows copying only over https or on localhost: the secret is selected, press Ctrl+C (⌘C).';
    });
  const doRotate = () =>
    rotate.run(async () => {
      const next = await call(api.POST('/v1/webhook-secret/rotate', { body: { expire_previous_in_seconds: grace } }));
      setRotated(next);
      setConfirming(false);
      setRevealed(true);
      return next.previous_secret_expires_at ? `Rotated. The previous secret keeps signing until ${time(next.previous_secret_expires_at as unknown as string)}.` : 'Rotated. The previous secret no longer signs.';
    });

  return (
    <>
      <PageTitle>Signing secret</PageTitle>
      <p class="muted">Every webhook of this project is signed with this secret (x-voucherify-signature and webhook-signature). Your endpoint verifies it; keep it out of source code and logs.</p>
      {loaded.problem && <ErrorNotice problem={loaded.problem} onRetry={loaded.reload} />}
      {!secret && loaded.loading && <Loading what="the secret" />}
      {secret && (
        <>
          <div class="secret">
            <span class="visually-hidden" id="secret-label">
              Signing secret
            </span>
            <code aria-labelledby="secret-label" data-testid="secret-value">
              {revealed ? secret.secret : 'whsec_' + '•'.repeat(24)}
            </code>
            <button type="button" onClick={() => setRevealed((r) => !r)} aria-pressed={revealed}>
              {revealed ? 'Hide' : 'Reveal'}
            </button>
            <button type="button" onClick={doCopy}>
              Copy
            </button>
          </div>
          {copy.notice && <Notice>{copy.notice}</Notice>}
          {copy.problem && <ErrorNotice problem={copy.problem} />}
          <dl class="facts">
            <dt>Created</dt>
            <dd>{time(secret.created_at)}</dd>
            <dt>Previous secret</dt>
            <dd>{secret.previous_secret_expires_at ? `still signing until ${time(secret.previous_secret_expires_at as unknown as string)}` : 'none signing'}</dd>
          </dl>
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Rotate secret
          </button>
          {rotate.notice && <Notice>{rotate.notice}</Notice>}
        </>
      )}
      <ConfirmDialog open={confirming} title="Rotate the signing secret?" confirmLabel="Rotate" danger busy={rotate.running} onConfirm={doRotate} onCancel={() => setConfirming(false)}>
        <p>A new secret signs every webhook from now on. During the grace period, webhooks also carry a second signature made with the current secret, so your endpoints can switch without dropping any.</p>
        <div class="field">
          <label for="grace">Grace period (the current secret keeps signing for)</label>
          <select id="grace" value={grace} onChange={(e) => setGrace(Number(e.currentTarget.value))}>
            {GRACE_CHOICES.map((seconds) => (
              <option key={seconds} value={seconds}>
                {duration(seconds)}
              </option>
            ))}
          </select>
          <p class="hint">Until {grace ? time(new Date(Date.now() + grace * 1000).toISOString()) : 'now'}.</p>
        </div>
        {rotate.problem && <ErrorNotice problem={rotate.problem} />}
      </ConfirmDialog>
    </>
  );
}
