import type { DataSource } from 'typeorm';
import { replyToConversation } from '../../domain/conversations/operations/conversation-reply';
import { operatorActor } from '../../domain/kernel/actor';
import type { Services } from '../../domain/kernel/operation';
import { runOperation } from '../../domain/kernel/runner';
import type { Load } from './load';
import { testServices } from '../../tooling/services';

/** One reply the operator asked for, and what the operation answered. */
export type Reply = { leadId: string; at: number; messageId?: string; error?: string };

// A reply waits on PostgreSQL: while it is down or frozen, this many at most wait with it.
const MAX_IN_FLIGHT = 4;

/**
 * The outbound email load: an operator replying by email to leads of the steady load (the operator
 * door, `conversation.reply`, run in the harness against the same database). Each lead is answered
 * once. A reply that fails is not retried: whether it committed is the database's to say, and the
 * invariants count the rows committed, not the calls.
 */
export class Replies {
  readonly sent: Reply[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight = 0;
  private readonly answered = new Set<string>();
  private readonly services: Services;
  private readonly actor = operatorActor({ door: 'admin', requestId: 'chaos-replies' });

  constructor(
    db: DataSource,
    private readonly load: Load,
    readonly workspaceId: string,
    private readonly apiKey: string,
  ) {
    this.services = testServices(db);
  }

  start(perSecond: number) {
    this.stop();
    this.timer = setInterval(() => void this.replyToNext(), 1000 / perSecond);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Replies to the newest leads not answered yet, `n` of them, at once (a burst); resolves when all answered. */
  async burst(n: number): Promise<void> {
    await Promise.all(Array.from({ length: n }, () => this.replyToNext(true)));
  }

  /** The newest lead of the steady load that has no reply yet. */
  private nextLead(): string | undefined {
    const { intakes } = this.load;
    for (let k = intakes.length - 1; k >= 0; k--) {
      const { apiKey, leadId } = intakes[k]!;
      if (apiKey === this.apiKey && leadId && !this.answered.has(leadId)) return leadId;
    }
    return undefined;
  }

  private async replyToNext(burst = false): Promise<void> {
    if (!burst && this.inFlight >= MAX_IN_FLIGHT) return;
    const leadId = this.nextLead();
    if (!leadId) return;
    this.answered.add(leadId);
    const reply: Reply = { leadId, at: Date.now() };
    this.sent.push(reply);
    this.inFlight += 1;
    try {
      const message = await runOperation(
        this.services,
        replyToConversation,
        this.actor,
        { leadId, channel: 'email', subject: 'Your enquiry', body: 'Thanks: we will call you.' },
        { workspaceId: this.workspaceId },
      );
      reply.messageId = message.id;
    } catch (err) {
      reply.error = String(err).slice(0, 200);
    } finally {
      this.inFlight -= 1;
    }
  }
}
