import type { ComponentChildren } from 'preact';
import type { ApiProblem } from '../api/client';
import { href } from '../router';

/** The API's own message and details, and the request id to quote; never a blank page. */
export function ErrorNotice({ problem, onRetry }: { problem: ApiProblem; onRetry?: () => void }) {
  const { message, details, request_id: requestId } = problem.body;
  return (
    <div class="notice error" role="alert">
      <p>
        <strong>{problem.status ? `${problem.status} ${message ?? ''}` : message}</strong>
        {details ? `: ${details}` : ''}
      </p>
      {requestId && <p class="muted">Request id {requestId}</p>}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <div class="notice success" role="status">
      {children}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <div class="empty">
      <p>
        <strong>{title}</strong>
      </p>
      {children}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Badge({ value }: { value: string }) {
  return <span class={`badge badge-${value.toLowerCase()}`}>{value}</span>;
}

export function Link({ to, children, class: className }: { to: string; children: ComponentChildren; class?: string }) {
  return (
    <a href={href(to)} class={className}>
      {children}
    </a>
  );
}

export function PageTitle({ children, actions }: { children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <div class="page-title">
      <h1 tabIndex={-1}>{children}</h1>
      {actions && <div class="actions">{actions}</div>}
    </div>
  );
}

export function Code({ children }: { children: ComponentChildren }) {
  return <code class="code">{children}</code>;
}
