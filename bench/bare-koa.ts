import Koa from 'koa';
import pg from 'pg';

// Shaped like a lead in the API's responses, so both servers serialise a similar amount of JSON.
const LEAD = {
  data: {
    id: '0b9e3c1e-8d7a-4c63-9a55-6f1f2b7f4d10',
    first_name: 'Olivia',
    last_name: 'Thompson',
    email: 'olivia.thompson.12345@example.com',
    phone: '+447700012345',
    postcode: 'SW1A 1AA',
    status: 'NEW',
    source: 'facebook_ads',
    needs_attention: false,
    follow_up: 'NOT_STARTED',
    score: null,
    archived: false,
    created_at: '2026-01-01T09:00:00.000Z',
    updated_at: '2026-01-01T09:00:00.000Z',
  },
  recent_activity: [],
};

/** The floors' own table: one row per request, as durable as any of the API's rows. */
const FLOOR_TABLE = `CREATE TABLE IF NOT EXISTS bench_floor_writes (
  id bigserial PRIMARY KEY, lead_id uuid NOT NULL, at timestamptz NOT NULL DEFAULT now(), path text NOT NULL)`;

/**
 * The baselines: the same framework and runtime as the API with none of its work, so "API vs floor"
 * isolates what the service itself costs per request.
 * - `/lead`: bare Koa, no database (no auth, no audit).
 * - `/floor/select/<id>` (with DATABASE_URL): one pooled primary-key SELECT of a lead on the API's own
 *   table, answered as JSON.
 * - `/floor/select-insert/<id>`: the same, then one INSERT committed on its own (a durable write, as
 *   an audit row is): the least a read that is audited can cost.
 * The pool has the API's default size (DB_POOL_SIZE, 20). `npm run bench -- bare-koa` serves it on PORT
 * (default 3100) until SIGTERM or Ctrl+C.
 */
export async function main(_args: string[] = []) {
  const pool = process.env.DATABASE_URL
    ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 20) })
    : undefined;
  if (pool) await pool.query(`${FLOOR_TABLE}; TRUNCATE bench_floor_writes`);
  const selectLead = async (id: string) =>
    (await pool!.query('SELECT * FROM leads WHERE id = $1', [id])).rows[0] as
      Record<string, unknown> | undefined;
  const app = new Koa();
  app.use(async (ctx) => {
    const [, floor, kind, id] = ctx.path.split('/');
    if (floor !== 'floor' || !pool || !id) {
      ctx.body = LEAD;
      return;
    }
    const lead = await selectLead(id);
    if (kind === 'select-insert')
      await pool.query('INSERT INTO bench_floor_writes (lead_id, path) VALUES ($1, $2)', [id, ctx.path]);
    ctx.status = lead ? 200 : 404;
    ctx.body = { data: lead ?? null, recent_activity: [] };
  });
  const server = app.listen(Number(process.env.PORT ?? 3100), process.env.HOST ?? '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const close = () =>
    server.close(() => void (pool ? pool.end() : Promise.resolve()).finally(() => process.exit(0)));
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
