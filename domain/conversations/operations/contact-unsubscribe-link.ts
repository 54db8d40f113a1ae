import * as yup from 'yup';
import { notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { object, string, uuid, boolean } from '../../kernel/shapes';
import { LEADS_WRITE, lockLead, suppressAddress, suppressionOf } from '../../leads';
import { messagesIn } from '../repository/messages';
import { UNSUBSCRIBE_PATH, unsubscribeLinks, type UnsubscribeLink } from '../unsubscribe-links';

/**
 * A person's one-click unsubscribe from an email's link (RFC 8058): no API key, the link's token is
 * the proof. The address the email went to is suppressed for email (contact.unsubscribed), whatever
 * the lead's address is now: a link to an old address never reaches the new one. A second click (mail
 * clients may POST more than once) changes nothing and emits nothing; a link whose address we cannot
 * tell any more does nothing (`unsubscribed: false`).
 */
export const unsubscribeByLink = defineOperation({
  name: 'contact.unsubscribe_link',
  title: 'Unsubscribe through an email link',
  description:
    "Opts out of email the address an unsubscribe link was sent to: contact.unsubscribed, once. The link's token is the proof.",
  returns: '{ lead_id, channel, unsubscribed, already }.',
  requirement: LEADS_WRITE,
  reach: 'record',
  operatorOnly: true,
  ...WRITE,
  idempotent: true,
  input: yup.object({
    token: describe(yup.string().trim().required('token is required'), "The link's token."),
  }),
  output: object({ lead_id: uuid, channel: string(), unsubscribed: boolean, already: boolean }),
  doors: {
    public: [
      // RFC 8058: GET shows the question and changes nothing (mail scanners follow links); the mail
      // client POSTs `List-Unsubscribe=One-Click`, and the page's button posts the same.
      {
        method: 'get',
        path: `${UNSUBSCRIBE_PATH}/:token`,
        family: 'unsubscribe',
        action: 'unsubscribe.page',
      },
      { method: 'post', path: `${UNSUBSCRIBE_PATH}/:token`, family: 'unsubscribe' },
    ],
  },
  summary: () => 'Unsubscribe through an email link',
  run: async (ctx, { token }) => {
    const link = unsubscribeLinks(ctx.services.secretsKey).read(token);
    if (!link) throw notFound('unsubscribe link');
    const { lead, data } = await lockLead(ctx.data, link.leadId);
    const address = addressSentTo(link, lead.email, await messagesIn(data).emailedAt(lead.id));
    if (!address) {
      ctx.audit(lead.workspace_id, { lead_id: lead.id, unsubscribed: false, why: 'address not known' });
      return { lead_id: lead.id, channel: 'email', unsubscribed: false, already: false };
    }
    const already = (await suppressionOf(data, address, 'email')) === 'unsubscribed';
    if (!already)
      await suppressAddress(ctx, lead.workspace_id, {
        address,
        channel: 'email',
        reason: 'unsubscribed',
        source: 'unsubscribe link',
      });
    ctx.audit(lead.workspace_id, {
      lead_id: lead.id,
      already,
      current_address: address === lead.email,
    });
    return { lead_id: lead.id, channel: 'email', unsubscribed: true, already };
  },
});

/**
 * The address a link was sent to: the lead's own, when the link names it; else one we emailed the lead
 * at before (the lead changed its address since). A v1 link names no address: it was sent to an
 * address we emailed the lead at, so the lead's current one if we ever emailed it, else the newest we
 * did. Undefined when none fits: nothing is suppressed.
 */
function addressSentTo(link: UnsubscribeLink, current: string | null, emailed: string[]): string | undefined {
  if (link.sentTo) return [current ?? '', ...emailed].find((a) => a !== '' && link.sentTo!(a));
  if (current && emailed.includes(current)) return current;
  return emailed[0];
}
