import { useState } from 'preact/hooks';
import { api, call } from '../api/client';
import { saveKey } from '../session';
import { ErrorNotice } from '../ui/parts';
import { asProblem } from '../ui/hooks';
import type { ApiProblem } from '../api/client';

/** Checks the key with one cheap authenticated call before keeping it for the tab's session. */
export function SignIn({ notice }: { notice: string | null }) {
  const [appId, setAppId] = useState('');
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | undefined>();

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      const key = { appId: appId.trim(), token: token.trim() };
      await call(api.GET('/v1/distributions', { params: { query: { limit: 1 } }, headers: { 'X-App-Id': key.appId, 'X-App-Token': key.token } }));
      saveKey(key);
    } catch (error) {
      setProblem(asProblem(error));
      setBusy(false);
    }
  }

  return (
    <main class="sign-in" id="main">
      <h1>Loyalty dashboard</h1>
      <p class="muted">Sign in with an application key (the App ID and token that the CLI or the bootstrap gave you). It is kept in this tab only and forgotten when you sign out or close the tab.</p>
      {notice && (
        <div class="notice error" role="alert">
          {notice}
        </div>
      )}
      <form onSubmit={(event) => void submit(event)} noValidate>
        <div class="field">
          <label for="app-id">App ID</label>
          <input id="app-id" name="app-id" autoComplete="username" required value={appId} onInput={(e) => setAppId(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="app-token">App token</label>
          <input id="app-token" name="app-token" type="password" autoComplete="current-password" required value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </div>
        {problem && <ErrorNotice problem={problem} />}
        {problem?.status === 401 && <p class="hint">The API did not accept this App ID and token. Check both values; a token is shown only once, when the key is created.</p>}
        <button type="submit" class="primary" disabled={busy || !appId || !token}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
