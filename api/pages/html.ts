/** Text made safe for HTML, in an element or a quoted attribute. */
export const escape = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/**
 * A whole page: the one shell every server-rendered page shares (a phone's viewport, no indexing).
 * `head` is what the page adds to the head (its stylesheet, its scripts); `title` is escaped here.
 */
export const pageShell = (p: { title: string; head?: string; body: string; bodyClass?: string }): string =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escape(p.title)}</title>${p.head ?? ''}</head>
<body${p.bodyClass ? ` class="${escape(p.bodyClass)}"` : ''}>${p.body}</body></html>
`;
