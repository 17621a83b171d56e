/**
 * The application key lives in sessionStorage only: it survives a reload of the tab, dies with the tab, is
 * never written to localStorage (shared by every tab, kept forever) nor put in a URL (history, logs).
 */
export interface AppKey {
  appId: string;
  token: string;
}

const STORAGE_KEY = 'loyalty-dashboard.app-key';
const listeners = new Set<() => void>();

export function readKey(): AppKey | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<AppKey>;
    return typeof parsed.appId === 'string' && typeof parsed.token === 'string' ? { appId: parsed.appId, token: parsed.token } : null;
  } catch {
    return null;
  }
}

export function saveKey(key: AppKey): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(key));
  notify();
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
  notify();
}

export function onKeyChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function notify(): void {
  for (const listener of listeners) listener();
}
