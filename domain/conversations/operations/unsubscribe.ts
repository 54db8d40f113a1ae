import * as yup from 'yup';
import { DomainError, notFound } from '../../kernel/errors';
import { describe } from '../../kernel/json-schema';
import { WRITE, defineOperation } from '../../kernel/operation';
import { object, string, uuid, boolean } from '../../kernel/shapes';
import { lockLead } from '../../leads/repository/leads';
import { suppressionsIn } from '../../leads/repository/suppressions';
import { LEADS_WRITE } from '../../leads/requirements';
import { suppressAddress } from '../../leads/suppress';
import { unsubscribeLinks } from '../unsubscribe-links';

/**
 * A person's one-click unsubscribe from an email's link (RFC 8058): no API key, the link's token is
 * the proof. Their email address is suppressed for email (contact.unsubscribed); a second click
 * (mail clients may POST more than once) changes nothing and emits nothing.
 */
export const unsubscribeByLink = defineOperation({
  name: 'contact.unsubscribe_link',
  title: 'Unsubscribe through an email link',
  description:
    "Opts the lead an unsubscribe link names out of email: contact.unsubscribed, once. The link's token is the proof.",
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
  doors: { public: { route: 'GET and POST /u/:token' } },
  summary: () => 'Unsubscribe through an email link',
  run: async (ctx, { token }) => {
    if (!ctx.services.secretsKey) throw new Error('unsubscribe links need SECRETS_KEY at this door');
    const leadId = unsubscribeLinks(ctx.services.secretsKey).leadOf(token);
    if (!leadId) throw notFound('unsubscribe link');
    const { lead, data } = await lockLead(ctx.data, leadId);
    if (!lead.email) throw new DomainError('conflict', 'This lead has no email address any more.');
    const already = (await suppressionsIn(data).blockedOn(lead.email, 'email')) === 'unsubscribed';
    if (!already)
      await suppressAddress(ctx, lead.workspace_id, {
        address: lead.email,
        channel: 'email',
        reason: 'unsubscribed',
        source: 'unsubscribe link',
      });
    ctx.audit(lead.workspace_id, { lead_id: lead.id, already });
    return { lead_id: lead.id, channel: 'email', unsubscribed: true, already };
  },
});
