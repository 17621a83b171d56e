// The verification snippets of docs/webhooks.md, as code that runs. Each block between a `// snippet:` line
// and an `// end snippet` line appears verbatim in the docs (test/e2e/webhook-verify.e2e-spec.ts checks
// it), so what users copy is what the tests run.

// snippet: voucherify
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Checks `x-voucherify-signature`: the lower-case hex HMAC-SHA256 of the raw body, keyed with the secret
 * string exactly as GET /v1/webhook-secret shows it (`whsec_` included). Pass every secret you accept
 * (the new one and, while you switch, the old one).
 */
export function verifyVoucherifySignature(rawBody: Buffer | string, header: string | string[] | undefined, secrets: string[]): boolean {
  const received = Buffer.from(String(header ?? ''), 'utf8');
  return secrets.some((secret) => {
    const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'), 'utf8');
    return received.length === expected.length && timingSafeEqual(received, expected);
  });
}
// end snippet

// snippet: standardwebhooks
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';

/**
 * Checks `webhook-signature` (Standard Webhooks) with the `standardwebhooks` package: the signature of
 * `<webhook-id>.<webhook-timestamp>.<raw body>`, a timestamp within 5 minutes of now. Returns the parsed
 * envelope, or throws a WebhookVerificationError. `secret` may be given with or without `whsec_`.
 */
export function verifyStandardWebhook(rawBody: Buffer | string, headers: IncomingHttpHeaders, secret: string): unknown {
  return new Webhook(secret).verify(rawBody, {
    'webhook-id': String(headers['webhook-id'] ?? ''),
    'webhook-timestamp': String(headers['webhook-timestamp'] ?? ''),
    'webhook-signature': String(headers['webhook-signature'] ?? ''),
  });
}
// end snippet

/** The snippets of `source` (this file's text): name → code, as docs/webhooks.md must show them. */
export function snippetsOf(source: string): Map<string, string> {
  const snippets = new Map<string, string>();
  for (const match of source.matchAll(/^\/\/ snippet: (\S+)\n([\s\S]*?)\n\/\/ end snippet$/gm)) snippets.set(match[1], match[2]);
  return snippets;
}
