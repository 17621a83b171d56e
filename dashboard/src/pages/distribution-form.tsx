import { useEffect, useRef, useState } from 'preact/hooks';
import { EVENT_CATALOGUE, EVENTS, WEBHOOK_EVENT_TYPES } from '../../../src/events/event-catalogue';
import { api, ApiProblem, call, type Distribution, fieldErrors, type Schemas } from '../api/client';
import { navigate, segment } from '../router';
import { described, Field } from '../ui/field';
import { asProblem, useLoad } from '../ui/hooks';
import { ErrorNotice, Link, Loading, PageTitle } from '../ui/parts';

type Trigger = Schemas['CreateDistributionDto']['trigger'];
// From the service's event catalogue; listed by type name, so the first (the new form's default) is `…activated`.
const TRIGGERS: { value: Trigger; label: string }[] = [...WEBHOOK_EVENT_TYPES].sort().map((type) => ({ value: type, label: EVENT_CATALOGUE[type].label }));
const FIELDS = ['name', 'trigger', 'target_url', 'event_name', 'custom_headers', 'status'] as const;
type FieldName = (typeof FIELDS)[number];

interface Values {
  name: string;
  trigger: Trigger;
  target_url: string;
  event_name: string;
  custom_headers: string;
  status: 'ACTIVE' | 'PAUSED';
}

// A new distribution starts on the most common trigger, whatever the list's alphabetical first is.
const EMPTY: Values = { name: '', trigger: EVENTS.CUSTOMER.VOUCHER.LOYALTY_CARD.PENDING_POINTS.ACTIVATED, target_url: '', event_name: '', custom_headers: '', status: 'ACTIVE' };

function fromDistribution(d: Distribution): Values {
  const headers = Object.entries(d.custom_headers ?? {}).map(([name, value]) => `${name}: ${value}`);
  return { name: d.name, trigger: d.trigger, target_url: d.target_url, event_name: d.event_name ?? '', custom_headers: headers.join('\n'), status: d.status === 'ACTIVE' ? 'ACTIVE' : 'PAUSED' };
}

/** "Name: value" lines → an object; a line without a colon is the user's mistake, named before any call. */
function parseHeaders(text: string): Record<string, string> | string {
  const headers: Record<string, string> = {};
  for (const [index, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return `custom_headers line ${index + 1} must look like "Name: value"`;
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** Create (no id) or edit a distribution. The API checks everything; its 400 shows next to the field it names. */
export function DistributionFormPage({ id }: { id?: string }) {
  const existing = useLoad(() => (id ? call(api.GET('/v1/distributions/{distributionId}', { params: { path: { distributionId: id } } })) : Promise.resolve(undefined)), [id]);
  if (id && existing.problem) return <ErrorNotice problem={existing.problem} onRetry={existing.reload} />;
  if (id && !existing.data) return <Loading what="the distribution" />;
  return <DistributionForm existing={existing.data} />;
}

function DistributionForm({ existing }: { existing?: Distribution }) {
  const [values, setValues] = useState<Values>(existing ? fromDistribution(existing) : EMPTY);
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [problem, setProblem] = useState<ApiProblem | undefined>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const set = (name: keyof Values) => (event: Event) => setValues((v) => ({ ...v, [name]: (event.currentTarget as HTMLInputElement).value }));

  // After a refusal, focus the first field the API named so the keyboard lands on the problem.
  useEffect(() => {
    const first = FIELDS.find((name) => errors[name]);
    if (first) form.current?.querySelector<HTMLElement>(`#field-${first}`)?.focus();
  }, [errors]);

  async function submit(event: Event) {
    event.preventDefault();
    setProblem(undefined);
    const headers = parseHeaders(values.custom_headers);
    if (typeof headers === 'string') return setErrors({ custom_headers: headers });
    setErrors({});
    setBusy(true);
    try {
      const common = { name: values.name, trigger: values.trigger, target_url: values.target_url, custom_headers: headers };
      const saved = existing
        ? await call(api.PUT('/v1/distributions/{distributionId}', { params: { path: { distributionId: existing.id } }, body: { ...common, event_name: (values.event_name || null) as never } }))
        : await call(api.POST('/v1/distributions', { body: { ...common, status: values.status, ...(values.event_name ? { event_name: values.event_name as never } : {}) } }));
      navigate(`/distributions/${segment(saved.id)}`);
    } catch (error) {
      const failure = asProblem(error);
      const { byField, rest } = failure.status === 400 ? fieldErrors(failure, FIELDS) : { byField: {}, rest: [] };
      setErrors(byField);
      // Whatever no field claims is shown above the buttons.
      if (Object.keys(byField).length === 0 || rest.length > 0) setProblem(rest.length && Object.keys(byField).length ? new ApiProblem(failure.status, { ...failure.body, details: rest.join('; ') }) : failure);
      setBusy(false);
    }
  }

  const title = existing ? `Edit ${existing.name}` : 'New distribution';
  return (
    <>
      <PageTitle>{title}</PageTitle>
      <form ref={form} onSubmit={(event) => void submit(event)} noValidate class="form" aria-label={title}>
        <Field id="field-name" label="Name" error={errors.name}>
          <input {...described('field-name', false, errors.name)} name="name" value={values.name} onInput={set('name')} maxLength={200} />
        </Field>
        <Field id="field-trigger" label="Trigger" hint="The event type that makes a delivery." error={errors.trigger}>
          <select {...described('field-trigger', true, errors.trigger)} name="trigger" value={values.trigger} onChange={set('trigger')}>
            {TRIGGERS.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label} ({t.value})
              </option>
            ))}
          </select>
        </Field>
        <Field id="field-target_url" label="Target URL" hint="http or https; the webhook is POSTed there." error={errors.target_url}>
          <input {...described('field-target_url', true, errors.target_url)} name="target_url" inputMode="url" autoComplete="off" spellcheck={false} value={values.target_url} onInput={set('target_url')} placeholder="https://crm.example.com/hooks/loyalty" />
        </Field>
        <Field id="field-event_name" label="Event name (optional)" hint="Sent as the envelope's type; empty: the trigger." error={errors.event_name}>
          <input {...described('field-event_name', true, errors.event_name)} name="event_name" value={values.event_name} onInput={set('event_name')} />
        </Field>
        <Field id="field-custom_headers" label="Custom headers (optional)" hint='One per line, "Name: value".' error={errors.custom_headers}>
          <textarea {...described('field-custom_headers', true, errors.custom_headers)} name="custom_headers" rows={3} value={values.custom_headers} onInput={set('custom_headers')} />
        </Field>
        {!existing && (
          <Field id="field-status" label="Status" error={errors.status}>
            <select {...described('field-status', false, errors.status)} name="status" value={values.status} onChange={set('status')}>
              <option value="ACTIVE">Active: deliver events from now on</option>
              <option value="PAUSED">Paused: no deliveries until resumed (events meanwhile are not delivered)</option>
            </select>
          </Field>
        )}
        {problem && <ErrorNotice problem={problem} />}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {existing ? 'Save changes' : 'Create distribution'}
          </button>
          <Link to={existing ? `/distributions/${segment(existing.id)}` : '/distributions'} class="button">
            Cancel
          </Link>
        </div>
      </form>
    </>
  );
}
