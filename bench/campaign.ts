import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { createCampaign } from '../domain/campaigns/operations/create';
import { launchCampaign } from '../domain/campaigns/operations/launch';
import { createWorkspace } from '../domain/identity/operations/workspace-create';
import { withCleanup } from '../tooling/cleanup';
import { repoRoot } from '../tooling/paths';
import { waitFor } from '../tooling/processes';
import { startStack } from '../tooling/stack';
import { parseIntFlags } from './lib/args';
import { asBenchOperator, openBenchDatabase } from './lib/bench-database';
import { benchLogger } from './lib/log';
import { procMemory } from './lib/proc-memory';
import { formatTable } from './lib/report';
import { startSmtpCounter, type SmtpCounter } from './lib/smtp-counter';
import { startWorkerProcess } from './lib/worker-process';
import { testServices } from '../tooling/services';

const USAGE = 'npm run bench -- campaign [--recipients N] [--small N] [--bare N]';
const ALWAYS = { weekdays: [1, 2, 3, 4, 5, 6, 7], start_hour: 0, end_hour: 24 };
const benchDir = () => path.join(repoRoot(), '.data', 'bench', 'campaign');

/** The floor: nodemailer alone, pooled as the worker's provider is, to the same server. */
async function bareLoop(smtp: SmtpCounter, n: number): Promise<number> {
  const transport = nodemailer.createTransport({
    url: smtp.url,
    pool: true,
    maxConnections: 5,
    maxMessages: 1_000,
  });
  smtp.reset();
  const started = performance.now();
  let next = 0;
  const slot = async () => {
    while (next < n) {
      const i = next++;
      await transport.sendMail({
        from: { name: 'Bench', address: 'news@bench.example' },
        to: `lead${i}@example.com`,
        subject: 'Bench news',
        text: `Hello Lead${i}\n\n--\nTo stop receiving these emails, unsubscribe: https://bench.example/u/x\n`,
        messageId: `<${randomUUID()}@bench.example>`,
        list: { unsubscribe: { url: 'https://bench.example/u/x', comment: 'Unsubscribe' } },
        headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      });
    }
  };
  await Promise.all(Array.from({ length: 10 }, slot));
  const seconds = (performance.now() - started) / 1000;
  transport.close();
  return n / seconds;
}

/**
 * `npm run bench -- campaign`: a launched email campaign, through the production worker (relay,
 * workflow, batches, the SMTP pool), to a loopback SMTP server, against a bare nodemailer loop to the
 * same server in the same run; and the worker's memory for a small and a large audience. Progress on
 * stderr; the table, then one JSON line with every figure, on stdout. Exits 1 if a message was lost or
 * arrived twice.
 */
export async function main(args: string[]) {
  const flags = parseIntFlags(args, { recipients: 10_000, small: 1_000, bare: 3_000 }, USAGE);
  const log = benchLogger('campaign');
  const loadAtStart = Math.round(loadavg()[0]! * 100) / 100;
  await withCleanup(log, async (stops) => {
    const { pg, db } = await openBenchDatabase(log, stops, {
      dataDir: path.join(benchDir(), 'pg'),
      poolSize: 8,
      fresh: true,
    });
    const temporalFile = path.join(benchDir(), 'temporal', 'temporal.db');
    for (const suffix of ['', '-wal', '-shm']) rmSync(temporalFile + suffix, { force: true });
    const { temporal } = await startStack({ log, stops, temporal: { dbFile: temporalFile, headless: true } });
    const smtp = await startSmtpCounter();
    stops.push(smtp.stop);
    const secretsKey = randomBytes(32);
    const worker = await startWorkerProcess({
      databaseUrl: pg.url,
      temporalAddress: temporal.address,
      taskQueue: `bench-campaign-${randomUUID().slice(0, 8)}`,
      secretsKey,
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'news@bench.example', PUBLIC_URL: 'https://bench.example' },
    });
    stops.push(worker.stop);

    log.info(`bare nodemailer loop: ${flags.bare} messages`);
    await bareLoop(smtp, Math.min(500, flags.bare)); // warm the server's and Node's paths
    const bare = await bareLoop(smtp, flags.bare);

    const services = testServices(db);
    const rssIdle = procMemory(worker.pid);
    const run = async (recipients: number) => {
      const ws = await asBenchOperator(services, createWorkspace, {
        name: `Campaign bench ${recipients}`,
        timezone: 'Europe/London',
      });
      log.info(`seeding ${recipients} leads`);
      await db.query(
        `INSERT INTO leads (workspace_id, first_name, email, source, status)
         SELECT $1, 'Lead' || i, 'lead' || i || '.' || $2 || '@example.com', 'bench', 'NEW'
           FROM generate_series(1, $3) AS i`,
        [ws.id, ws.id.slice(0, 8), recipients],
      );
      const c = await asBenchOperator(
        services,
        createCampaign,
        {
          name: `Bench ${recipients}`,
          channel: 'email',
          steps: [{ subject: 'Bench news', body: 'Hello {first_name}', delay_hours: 0 }],
          window: ALWAYS,
          daily_cap: 100_000,
        },
        { workspaceId: ws.id },
      );
      smtp.reset();
      let peak = procMemory(worker.pid).rss_mib;
      const sampler = setInterval(() => {
        peak = Math.max(peak, procMemory(worker.pid).rss_mib);
      }, 100);
      const started = performance.now();
      await asBenchOperator(services, launchCampaign, { campaignId: c.id });
      log.info(`campaign of ${recipients} launched`);
      try {
        await waitFor(
          `${recipients} messages at the SMTP server`,
          async () => {
            const why = worker.exitReason();
            if (why) throw new Error(why);
            return smtp.total() >= recipients ? true : undefined;
          },
          30 * 60_000,
          100,
        );
      } finally {
        clearInterval(sampler);
      }
      const seconds = (performance.now() - started) / 1000;
      const [row] = await db.query<{ sent: number; other: number }[]>(
        `SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent, count(*) FILTER (WHERE status <> 'sent')::int AS other
           FROM messages WHERE campaign_id = $1`,
        [c.id],
      );
      await waitFor(
        'the campaign to record every send',
        async () => {
          const [r] = await db.query<{ n: number }[]>(
            `SELECT count(*)::int AS n FROM messages WHERE campaign_id = $1 AND status = 'sent'`,
            [c.id],
          );
          return r!.n >= recipients ? true : undefined;
        },
        60_000,
        200,
      );
      return {
        recipients,
        received: smtp.total(),
        duplicated: smtp.duplicates(),
        per_second_end_to_end: Math.round((recipients / seconds) * 10) / 10,
        per_second_sending: Math.round(smtp.rate() * 10) / 10,
        rss_peak_mib: peak,
        rows_sent_at_arrival: row!.sent,
        rows_other: row!.other,
      };
    };
    const small = await run(flags.small);
    const large = await run(flags.recipients);
    const ratio = Math.round((large.per_second_end_to_end / bare) * 1000) / 1000;
    const rssGrowth = Math.round((large.rss_peak_mib - small.rss_peak_mib) * 10) / 10;
    const lost = large.received < large.recipients || small.received < small.recipients;
    const doubled = large.duplicated + small.duplicated;

    const r = (x: number) => x.toFixed(1);
    console.log(
      formatTable(
        [
          '',
          'messages',
          'msg/s (launch to last)',
          'msg/s (first to last)',
          'vs bare loop',
          'worker RSS peak MiB',
        ],
        [
          ['bare nodemailer loop (pool 5, 10 at once)', String(flags.bare), r(bare), r(bare), '1.000', '-'],
          [
            `campaign, ${small.recipients} recipients`,
            String(small.received),
            r(small.per_second_end_to_end),
            r(small.per_second_sending),
            (small.per_second_end_to_end / bare).toFixed(3),
            r(small.rss_peak_mib),
          ],
          [
            `campaign, ${large.recipients} recipients`,
            String(large.received),
            r(large.per_second_end_to_end),
            r(large.per_second_sending),
            ratio.toFixed(3),
            r(large.rss_peak_mib),
          ],
        ],
      ),
    );
    console.log(
      `\ntarget: >= 0.5x the bare loop (${ratio >= 0.5 ? 'met' : 'NOT met'}: ${ratio}); worker RSS ${r(rssIdle.rss_mib)} MiB idle, ` +
        `+${rssGrowth} MiB from ${small.recipients} to ${large.recipients} recipients; lost: ${lost ? 'YES' : 'none'}, sent twice: ${doubled}`,
    );
    console.log(
      JSON.stringify({
        bench: 'campaign',
        bare_per_second: Math.round(bare * 10) / 10,
        small,
        large,
        ratio_vs_bare: ratio,
        target_ratio: 0.5,
        target_met: ratio >= 0.5,
        worker_rss_idle_mib: rssIdle.rss_mib,
        worker_rss_growth_mib: rssGrowth,
        lost,
        duplicated: doubled,
        load_at_start: loadAtStart,
      }),
    );
    if (lost || doubled > 0) process.exitCode = 1;
  });
}
