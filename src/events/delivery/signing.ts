import { createHmac, randomBytes } from 'node:crypto';

/** A new project secret: `whsec_` + base64 of 32 random bytes (the Standard Webhooks format). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** `x-voucherify-signature`: lower-case hex HMAC-SHA256 of the exact body, keyed with the secret string as shown. */
export function voucherifySignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * `webhook-signature` of Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with
 * the base64-decoded part after `whsec_`; one entry per secret still valid, separated by spaces.
 */
export function standardSignatures(secrets: string[], id: string, timestamp: number, body: string): string {
  const content = `${id}.${timestamp}.${body}`;
  return secrets.map((secret) => `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(content).digest('base64')}`).join(' ');
}
