/** What the delivery rules say an attempt against a misbehaving receiver must record. */
export type Expectation = {
  status: 'SUCCEEDED' | 'FAILED';
  responseStatus: number | null;
  errorClass: string | null;
};

export type MatrixCase = {
  name: string;
  /** Which receiver serves it. */
  on: 'http' | 'raw' | 'tls';
  path: string;
  first: Expectation;
  /** The second attempt, 30 s later (full form only); none for a delivery that ended. */
  second?: Expectation;
  rule: string;
};

const retried = (responseStatus: number | null, errorClass: string): Expectation => ({
  status: 'FAILED',
  responseStatus,
  errorClass,
});
const succeeded = (responseStatus: number): Expectation => ({
  status: 'SUCCEEDED',
  responseStatus,
  errorClass: null,
});

/** One endpoint (and workspace) each, so one case's retries never touch another's. */
export const MATRIX_CASES: MatrixCase[] = [
  {
    name: 'endless 1xx',
    on: 'raw',
    path: '/raw/1xx',
    first: retried(null, 'timeout'),
    second: succeeded(204),
    rule: 'no final status within 10 s: timeout, retried',
  },
  {
    name: 'body drips 1 byte/s',
    on: 'http',
    path: '/f/drip',
    first: retried(null, 'timeout'),
    second: succeeded(204),
    rule: 'the whole answer must arrive within 10 s: timeout, retried',
  },
  {
    name: '10 MB answer',
    on: 'http',
    path: '/f/big',
    first: succeeded(200),
    rule: '2xx succeeds; the body is read up to 64 KiB and dropped',
  },
  {
    name: 'reset mid-body',
    on: 'http',
    path: '/f/reset-body',
    first: retried(null, 'connection'),
    second: succeeded(204),
    rule: 'the whole answer must arrive: a 200 cut off by a reset is a connection failure, retried',
  },
  {
    name: 'reset mid-headers',
    on: 'raw',
    path: '/raw/reset-headers',
    first: retried(null, 'connection'),
    second: succeeded(204),
    rule: 'no status line: connection failure, retried',
  },
  {
    name: 'answer at 9.9 s',
    on: 'http',
    path: '/f/at-9900',
    first: succeeded(204),
    rule: 'within the 10 s attempt deadline: succeeds',
  },
  {
    name: 'answer at 10.1 s',
    on: 'http',
    path: '/f/at-10100',
    first: retried(null, 'timeout'),
    second: succeeded(204),
    rule: 'past the 10 s attempt deadline: timeout, retried',
  },
  {
    name: '408',
    on: 'http',
    path: '/f/408',
    first: retried(408, 'http_408'),
    second: succeeded(204),
    rule: '408 is retried, unlike other 4xx',
  },
  {
    name: '429',
    on: 'http',
    path: '/f/429',
    first: retried(429, 'http_429'),
    second: succeeded(204),
    rule: '429 is retried, unlike other 4xx',
  },
  {
    name: '307 redirect',
    on: 'http',
    path: '/f/307',
    first: retried(307, 'http_307'),
    second: succeeded(204),
    rule: '3xx is not followed (its Location gets nothing) and counts as a failure, retried',
  },
  {
    name: 'self-signed TLS',
    on: 'tls',
    path: '/tls',
    first: retried(null, 'tls'),
    second: retried(null, 'tls'),
    rule: 'an untrusted certificate is a tls failure, retried; the receiver never gets a request',
  },
];

/** The 307's Location: it must never receive anything. */
export const REDIRECT_TARGET = '/f/redirect-target';
