import { render, valuesFor } from '../campaigns';
import type { Lead } from '../leads';

/**
 * What a follow-up agent writes: versioned templates chosen by the service, never a model, prompt or
 * budget the workspace can set. A change of wording is a new version; each draft and message names the
 * template (`follow_up.first@follow-up-2026-11-v1`). Replies are read by domain/leads/reply-reading.ts.
 */
export const TEMPLATE_VERSION = 'follow-up-2026-11-v1';

type Template = { key: string; subject: string; body: string };

/** The messages of a chase, in order: the first, a nudge, the last. A lead gets at most these three. */
const CHASE: readonly Template[] = [
  {
    key: 'follow_up.first',
    subject: 'Following up on your enquiry',
    body: 'Hi {first_name},\n\nThanks for getting in touch with {workspace_name}. Is now still a good time to talk about what you asked us about? Just reply to this email and we will take it from there.\n\n{workspace_name}',
  },
  {
    key: 'follow_up.nudge',
    subject: 'Checking in',
    body: 'Hi {first_name},\n\nI wanted to check in on your enquiry with {workspace_name}. If it is still useful, reply with a time that suits you and we will arrange it.\n\n{workspace_name}',
  },
  {
    key: 'follow_up.last',
    subject: 'Shall we close your enquiry?',
    body: 'Hi {first_name},\n\nWe have not heard back, so this is our last note about your enquiry with {workspace_name}. If you would still like to talk, just reply and we will pick it up.\n\n{workspace_name}',
  },
];

export const CHASE_LENGTH = CHASE.length;

/** The message for a lead's `step`-th chase (0: the first), filled for the lead, naming its template. */
export function chaseMessage(step: number, lead: Lead, workspaceName: string) {
  const t = CHASE[Math.min(step, CHASE.length - 1)]!;
  const values = valuesFor(lead, workspaceName);
  return {
    template: `${t.key}@${TEMPLATE_VERSION}`,
    subject: render(t.subject, values),
    body: render(t.body, values),
  };
}
