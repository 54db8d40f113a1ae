import { personReplied, replyReceived } from '../conversations';
import { agentReadsReply } from './handover';
import { handoffsIn } from './repository/handoffs';

/** The chasing agent reads a lead's reply; a person's reply resolves the lead's hand-over. */
export function listen(): void {
  replyReceived.on(agentReadsReply);
  personReplied.on(async (data, leadId) => {
    await handoffsIn(data).resolveFor(leadId);
  });
}
