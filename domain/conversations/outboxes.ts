import { declareOutbox } from '../kernel/outbox';
import { messageUpkeep } from './repository/upkeep';

/** What a queued outbound message's NOTIFY names. */
export const MESSAGE_OUTBOX = 'message';

/**
 * The area's outbox: outbound messages, each waiting for its sending workflow. Fair per workspace; a
 * start continues the trace of the change that queued the message.
 */
export const outboxes = {
  messages: declareOutbox({
    name: MESSAGE_OUTBOX,
    unstarted: (data, limit, startedMeanwhile, slots) =>
      messageUpkeep(data).unstarted(limit, startedMeanwhile, slots),
    key: (m) => m.id,
    fair: {
      group: (m) => m.workspace_id,
      workspace: (m) => m.workspace_id,
      stillStarting: (data, ids) => messageUpkeep(data).stillStarting(ids),
    },
    traced: (m) => m.traceparent,
  }),
};
