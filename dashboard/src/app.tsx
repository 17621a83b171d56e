import { useEffect, useState } from 'preact/hooks';
import { takeExpiredNotice } from './api/client';
import { CampaignsPage } from './pages/campaigns';
import { DeliveryPage } from './pages/delivery';
import { DistributionFormPage } from './pages/distribution-form';
import { DistributionPage } from './pages/distribution';
import { DistributionsPage } from './pages/distributions';
import { EventPage, EventsPage } from './pages/events';
import { MemberCardPage } from './pages/member-card';
import { MembersPage } from './pages/members';
import { RewardPage } from './pages/reward';
import { RewardFormPage } from './pages/reward-form';
import { RewardsPage } from './pages/rewards';
import { SecretPage } from './pages/secret';
import { SignIn } from './pages/sign-in';
import { type AppKey, forgetKey, onKeyChange, readKey } from './session';
import { href, match, navigate, useRoute } from './router';
import { Empty, Link } from './ui/parts';

const NAV = [
  { to: '/distributions', label: 'Distributions' },
  { to: '/secret', label: 'Signing secret' },
  { to: '/events', label: 'Events' },
  { to: '/loyalty', label: 'Loyalty' },
  { to: '/rewards', label: 'Rewards' },
];

export function App() {
  const [key, setKey] = useState<AppKey | null>(readKey);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(
    () =>
      onKeyChange(() => {
        setKey(readKey());
        setNotice(takeExpiredNotice());
      }),
    [],
  );
  if (!key) return <SignIn notice={notice} />;
  return <SignedIn appId={key.appId} />;
}

function SignedIn({ appId }: { appId: string }) {
  const path = useRoute();
  useEffect(() => {
    if (path === '/') navigate('/distributions');
    // Move focus to the new page's heading so keyboard and screen-reader users start there.
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [path]);
  return (
    <div class="shell">
      <a class="skip" href="#main" onClick={(event) => (event.preventDefault(), document.querySelector<HTMLElement>('main h1')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Loyalty dashboard</span>
        <nav aria-label="Sections">
          {NAV.map((item) => (
            <a key={item.to} href={href(item.to)} aria-current={path.startsWith(item.to) ? 'page' : undefined}>
              {item.label}
            </a>
          ))}
        </nav>
        <span class="who" title="The App ID of this session">
          {appId}
        </span>
        <button type="button" onClick={forgetKey}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Page path={path} />
      </main>
    </div>
  );
}

function Page({ path }: { path: string }) {
  let p: Record<string, string> | null;
  if (path === '/' || match('/distributions', path)) return <DistributionsPage />;
  if (match('/distributions/new', path)) return <DistributionFormPage />;
  if ((p = match('/distributions/:id/edit', path))) return <DistributionFormPage id={p.id} />;
  if ((p = match('/distributions/:id/deliveries/:deliveryId', path))) return <DeliveryPage distributionId={p.id} deliveryId={p.deliveryId} />;
  if ((p = match('/distributions/:id', path))) return <DistributionPage id={p.id} />;
  if (match('/secret', path)) return <SecretPage />;
  if (match('/events', path)) return <EventsPage />;
  if ((p = match('/events/:id', path))) return <EventPage id={p.id} />;
  if (match('/loyalty', path)) return <CampaignsPage />;
  if ((p = match('/loyalty/programs/:programId', path))) return <MembersPage programId={p.programId} />;
  if ((p = match('/loyalty/programs/:programId/members/:memberId', path))) return <MemberCardPage programId={p.programId} memberId={p.memberId} />;
  if (match('/rewards', path)) return <RewardsPage />;
  if (match('/rewards/new', path)) return <RewardFormPage />;
  if ((p = match('/rewards/:id/edit', path))) return <RewardFormPage id={p.id} />;
  if ((p = match('/rewards/:id', path))) return <RewardPage id={p.id} />;
  return (
    <>
      <h1 tabIndex={-1}>Page not found</h1>
      <Empty title={`Nothing lives at ${path}.`}>
        <p>
          Go to the <Link to="/distributions">distributions</Link>.
        </p>
      </Empty>
    </>
  );
}
