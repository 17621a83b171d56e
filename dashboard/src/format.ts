/** Dates in the reader's zone, to the second: these pages are about what happened when. */
export function time(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export function relative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const ms = new Date(iso).getTime() - now;
  const abs = Math.abs(ms);
  const text = abs < 60_000 ? `${Math.round(abs / 1000)} s` : abs < 3_600_000 ? `${Math.round(abs / 60_000)} min` : abs < 86_400_000 ? `${Math.round(abs / 3_600_000)} h` : `${Math.round(abs / 86_400_000)} d`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

export function duration(seconds: number): string {
  if (seconds === 0) return 'none (the previous secret stops signing at once)';
  if (seconds % 86_400 === 0) return `${seconds / 86_400} day${seconds === 86_400 ? '' : 's'}`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} hour${seconds === 3_600 ? '' : 's'}`;
  return `${seconds} seconds`;
}

/** Who caused an event: the application key by its name (its id for events recorded before keys had names), or the service. */
export function eventCause(source: { channel: string; api_key?: { name?: string; app_id: string } }): string {
  if (source.channel !== 'API') return 'Service';
  return source.api_key ? `Key ${source.api_key.name ?? source.api_key.app_id}` : 'API';
}

export function shortEventType(type: string): string {
  return type.replace('customer.voucher.loyalty_card.', '');
}

/** Local `datetime-local` value → ISO 8601 with a zone, as the API requires. */
export function localToIso(value: string): string | null {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export function toLocalInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
