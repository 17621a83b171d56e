import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, call, fieldErrors, type Schemas } from '../api/client';
import { described, Field } from '../ui/field';
import { asProblem } from '../ui/hooks';
import { ErrorNotice, Notice } from '../ui/parts';

type Expiry = NonNullable<Schemas['BalanceChangeDto']['expiration_type']>;
type Body = Schemas['BalanceChangeDto'];
const FIELDS = ['points', 'reason', 'expiration_type', 'expiration_date'] as const;
type FieldName = (typeof FIELDS)[number];
const EXPIRIES: { value: Expiry; label: string }[] = [
  { value: 'PROGRAM_RULES', label: "By the campaign's rules" },
  { value: 'NON_EXPIRING', label: 'Never' },
  { value: 'CUSTOM_DATE', label: 'Until a date' },
];

/** A random UUID v4; randomUUID exists only on https and localhost, getRandomValues everywhere. */
export function newKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// Answers after which the outcome is unknown or nothing was stored under the key: a retry of the same
// change keeps the key, so if the first attempt did reach the card, the API answers it again instead of
// applying it twice. Any other answer is final, and the next submission is a new request with a new key.
const keepsKey = (status: number) => status === 0 || status === 409 || status === 429 || status >= 500;

function localToday(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** Points added or removed by hand with a reason (POST …/balance), safe to retry through an Idempotency-Key. */
export function BalanceForm({ campaignId, code, onChanged }: { campaignId: string; code: string; onChanged: () => void }) {
  const [points, setPoints] = useState('');
  const [reason, setReason] = useState('');
  const [expiry, setExpiry] = useState<Expiry>('PROGRAM_RULES');
  const [date, setDate] = useState('');
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [problem, setProblem] = useState<ApiProblem | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  // The key of the last submission while a retry of it may still need it, with the request it was sent for.
  const attempt = useRef<{ key: string; request: string } | undefined>(undefined);
  const id = (name: FieldName) => `balance-${code}-${name}`;
  const amount = /^-?\d+$/.test(points.trim()) ? Number(points.trim()) : NaN;
  const removal = amount < 0;

  useEffect(() => {
    const first = FIELDS.find((name) => errors[name]);
    if (first) document.getElementById(id(first))?.focus();
  }, [errors]);

  /** The request's body, or the problems the API would name anyway, found before any call. */
  function check(): { change?: Body; found: Partial<Record<FieldName, string>> } {
    const found: Partial<Record<FieldName, string>> = {};
    if (!Number.isSafeInteger(amount) || amount === 0) found.points = 'points must be a whole number other than 0 (negative removes)';
    if (!reason.trim()) found.reason = 'reason is required: it is kept on the ledger row';
    if (!removal && expiry === 'CUSTOM_DATE' && !date) found.expiration_date = 'expiration_date is required when the points last until a date';
    if (Object.keys(found).length) return { found };
    // The API refuses expiry fields on a removal (it takes the soonest-expiring points instead); the typed
    // body calls expiration_type required only because the schema gives it a default.
    if (removal) return { change: { points: amount, reason: reason.trim() } as Body, found };
    return { change: { points: amount, reason: reason.trim(), expiration_type: expiry, ...(expiry === 'CUSTOM_DATE' ? { expiration_date: date } : {}) }, found };
  }

  async function submit(event: Event) {
    event.preventDefault();
    setProblem(undefined);
    setNotice(undefined);
    const { change, found } = check();
    if (!change) return setErrors(found);
    setErrors({});
    const request = JSON.stringify([campaignId, code, change]);
    if (attempt.current?.request !== request) attempt.current = { key: newKey(), request };
    const { key } = attempt.current;
    setBusy(true);
    try {
      const result = await call(
        api.POST('/v1/loyalties/{campaignId}/members/{memberId}/balance', { params: { path: { campaignId, memberId: code }, header: { 'Idempotency-Key': key } }, body: change }),
      );
      attempt.current = undefined;
      setPoints('');
      setReason('');
      setDate('');
      setNotice(`${result.points > 0 ? 'Added' : 'Removed'} ${Math.abs(result.points)} points: the balance is now ${result.balance}.`);
      onChanged();
    } catch (error) {
      const failure = asProblem(error);
      if (!keepsKey(failure.status)) attempt.current = undefined;
      const { byField, rest } = failure.status === 400 ? fieldErrors(failure, FIELDS) : { byField: {}, rest: [] };
      setErrors(byField);
      // Whatever no field claims (a removal larger than the balance, say) is shown above the button.
      if (Object.keys(byField).length === 0 || rest.length > 0) setProblem(rest.length && Object.keys(byField).length ? new ApiProblem(failure.status, { ...failure.body, details: rest.join('; ') }) : failure);
    } finally {
      setBusy(false);
    }
  }

  const label = Number.isSafeInteger(amount) && amount !== 0 ? `${removal ? 'Remove' : 'Add'} ${Math.abs(amount)} points` : 'Add or remove points';
  return (
    <form class="form adjust" onSubmit={(event) => void submit(event)} noValidate aria-labelledby={`adjust-${code}`}>
      <h3 id={`adjust-${code}`}>Add or remove points</h3>
      <div class="field-row">
        <Field id={id('points')} label="Points" hint="Negative removes, the soonest-expiring first." error={errors.points}>
          <input {...described(id('points'), true, errors.points)} name="points" type="number" step={1} inputMode="numeric" value={points} onInput={(e) => setPoints(e.currentTarget.value)} />
        </Field>
        <Field id={id('expiration_type')} label="Added points expire" hint={removal ? 'Not for a removal.' : undefined} error={errors.expiration_type}>
          <select {...described(id('expiration_type'), removal, errors.expiration_type)} name="expiration_type" value={expiry} disabled={removal} onChange={(e) => setExpiry(e.currentTarget.value as Expiry)}>
            {EXPIRIES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </Field>
        {expiry === 'CUSTOM_DATE' && !removal && (
          <Field id={id('expiration_date')} label="Last day" hint="In the project's time zone." error={errors.expiration_date}>
            <input {...described(id('expiration_date'), true, errors.expiration_date)} name="expiration_date" type="date" min={localToday()} value={date} onInput={(e) => setDate(e.currentTarget.value)} />
          </Field>
        )}
      </div>
      <Field id={id('reason')} label="Reason" hint="Kept on the ledger row, for whoever reads it later." error={errors.reason}>
        <input {...described(id('reason'), true, errors.reason)} name="reason" maxLength={1000} value={reason} onInput={(e) => setReason(e.currentTarget.value)} placeholder="Goodwill for a late delivery" />
      </Field>
      {problem && <ErrorNotice problem={problem} />}
      {notice && <Notice>{notice}</Notice>}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {label}
        </button>
      </div>
    </form>
  );
}
