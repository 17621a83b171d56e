import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routing (#/distributions/…): the server serves one page at /dashboard whatever the route, needs no
 * fallback rule, and a route never reaches the server's logs.
 */
function current(): string {
  const hash = location.hash.replace(/^#/, '');
  return hash.startsWith('/') ? hash : '/';
}

export function useRoute(): string {
  const [path, setPath] = useState(current);
  useEffect(() => {
    const update = () => setPath(current());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return path;
}

export function navigate(path: string): void {
  location.hash = path;
}

export function href(path: string): string {
  return `#${path}`;
}

/** `/distributions/:id` against `/distributions/distr_1` → { id: 'distr_1' }; null when it does not match. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('?')[0].split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i += 1) {
    if (want[i].startsWith(':')) {
      if (!got[i]) return null;
      try {
        params[want[i].slice(1)] = decodeURIComponent(got[i]);
      } catch {
        return null;
      }
    } else if (want[i] !== got[i]) return null;
  }
  return params;
}

export const segment = (value: string) => encodeURIComponent(value);
