import type { Data } from '../kernel/data';
import { campaignMessagesIn } from './repository/campaign-messages';

/**
 * What the campaign engine asks of the messages it sends, batch by batch, each one statement named for
 * what it does: fail what a crash left with the provider, count what went out today, find the
 * leftovers, write a batch's rows, mark them sending, settle what the provider said, withdraw what was
 * never handed over. The engine never holds the messages' table itself.
 */
export const campaignMail = (data: Data) => {
  const rows = campaignMessagesIn(data);
  return {
    failInterrupted: rows.failInterrupted,
    sentSince: rows.sentSince,
    leftovers: rows.leftovers,
    write: rows.write,
    markSending: rows.markSending,
    settle: rows.settle,
    withdrawUnsent: rows.withdrawUnsent,
  };
};
