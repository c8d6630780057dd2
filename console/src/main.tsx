/** The console's single page: one layout (nav, sign-out), History routing under /console/, the signed-out screen. */
import './styles.css';
import type { ComponentChildren } from 'preact';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onSignedOut, request, type Session } from './api.js';
import { ErrorBox, Link } from './components/ui.js';
import { useAction, useLoad } from './hooks.js';
import { AccountPage } from './pages/Account.js';
import { AnalysesPage, AnalysisPage } from './pages/Analyses.js';
import { BatchPage, BatchesPage } from './pages/Batches.js';
import { KeysPage } from './pages/Keys.js';
import { RendersPage } from './pages/Renders.js';
import { RunPage, RunsPage } from './pages/Runs.js';
import { ScannerPage, ScannersPage } from './pages/Scanners.js';
import { UploadsPage } from './pages/Uploads.js';
import { WebhooksPage } from './pages/Webhooks.js';
import { usePath } from './router.js';

const sections = [
  ['/keys', 'Keys'],
  ['/account', 'Account'],
  ['/uploads', 'Uploads'],
  ['/scanners', 'Scanners'],
  ['/runs', 'Runs'],
  ['/analyses', 'Analyses'],
  ['/renders', 'Renders'],
  ['/webhooks', 'Webhooks'],
  ['/batches', 'Batches'],
] as const;

function page(path: string): { title: string; body: ComponentChildren } {
  const [, section = 'keys', id] = path.split('/');
  const title = sections.find(([to]) => to === `/${section}`)?.[1] ?? 'Not found';
  const one = id ? decodeURIComponent(id) : undefined;
  switch (section) {
    case '':
    case 'keys':
      return { title: 'Keys', body: <KeysPage /> };
    case 'account':
      return { title, body: <AccountPage /> };
    case 'uploads':
      return { title, body: <UploadsPage /> };
    case 'scanners':
      return { title, body: one ? <ScannerPage scannerId={one} /> : <ScannersPage /> };
    case 'runs':
      return { title, body: one ? <RunPage runId={one} /> : <RunsPage /> };
    case 'analyses':
      return { title, body: one ? <AnalysisPage analysisId={one} /> : <AnalysesPage /> };
    case 'renders':
      return { title, body: <RendersPage /> };
    case 'webhooks':
      return { title, body: <WebhooksPage /> };
    case 'batches':
      return { title, body: one ? <BatchPage batchId={one} /> : <BatchesPage /> };
    default:
      return { title, body: <p>There is no such page. Choose one from the menu.</p> };
  }
}

/** What a person whose session is gone reads: how to sign in on each host. */
function SignedOut() {
  return (
    <main id="main" class="signed-out">
      <h1>Signed out</h1>
      <p>Your console session has ended, or you have not signed in yet.</p>
      <h2>On AWS</h2>
      <p>
        <a href="/console/auth/sign-in">Sign in</a> with the account owner's user (Cognito). Users are created by the deployment's administrators.
      </p>
      <h2>On the local host</h2>
      <p>
        Open the one-time sign-in link that <code>npm start</code> printed (valid 15 minutes, once), or print a new one with{' '}
        <code>npm run admin -- console-link --account acct_…</code>.
      </p>
    </main>
  );
}

function App() {
  const { path } = usePath();
  const [signedOut, setSignedOut] = useState(false);
  useEffect(() => onSignedOut(() => setSignedOut(true)), []);
  const session = useLoad(() => request<Session>('GET', '/session'), []);
  const signOut = useAction(async () => {
    const { redirect } = await request<{ redirect: string }>('POST', '/sign-out');
    location.assign(redirect);
  });
  const current = page(path);
  useEffect(() => {
    document.title = `${current.title} · Media Scanner console`;
  }, [current.title]);
  if (signedOut) return <SignedOut />;
  const active = `/${path.split('/')[1] || 'keys'}`;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Media Scanner</span>
        <nav aria-label="Console">
          <ul>
            {sections.map(([to, label]) => (
              <li key={to}>
                <Link to={to} current={active === to}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          {session.data && (
            <span>
              {session.data.email ?? session.data.account_id} · {session.data.plan} · {session.data.host === 'aws' ? 'AWS' : 'local host'}
            </span>
          )}
          <button type="button" onClick={() => void signOut.run()} disabled={signOut.busy}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <h1>{current.title}</h1>
        <ErrorBox error={session.error ?? signOut.error} />
        {current.body}
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
