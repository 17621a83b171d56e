import type { Response } from 'express';

/**
 * The dashboard is a page that holds an application key in memory, so it gets the strictest policy that
 * still lets it run: its own scripts and styles only (nothing inline, nothing from elsewhere), data calls to
 * this origin only, never framed (clickjacking on Activate or Rotate), and no Referer that could leak a route.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function setDashboardSecurityHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
}
