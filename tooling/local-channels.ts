import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { labelled, type Stops } from './cleanup';
import { devDkimKey } from './dkim-key';
import { startMailCatcher, type MailCatcher } from './mail-catcher';
import { startSmsSink } from './sms-sink';

export type LocalChannels = { mail?: MailCatcher; sms?: { url: string } };

/**
 * Mail and SMS for a stack on this machine (`npm run dev`, `npm run cluster`): they really leave, to a
 * local MailDev and SMS provider with pages to read them, unless real ones are set in `env`. Mail is
 * DKIM-signed as production mail is, with a key made once and kept with the data. Fills `env` in.
 */
export async function startLocalChannels(
  env: NodeJS.ProcessEnv,
  stops: Stops,
  dir: string,
): Promise<LocalChannels> {
  const mail = env.SMTP_URL ? undefined : await startMailCatcher(stops, path.join(dir, 'mail'));
  if (mail) {
    env.SMTP_URL = mail.smtpUrl;
    env.MAIL_FROM ??= 'hello@leads.localhost';
  }
  if (env.MAIL_FROM && !env.DKIM_SELECTOR && !env.DKIM_PRIVATE_KEY_FILE) {
    const key = devDkimKey(dir);
    Object.assign(env, { DKIM_SELECTOR: key.selector, DKIM_PRIVATE_KEY_FILE: key.file });
  }
  const sms = env.SMS_ACCOUNT_SID
    ? undefined
    : await startSmsSink({ accountSid: 'ACdev', authToken: randomBytes(16).toString('hex') });
  if (sms) {
    stops.push(labelled('the SMS sink', sms.stop));
    Object.assign(env, {
      SMS_API_URL: sms.url,
      SMS_ACCOUNT_SID: 'ACdev',
      SMS_AUTH_TOKEN: sms.authToken,
      SMS_FROM: '+15550000000',
    });
  }
  return { mail, sms };
}

/** The relay's URL as the admin CLI may keep it: it sends nothing, so it needs no password. */
export function withoutCredentials(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString();
}

/** What the stack file says about mail, so that `mail dns` describes the key the stack signs with. */
export function mailOfStack(
  env: NodeJS.ProcessEnv,
  smtp: { url: string; from: string; dkim?: { domain: string; selector: string } } | undefined,
) {
  if (!smtp) return {};
  return {
    mail: {
      smtpUrl: withoutCredentials(smtp.url),
      from: smtp.from,
      ...(smtp.dkim && {
        dkim: {
          domain: smtp.dkim.domain,
          selector: smtp.dkim.selector,
          privateKeyFile: path.resolve(env.DKIM_PRIVATE_KEY_FILE!),
        },
      }),
    },
  };
}

export type BannerParts = {
  apiUrls: string[];
  /** PUBLIC_URL: where people open the console. */
  publicUrl: string;
  temporalUiUrl?: string;
  temporalAddress: string;
  env: NodeJS.ProcessEnv;
  channels: LocalChannels;
  dkim?: { domain: string; selector: string };
  /** Name and URL of each metrics page. */
  metrics: [string, string][];
  dataDir: string;
  demo: { workspace: { name: string; id: string }; adminEmail: string; key?: string };
  more?: string[];
};

/** What `npm run dev` and `npm run cluster` print once everything answers. */
export function stackBanner(p: BannerParts): string {
  const { mail, sms } = p.channels;
  const pad = (label: string) => `  ${label}:`.padEnd(20);
  const lines = [
    '',
    'Lead service is running (Ctrl+C stops everything).',
    ...p.apiUrls.map(
      (url, i) => `${pad(p.apiUrls.length > 1 ? `API ${i + 1} base URL` : 'API base URL')}${url}/api/v1`,
    ),
    `${pad('Console')}${p.publicUrl}/app   (sign in as ${p.demo.adminEmail}: the link arrives in the mail below)`,
    `${pad('Assistants')}${p.publicUrl}/api/mcp   (a key as bearer, or OAuth: a connector signs in on the console)`,
    `${pad('Temporal Web UI')}${p.temporalUiUrl ?? `(external Temporal at ${p.temporalAddress})`}`,
    `${pad('Mail sent')}${mail ? `${mail.webUrl}   (MailDev; SMTP ${mail.smtpUrl})` : `via ${p.env.SMTP_URL?.replace(/\/\/[^@/]*@/, '//')}`}`,
    p.dkim
      ? `${pad('Mail signed')}DKIM ${p.dkim.selector}._domainkey.${p.dkim.domain}   (records: npm run -s admin -- mail dns --domain ${p.dkim.domain})`
      : `${pad('Mail signed')}no (set DKIM_SELECTOR and DKIM_PRIVATE_KEY_FILE)`,
    `${pad('SMS sent')}${sms ? `${sms.url}   (local provider)` : `via ${p.env.SMS_API_URL ?? 'https://api.twilio.com'}`}`,
    ...p.metrics.map(([name, url]) => `${pad(name)}${url}`),
    ...(p.more ?? []),
    `${pad('Data')}${p.dataDir}`,
    '',
    `Demo workspace:     ${p.demo.workspace.name} (${p.demo.workspace.id})`,
    `  admin member:     ${p.demo.adminEmail}`,
    p.demo.key
      ? `  API key:          ${p.demo.key}   (shown once; every scope)`
      : '  API key:          shown on first run only; make another with: npm run -s admin -- key create ...',
    '',
    `  curl -H "Authorization: Bearer ${p.demo.key ?? '<key>'}" ${p.apiUrls[0]}/api/v1/me`,
    '',
  ];
  return lines.join('\n') + '\n';
}
