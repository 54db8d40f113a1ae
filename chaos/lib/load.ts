import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/** One request of an intake, as its client saw it. */
export type Try = {
  sentAt: number;
  /** Which API process it went to. */
  apiUrl: string;
  /** Until the whole answer (headers and body) was in, or the client gave up. */
  ms: number;
  status?: number;
  /** No HTTP answer: the connection failed, or the client timed out. */
  error?: string;
  requestIdHeader?: string;
  errorCode?: string;
  errorRequestId?: string;
  retryAfter?: string;
};

export type Intake = {
  idempotencyKey: string;
  email: string;
  apiKey: string;
  /** When its first request was sent. */
  sentAt: number;
  tries: Try[];
  leadId?: string;
  outcome?: string;
  /** The answer said Idempotent-Replayed: the first attempt had committed. */
  replayed: boolean;
  succeededAt?: number;
  /** Why the client stopped without a 2xx. */
  gaveUp?: string;
  done: Promise<void>;
};

// Longer than any answer the API may take, so a hung API shows as a long answer, not a retry.
const CLIENT_TIMEOUT_MS = 30_000;
// A client gives up on an intake after this; the run's waits are all shorter.
const INTAKE_DEADLINE_MS = 240_000;
// Honoured, but capped so a run stays short; a real client would wait the full Retry-After.
const MAX_WAIT_MS = 2_000;

const RETRYABLE = (status: number) => status >= 500 || status === 409 || status === 429;

/**
 * The customer's form backend: a steady stream of lead intakes, each with its own Idempotency-Key,
 * retried with the same key and body after any failure that may not be final (no answer, 5xx, 409
 * "still being processed", 429) until it gets a 2xx. It never sends a second key for one lead.
 */
export class Load {
  readonly intakes: Intake[] = [];
  private timer: NodeJS.Timeout | undefined;
  private serial = 0;
  /** Requests sent and not yet answered (or given up on), by when they were sent. */
  private readonly inFlight = new Set<Try>();

  private next = 0;

  /** With several API URLs each request goes to the next in turn, as a load balancer spreads them. */
  constructor(
    private readonly apiUrls: string[],
    private readonly apiKey: string,
  ) {}

  start(perSecond: number) {
    this.stop();
    this.timer = setInterval(() => void this.submit(), 1000 / perSecond);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Waits for every intake to end (a 2xx or given up), at most `ms`; returns how many are still going. */
  async settle(ms: number): Promise<number> {
    const open = this.intakes.filter((i) => !i.succeededAt && !i.gaveUp);
    await Promise.race([Promise.all(open.map((i) => i.done)), sleep(ms)]);
    return this.intakes.filter((i) => !i.succeededAt && !i.gaveUp).length;
  }

  /** When the oldest request still waiting for its answer was sent; undefined when none waits. */
  oldestInFlight(): number | undefined {
    let oldest: number | undefined;
    for (const t of this.inFlight) oldest = Math.min(oldest ?? t.sentAt, t.sentAt);
    return oldest;
  }

  /** One intake, on the main workspace's key unless told otherwise. */
  submit(apiKey = this.apiKey, label = 'load'): Intake {
    const n = ++this.serial;
    const email = `chaos.${label}.${n}.${randomUUID().slice(0, 8)}@example.com`;
    const body = JSON.stringify({
      first_name: 'Chaos',
      last_name: `Intake ${n}`,
      email,
      source: 'chaos-suite',
      consent: { given: true, at: '2026-01-01T09:00:00Z' },
    });
    const intake: Intake = {
      idempotencyKey: randomUUID(),
      email,
      apiKey,
      sentAt: Date.now(),
      tries: [],
      replayed: false,
      done: Promise.resolve(),
    };
    intake.done = this.run(intake, body);
    this.intakes.push(intake);
    return intake;
  }

  private async run(intake: Intake, body: string) {
    const deadline = Date.now() + INTAKE_DEADLINE_MS;
    for (;;) {
      const t = await this.post(intake, body);
      intake.tries.push(t);
      if (t.status !== undefined && t.status < 300) return;
      if (t.status !== undefined && !RETRYABLE(t.status)) {
        intake.gaveUp = `answered ${t.status} ${t.errorCode ?? ''}`.trim();
        return;
      }
      if (Date.now() > deadline) {
        intake.gaveUp = `no 2xx within ${INTAKE_DEADLINE_MS / 1000} s`;
        return;
      }
      const asked = Number(t.retryAfter) * 1000;
      await sleep(Number.isFinite(asked) && asked > 0 ? Math.min(asked, MAX_WAIT_MS) : 500);
    }
  }

  private async post(intake: Intake, body: string): Promise<Try> {
    const apiUrl = this.apiUrls[this.next++ % this.apiUrls.length]!;
    const t: Try = { sentAt: Date.now(), ms: 0, apiUrl };
    this.inFlight.add(t);
    try {
      const res = await fetch(`${apiUrl}/api/v1/leads`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${intake.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': intake.idempotencyKey,
        },
        body,
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
      const text = await res.text();
      t.ms = Date.now() - t.sentAt;
      t.status = res.status;
      t.requestIdHeader = res.headers.get('request-id') ?? undefined;
      t.retryAfter = res.headers.get('retry-after') ?? undefined;
      const parsed = parseJson(text);
      t.errorCode = parsed?.error?.code;
      t.errorRequestId = parsed?.error?.request_id;
      if (res.status < 300) {
        intake.leadId = parsed?.data?.id;
        intake.outcome = parsed?.outcome;
        intake.replayed = res.headers.get('idempotent-replayed') === 'true';
        intake.succeededAt = Date.now();
      }
    } catch (err) {
      t.ms = Date.now() - t.sentAt;
      t.error = errorName(err);
    } finally {
      this.inFlight.delete(t);
    }
    return t;
  }
}

type Answer = {
  data?: { id?: string };
  outcome?: string;
  error?: { code?: string; request_id?: string };
};

const parseJson = (text: string): Answer | undefined => {
  try {
    return JSON.parse(text) as Answer;
  } catch {
    return undefined;
  }
};

/** `ECONNREFUSED`, `UND_ERR_SOCKET`, `TimeoutError`: enough to tell a restart from a hang. */
const errorName = (err: unknown): string => {
  const cause = (err as { cause?: { code?: string } }).cause;
  return cause?.code ?? (err instanceof Error ? err.name : String(err));
};
