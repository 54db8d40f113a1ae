import { render, valuesFor } from '../campaigns';
import type { Lead } from '../leads';

/**
 * What a follow-up agent writes and how it reads a reply: versioned rules chosen by the service, never a
 * model, prompt or budget the workspace can set. A change of wording or rule is a new version; each
 * draft and message names the template (`follow_up.first@follow-up-2026-11-v1`).
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

/** How a reply reads: a person is needed (and why, how soon), the lead declined, or nothing for the agent. */
export type ReplyReading =
  | {
      kind: 'needs_person';
      reason: 'complaint' | 'request_to_talk' | 'question';
      priority: 'normal' | 'high' | 'urgent';
    }
  | { kind: 'declined' }
  | { kind: 'other' };

const words = (...w: string[]) => new RegExp(`\\b(${w.join('|')})\\b`, 'i');

// Order matters: a complaint that asks a question is a complaint.
const LEGAL = words('lawyer', 'solicitor', 'attorney', 'legal action', 'sue', 'court', 'ombudsman', 'gdpr');
const COMPLAINT = words(
  'complain',
  'complaint',
  'unacceptable',
  'disgusting',
  'terrible',
  'awful',
  'rude',
  'scam',
  'spam',
  'harass\\w*',
  'angry',
  'furious',
  'refund',
  'stop (emailing|messaging|contacting|texting) me',
);
const TALK = words(
  'call me',
  'phone me',
  'ring me',
  'give me a call',
  'speak (to|with)',
  'talk (to|with)',
  'a real person',
  'a human',
  'someone from',
  'your manager',
  'can we (talk|speak|meet)',
);
const DECLINED = words(
  'not interested',
  'no thanks',
  'no thank you',
  'not now',
  'not at the moment',
  'unsubscribe me',
);
const QUESTION = /\?|^\s*(how|what|when|where|why|who|which|can|could|do|does|is|are|will|would)\b/im;

/**
 * Reads an inbound reply with the versioned rules: a complaint, a request to talk to someone, or a
 * question the templates cannot answer needs a person; "not interested" ends the chase; anything else
 * is left for a person to read as usual.
 */
export function readReply(body: string): ReplyReading {
  if (LEGAL.test(body)) return { kind: 'needs_person', reason: 'complaint', priority: 'urgent' };
  if (COMPLAINT.test(body)) return { kind: 'needs_person', reason: 'complaint', priority: 'high' };
  if (TALK.test(body)) return { kind: 'needs_person', reason: 'request_to_talk', priority: 'high' };
  if (DECLINED.test(body)) return { kind: 'declined' };
  if (QUESTION.test(body)) return { kind: 'needs_person', reason: 'question', priority: 'normal' };
  return { kind: 'other' };
}
