import { pageShell } from '../pages/html';

/** The unsubscribe pages: plain HTML that works without JavaScript, one button, no third-party assets. */

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}
button{font:inherit;padding:.6rem 1.2rem;border-radius:.4rem;border:1px solid #444;background:#222;color:#fff;cursor:pointer}`;

const page = (title: string, body: string) => pageShell({ title, head: `<style>${STYLE}</style>`, body });

export const confirmPage = (action: string) =>
  page(
    'Unsubscribe',
    `<h1>Unsubscribe from these emails?</h1>
<p>You will not get marketing or follow-up emails from this sender any more.</p>
<form method="post" action="${action}"><input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Unsubscribe</button></form>`,
  );

export const donePage = () =>
  page('Unsubscribed', `<h1>You are unsubscribed</h1><p>You will not get these emails any more.</p>`);

export const notFoundPage = () =>
  page('Link not valid', `<h1>This link is not valid</h1><p>Check that you copied the whole link.</p>`);

export const nothingToDoPage = () =>
  page(
    'Nothing to do',
    `<h1>Nothing to unsubscribe</h1><p>The address this link was sent to is no longer on file, so no emails go to it.</p>`,
  );

export const tooManyPage = () =>
  page('Too many requests', `<h1>Too many requests</h1><p>Please wait a minute and try again.</p>`);

export const unavailablePage = () =>
  page('Try again later', `<h1>Something went wrong</h1><p>Please try again in a few minutes.</p>`);
