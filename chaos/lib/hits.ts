import { verifyWebhook } from '../../receiver/verify';

/** One request a fault endpoint received, and what it did with it. */
export type Hit = {
  path: string;
  eventId: string | undefined;
  attempt: number;
  at: number;
  signatureOk: boolean;
  /** What the receiver did: `answered 408`, `sender gone after 10003 ms`, `reset after 100 bytes`... */
  outcome: string;
  /** Interim 102 answers written (the endless-1xx receiver). */
  informational?: number;
  /** Body bytes written before the sender hung up (the 10 MB answer). */
  bytesWritten?: number;
};

/** The requests each fault endpoint received, keyed by path, and the secrets they verify with. */
export class HitLog {
  readonly hits: Hit[] = [];
  private readonly secrets = new Map<string, string>();

  setSecret(path: string, secret: string) {
    this.secrets.set(path, secret);
  }

  /** Verifies as a customer would and records the request; the caller fills in its outcome. */
  record(path: string, body: Buffer, signature: string | undefined, attemptHeader: string | undefined): Hit {
    const secret = this.secrets.get(path);
    const verified = secret
      ? verifyWebhook({ payload: body, signatureHeader: signature, secret })
      : ({ ok: false } as const);
    const hit: Hit = {
      path,
      eventId: verified.ok ? verified.event.id : undefined,
      attempt: Number(attemptHeader) || 0,
      at: Date.now(),
      signatureOk: verified.ok,
      outcome: 'pending',
    };
    this.hits.push(hit);
    return hit;
  }

  of(path: string): Hit[] {
    return this.hits.filter((h) => h.path === path);
  }
}
