import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, call, fieldErrors, type Schemas } from '../api/client';
import { navigate, segment } from '../router';
import { described, Field } from '../ui/field';
import { asProblem, useLoad } from '../ui/hooks';
import { ErrorNotice, Link, Loading, PageTitle } from '../ui/parts';
import type { Reward } from './reward-parts';

type RewardType = Reward['type'];
// The API's names for the fields, as its 400 details name them.
const FIELDS = ['name', 'parameters.product.id', 'parameters.product.sku_id', 'stock', 'attributes.description', 'attributes.image_url', 'parameters.coin.exchange_ratio', 'parameters.coin.points_ratio', 'parameters.campaign.id', 'parameters.campaign.balance', 'parameters.campaign', 'parameters'] as const;
type FieldName = (typeof FIELDS)[number];
const TYPES: { value: RewardType; label: string }[] = [
  { value: 'MATERIAL', label: 'MATERIAL: a product the shop hands over' },
  { value: 'COIN', label: 'COIN: points paid as a discount on an order' },
  { value: 'CAMPAIGN', label: 'CAMPAIGN: points on a card of another loyalty campaign' },
];

interface Values {
  type: RewardType;
  name: string;
  product: string;
  sku: string;
  stock: string;
  description: string;
  image: string;
  exchange: string;
  ratio: string;
  campaign: string;
  balance: string;
}

const EMPTY: Values = { type: 'MATERIAL', name: '', product: '', sku: '', stock: '', description: '', image: '', exchange: '', ratio: '1', campaign: '', balance: '' };

function fromReward(r: Reward): Values {
  const { product, coin, campaign } = r.parameters;
  return {
    type: r.type,
    name: r.name,
    product: product?.id ?? '',
    sku: product?.sku_id ?? '',
    stock: r.stock === null || r.stock === undefined ? '' : String(r.stock),
    description: r.attributes?.description ?? '',
    image: r.attributes?.image_url ?? '',
    exchange: coin ? String(coin.exchange_ratio) : '',
    ratio: coin ? String(coin.points_ratio) : '1',
    campaign: campaign?.id ?? '',
    balance: campaign ? String(campaign.balance) : '',
  };
}

// Numbers go as typed (the API refuses what is not one and names the field); empty optional ones are left out.
const num = (text: string) => (text.trim() === '' ? undefined : Number(text.trim()));

function body(v: Values, editing: boolean): Schemas['CreateRewardDto'] {
  const name = v.name.trim();
  if (v.type === 'COIN') return { name, parameters: { coin: { exchange_ratio: num(v.exchange) as number, points_ratio: num(v.ratio) ?? 1 } } };
  if (v.type === 'CAMPAIGN') return { name, parameters: { campaign: { id: v.campaign, balance: num(v.balance) as number } } };
  const attributes = { ...(v.description.trim() ? { description: v.description.trim() } : {}), ...(v.image.trim() ? { image_url: v.image.trim() } : {}) };
  // On an edit an emptied stock field means unlimited again (null); on a create it is simply left out.
  const stock = num(v.stock) ?? (editing ? null : undefined);
  return { name, parameters: { product: { id: v.product.trim(), sku_id: v.sku.trim() || null } }, ...(stock !== undefined ? { stock } : {}), attributes };
}

/** Create (no id) or edit a reward. The API checks everything; its 400 shows next to the field it names. */
export function RewardFormPage({ id }: { id?: string }) {
  const existing = useLoad(() => (id ? call(api.GET('/v1/rewards/{rewardId}', { params: { path: { rewardId: id } } })) : Promise.resolve(undefined)), [id]);
  if (id && existing.problem) return <ErrorNotice problem={existing.problem} onRetry={existing.reload} />;
  if (id && !existing.data) return <Loading what="the reward" />;
  return <RewardForm existing={existing.data} />;
}

function RewardForm({ existing }: { existing?: Reward }) {
  const [values, setValues] = useState<Values>(existing ? fromReward(existing) : EMPTY);
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [problem, setProblem] = useState<ApiProblem | undefined>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const campaigns = useLoad(() => call(api.GET('/v1/loyalties', { params: { query: { limit: 100 } } })), []);
  const set = (name: keyof Values) => (event: Event) => setValues((v) => ({ ...v, [name]: (event.currentTarget as HTMLInputElement).value }));
  const fid = (name: FieldName) => `field-${name.replace(/\./g, '-')}`;

  useEffect(() => {
    const first = FIELDS.find((name) => errors[name]);
    if (first) form.current?.querySelector<HTMLElement>(`#${fid(first)}`)?.focus();
  }, [errors]);

  async function submit(event: Event) {
    event.preventDefault();
    setProblem(undefined);
    setErrors({});
    setBusy(true);
    try {
      const sent = body(values, Boolean(existing));
      const saved = existing ? await call(api.PUT('/v1/rewards/{rewardId}', { params: { path: { rewardId: existing.id } }, body: sent })) : await call(api.POST('/v1/rewards', { body: sent }));
      navigate(`/rewards/${segment(saved.id)}`);
    } catch (error) {
      const failure = asProblem(error);
      const { byField, rest } = failure.status === 400 ? fieldErrors(failure, FIELDS) : { byField: {}, rest: [] };
      setErrors(byField);
      if (Object.keys(byField).length === 0 || rest.length > 0) setProblem(rest.length && Object.keys(byField).length ? new ApiProblem(failure.status, { ...failure.body, details: rest.join('; ') }) : failure);
      setBusy(false);
    }
  }

  const input = (name: FieldName, key: keyof Values, label: string, hint?: string, extra: Record<string, unknown> = {}) => (
    <Field id={fid(name)} label={label} hint={hint} error={errors[name]}>
      <input {...described(fid(name), Boolean(hint), errors[name])} name={name} value={values[key]} onInput={set(key)} {...extra} />
    </Field>
  );
  const title = existing ? `Edit ${existing.name}` : 'New reward';
  return (
    <>
      <PageTitle>{title}</PageTitle>
      <form ref={form} onSubmit={(event) => void submit(event)} noValidate class="form" aria-label={title}>
        {input('name', 'name', 'Name', undefined, { maxLength: 200 })}
        <Field id="field-type" label="Type" hint={existing ? "A reward's type cannot change." : 'What the member gets for the points.'}>
          <select {...described('field-type', true, undefined)} name="type" value={values.type} disabled={Boolean(existing)} onChange={set('type')}>
            {TYPES.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </select>
        </Field>
        {values.type === 'MATERIAL' && (
          <>
            <div class="field-row">
              {input('parameters.product.id', 'product', 'Product', 'Your catalogue’s product id, kept as given.')}
              {input('parameters.product.sku_id', 'sku', 'SKU (optional)', 'Empty: the product itself.')}
            </div>
            {input('stock', 'stock', 'Stock', 'Units there are in all, redeemed ones included; empty: unlimited.', { type: 'number', min: 0, step: 1, inputMode: 'numeric' })}
            {input('attributes.description', 'description', 'Description (optional)')}
            {input('attributes.image_url', 'image', 'Image URL (optional)', undefined, { inputMode: 'url' })}
          </>
        )}
        {values.type === 'COIN' && (
          <div class="field-row">
            {input('parameters.coin.points_ratio', 'ratio', 'Points', 'This many points…', { type: 'number', min: 1, step: 1 })}
            {input('parameters.coin.exchange_ratio', 'exchange', 'Are worth', '…this much off an order, in its currency.', { type: 'number', min: 0, step: 'any' })}
          </div>
        )}
        {values.type === 'CAMPAIGN' && (
          <div class="field-row">
            <Field id={fid('parameters.campaign.id')} label="Loyalty campaign" hint="Whose card gets the points (the member is enrolled if needed)." error={errors['parameters.campaign.id'] ?? errors['parameters.campaign']}>
              <select {...described(fid('parameters.campaign.id'), true, errors['parameters.campaign.id'])} name="parameters.campaign.id" value={values.campaign} onChange={set('campaign')}>
                <option value="">Choose a campaign</option>
                {(campaigns.data?.campaigns ?? []).map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </select>
            </Field>
            {input('parameters.campaign.balance', 'balance', 'Points credited', undefined, { type: 'number', min: 1, step: 1 })}
          </div>
        )}
        {problem && <ErrorNotice problem={problem} />}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {existing ? 'Save changes' : 'Create reward'}
          </button>
          <Link to={existing ? `/rewards/${segment(existing.id)}` : '/rewards'} class="button">
            Cancel
          </Link>
        </div>
      </form>
    </>
  );
}
