/**
 * The systems a workspace can connect, by id, with the name people know them by. Records and events
 * carry the id; everything a person reads (a parked request's summary, a list) uses the name.
 */
const SYSTEMS = {
  google_calendar: 'Google Calendar',
  microsoft_outlook: 'Microsoft Outlook',
  caldav: 'CalDAV calendar',
  hubspot: 'HubSpot',
  salesforce: 'Salesforce',
  pipedrive: 'Pipedrive',
  meta_ads: 'Meta Ads',
  google_ads: 'Google Ads',
  linkedin_ads: 'LinkedIn Ads',
  stripe: 'Stripe',
  twilio: 'Twilio',
  smtp: 'SMTP email',
} as const;
export type SystemId = keyof typeof SYSTEMS;
export const SYSTEM_IDS = Object.keys(SYSTEMS) as SystemId[];

const byName = new Map<string, SystemId>(
  SYSTEM_IDS.flatMap((id) => [
    [id, id],
    [SYSTEMS[id].toLowerCase(), id],
  ]),
);

/** The id of a system named by its id or its name, in any case; undefined for one we do not know. */
export const systemId = (text: string): SystemId | undefined => byName.get(text.trim().toLowerCase());

/** The name a person reads; a record from before the catalogue keeps the text it was given. */
export function displayName(system: string): string {
  const id = systemId(system);
  return id ? SYSTEMS[id] : system;
}
