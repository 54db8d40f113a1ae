import { escape } from '../pages/html';
import { csrfField, formError, inputField, type FieldErrors } from './layout';

/** The passkey button, shown by the script where the browser can use passkeys; its outcome is announced. */
const passkeyButton = (
  label: string,
) => `<div data-passkey-sign-in data-options="/app/sign-in/passkey/options" data-verify="/app/sign-in/passkey" data-needs-webauthn hidden>
<button type="button" class="secondary">${escape(label)}</button>
<p class="muted" data-status role="status" aria-live="polite"></p></div>`;

/** The sign-in page: an email for a one-time link, or a passkey already enrolled. */
export const signInPage = (p: { email: string; errors: FieldErrors; csrf: string }) => `<h1>Sign in</h1>
<div class="card">
<h2>Sign in with a passkey</h2>
${passkeyButton('Sign in with a passkey')}
<p data-without-webauthn class="muted">Signing in with a passkey needs JavaScript and a browser that supports passkeys. You can ask for an email link instead.</p>
<p class="or">or</p>
<h2>Get a sign-in link by email</h2>
<p class="muted">The first time, or on a new device: we email you a link that works once, in this browser, for 15 minutes. Then you create a passkey.</p>
${formError(p.errors)}
<form method="post" action="/app/sign-in" novalidate>${csrfField(p.csrf)}
${inputField({ name: 'email', label: 'Email address', type: 'email', value: p.email, errors: p.errors, required: true, autocomplete: 'email', extra: ' spellcheck="false" autocapitalize="none"' })}
<button type="submit">Email me a link</button>
</form>
</div>`;

/** After asking for a link: the same words whether or not the address belongs to a member. */
export const linkSentPage = () => `<h1>Check your email</h1>
<div class="card"><p>If that address belongs to a member, a sign-in link is on its way.</p>
<p>Open it in this browser within 15 minutes. It works once.</p>
<p><a href="/app/sign-in">Back to sign-in</a></p></div>`;

/** The emailed link's page: a button, so a mail scanner's fetch of the link redeems nothing. */
export const linkPage = (action: string, csrf: string) => `<h1>Continue signing in</h1>
<div class="card"><p>Continue to prove this is your email address, then create a passkey for this device.</p>
<form method="post" action="${escape(action)}">${csrfField(csrf)}<button type="submit">Continue</button></form></div>`;

/** Creating a passkey: after a redeemed link (then it signs you in), or from your account page. */
export const enrolPage = (signedIn: boolean) => `<h1>Create a passkey</h1>
<div class="card">
<p>${signedIn ? 'Add a passkey for this device.' : 'Your email is confirmed. Create a passkey to finish signing in; next time you sign in with it, no email needed.'}</p>
<p class="muted">Your device asks you to confirm with your fingerprint, face, PIN or security key. Nothing of it leaves the device.</p>
<form data-passkey-enrol data-options="/app/enrol/options" data-verify="/app/enrol" data-needs-webauthn hidden>
${inputField({ name: 'name', label: 'Name this passkey', value: 'Passkey on this device', errors: {}, hint: 'So you can tell your passkeys apart later.', autocomplete: 'off' })}
<button type="submit">Create a passkey</button>
<p class="muted" data-status role="status" aria-live="polite"></p>
</form>
<p data-without-webauthn class="banner warn">Creating a passkey needs JavaScript and a browser that supports passkeys.</p>
</div>`;
