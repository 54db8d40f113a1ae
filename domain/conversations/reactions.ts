import { inboundMessageKnown, intakeMessageArrived } from '../leads';
import { recordInboundMessageIn } from './messages';
import { messagesIn } from './repository/messages';

/** An intake's message is stored as the lead's inbound message; scoring asks whether the lead wrote. */
export function listen(): void {
  intakeMessageArrived.on(async (ctx, lead, message, applied) => {
    await recordInboundMessageIn(ctx, lead, message, applied);
  });
  inboundMessageKnown.on((data, leadId) => messagesIn(data).hasInbound(leadId));
}
