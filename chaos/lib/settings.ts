/** How long each fault lasts and how hard the steady load pushes; `--short` is the CI form. */
export type Settings = {
  mode: 'full' | 'short';
  /** Two APIs and two workers on the real Temporal server (`--cluster`), with the faults of such a deployment. */
  cluster: boolean;
  /** New lead intakes a second, each with its own Idempotency-Key. */
  intakesPerSecond: number;
  /** Operator replies by email a second, each to a lead of the steady load. */
  repliesPerSecond: number;
  /** Steady load before the first fault, so every part is warm when it is hurt. */
  warmupSeconds: number;
  /** PostgreSQL stays down this long after its SIGKILL before it is restarted. */
  pgDownSeconds: number;
  pgFrozenSeconds: number;
  temporalDownSeconds: number;
  /** The SMTP server answers 421 to every recipient this long. */
  smtpDownSeconds: number;
  /**
   * Steady load after each fault before the invariants are judged: what is committed then must go
   * through as well, which shows the parts recovered for new work, not only for the backlog.
   */
  afterFaultSeconds: number;
  /** The longest the invariant checker waits for the system to settle after a fault. */
  settleSeconds: number;
  /** Wait for the second attempt of the retried receiver faults (the ladder's first rung is 30 s). */
  secondAttempts: boolean;
  /** RELAY_CRASH_AT=before-mark as well as before-start. */
  relayBeforeMark: boolean;
  /** `--cluster`: how many overload rounds in a row (`--overload N`; CI runs 3). */
  overloadRounds: number;
};

export const SHORT: Settings = {
  mode: 'short',
  cluster: false,
  intakesPerSecond: 3,
  repliesPerSecond: 1,
  warmupSeconds: 3,
  pgDownSeconds: 2,
  afterFaultSeconds: 3,
  pgFrozenSeconds: 12,
  temporalDownSeconds: 15,
  smtpDownSeconds: 8,
  settleSeconds: 90,
  secondAttempts: false,
  relayBeforeMark: false,
  overloadRounds: 1,
};

export const FULL: Settings = {
  mode: 'full',
  cluster: false,
  intakesPerSecond: 4,
  repliesPerSecond: 1,
  warmupSeconds: 10,
  pgDownSeconds: 10,
  afterFaultSeconds: 5,
  pgFrozenSeconds: 20,
  temporalDownSeconds: 60,
  smtpDownSeconds: 30,
  settleSeconds: 180,
  secondAttempts: true,
  relayBeforeMark: true,
  overloadRounds: 1,
};

/** The API's request deadline, passed to it as REQUEST_TIMEOUT_MS (the product default). */
export const API_DEADLINE_MS = 10_000;
/** Slack on the deadline for the answer to cross loopback on a busy 2-core machine. */
export const DEADLINE_SLACK_MS = 1_000;

const USAGE = 'usage: npm run chaos [-- --short] [--cluster [--overload N]]';

export function parseArgs(args: string[]): Settings {
  let overloadRounds: number | undefined;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== '--overload') rest.push(args[i]!);
    else {
      overloadRounds = Number(args[++i]);
      if (!Number.isInteger(overloadRounds) || overloadRounds < 0)
        throw new Error(`--overload takes a number of rounds (0 or more)\n${USAGE}`);
    }
  }
  const unknown = rest.filter((a) => a !== '--short' && a !== '--cluster');
  if (unknown.length > 0) throw new Error(`unknown argument ${unknown[0]}\n${USAGE}`);
  const cluster = rest.includes('--cluster');
  if (overloadRounds !== undefined && !cluster) throw new Error(`--overload needs --cluster\n${USAGE}`);
  const base = rest.includes('--short') ? SHORT : FULL;
  return { ...base, cluster, overloadRounds: overloadRounds ?? base.overloadRounds };
}

/** How long one of two API processes stays down under load (`--cluster`). */
export const API_DOWN_SECONDS = 5;
