import { waitFor } from '../../tooling/processes';

/** Polls every 10 ms until `test` holds (state in memory that a relay or a worker changes), or fails after `timeoutMs`. */
export const until = (what: string, test: () => boolean, timeoutMs = 10_000) =>
  waitFor(what, async () => (test() ? true : undefined), timeoutMs, 10);
