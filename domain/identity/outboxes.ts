import { declareOutbox } from '../kernel/outbox';
import { MEMBER_MAIL_OUTBOX, memberMailIn } from './repository/member-mail';

/**
 * The area's outbox: mail to members, each waiting for its sending workflow. Woken at commit by the
 * change that queued it; a row is marked once its workflow has started.
 */
export const outboxes = {
  memberMail: declareOutbox({
    name: MEMBER_MAIL_OUTBOX,
    unstarted: (data, limit, startedMeanwhile, slots) =>
      memberMailIn(data).unstarted(limit, startedMeanwhile, slots),
    key: (m) => m.id,
    started: (data, m) => memberMailIn(data).started(m.id),
  }),
};
